"""The chat loop both faces share: it speaks only protocol lines.

``wisp chat --json`` writes those lines to stdout; the plain chat renders the very same lines
on the terminal, so the two cannot drift. Inbound lines arrive through ``receive``: messages
queue (FIFO) while answers, choices, completions and interrupts act at once. The order of the
lines is docs/protocol.md, "2. Lifecycle and ordering".
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import msgspec

from wisp import protocol as p
from wisp.agent.events import AgentEvent, ContextFill, TextFragment, TurnResult, cut_note
from wisp.audit.event import AuditEvent
from wisp.chat.activity import ActivityTracker
from wisp.chat.event_text import event_text
from wisp.chat.fact_command import state_fact
from wisp.chat.host import ChatHost, Write
from wisp.chat.notices import Notices
from wisp.chat.output_page import event_output
from wisp.chat.slash import SlashCommands
from wisp.chat.status import StatusReader
from wisp.errors import WispError
from wisp.facts.book import Fact, is_proposal
from wisp.notify.notifier import Notifier


class GuidanceDue(msgspec.Struct, frozen=True):
    """Queued by a hello that declares ``guidance``: the guidance files waiting are asked
    about before any message that follows it."""


QUIT_WORDS = frozenset({"exit", "quit", "q"})
HELP_HINT = "/help for commands, /quit or Ctrl-D to exit."


class ChatLoop:
    """Runs one chat session's loop: hello, notes, then status → message → … → exit."""

    def __init__(
        self,
        host: ChatHost,
        write: Write,
        *,
        version: str,
        has_picker: bool = True,
        notifier: Notifier | None = None,
        asks_guidance: bool = False,
    ) -> None:
        self.host = host
        self.notices = Notices(write, notifier=notifier)
        """Adds the ``notify`` lines once a hello declares ``notify``; the waiting ones go
        through ``notifier``, which records them."""
        self.write: Write = self.notices
        self.version = version
        self.has_picker = has_picker
        """The face shows a choice with toggles (a front end over ``--json``); the plain chat
        does not, so ``/models`` gives it the table as ``output``."""
        self.asks_guidance = asks_guidance
        """The face asks about guidance files at once, with no hello (the plain chat on a
        terminal)."""
        self.inbox: asyncio.Queue[str | p.StateFact | GuidanceDue | None] = asyncio.Queue()
        self.tracker = ActivityTracker()
        # The conversation's folder, not the process's: a session may live in another one.
        self.status_reader = StatusReader(host.conversation.working_directory, host.git_argv)
        self.slash = SlashCommands(self)
        self._running: str | None = None  # "turn" or "typed" while one runs
        self._ending = False
        self.save_failed = False
        """The last save of the conversation failed: the chat exits 1 (docs/store.md, "Saving and
        resuming")."""

    @property
    def running(self) -> bool:
        """Whether a turn or a typed command runs now."""
        return self._running is not None

    # -- inbound lines ---------------------------------------------------------------------

    def receive(self, line: p.Inbound | p.ChatText) -> None:
        """One inbound line, as soon as it is read."""
        match line:
            case p.ChatText(text=text) | p.Message(text=text):
                self.inbox.put_nowait(text)
            case p.Answer():
                self.host.waiters.deliver(line.id, line)
            case p.Choose():
                self.host.waiters.deliver(line.id, line)
            case p.Complete():
                self.write(self.slash.complete(line))
            case p.StateFact():
                self.inbox.put_nowait(line)  # in turn with the messages before it
            case p.Interrupt():
                self.interrupt()
            case p.ClientHello():
                self.host.on_hello(line)
                self.notices.declare(line.effects)
                if p.Effect.GUIDANCE in line.effects:
                    self.inbox.put_nowait(GuidanceDue())
            case _:
                pass

    def end_of_input(self) -> None:
        """stdin closed: a running typed command is killed; queued messages still run, then
        the loop ends as for /quit. A running turn is not stopped."""
        if self._running == "typed":
            self.host.conversation.stop()
            self.host.conversation.stop()
        self.host.waiters.withdraw_all()  # nobody can answer a dialog any more
        self.inbox.put_nowait(None)

    def terminate(self) -> None:
        """SIGTERM: end like /quit, stopping what runs."""
        if self._running is not None:
            self.interrupt()
        self._ending = True
        self.host.waiters.withdraw_all()  # a choice the loop waits on must not hold the end
        self.inbox.put_nowait(None)

    def interrupt(self) -> None:
        """Stop the running turn or typed command; a second one kills at once."""
        if self._running is None:
            return
        self.host.conversation.stop()
        stopping = self.tracker.stopping()
        if stopping is not None:
            self.write(stopping)

    # -- the loop -------------------------------------------------------------------------

    async def run(self) -> int:
        self.hello()
        conversation = self.host.conversation
        banner = f"wisp {self.version} · {conversation.model} · {len(conversation.tools)} tools"
        for text in (banner, *self.host.notes, HELP_HINT):
            self.write(p.Note(text=text))
        if self.asks_guidance:
            await self.host.guidance.settle(can_ask=True)
        while True:
            self.write(await self._status())
            text = await self.inbox.get()
            if text is None or self._ending:
                break
            # Before the first message, once: asked when a hello said the face can answer
            # (it came first), else the files waiting are left out.
            await self.host.guidance.settle(can_ask=isinstance(text, GuidanceDue))
            if not isinstance(text, GuidanceDue) and not await self.handle(text):
                break
        return self._end()

    async def handle(self, raw: str | p.StateFact) -> bool:
        """One message (or a front end's fact); False when it ends the loop."""
        if isinstance(raw, p.StateFact):
            facts = self.host.conversation.facts
            self.write(p.Note(text=state_fact(facts, raw.subject, raw.name, raw.value)))
            return True
        text = raw.strip()
        if not text:
            return True
        if text.lower() in QUIT_WORDS:
            return False
        if text.lower() in ("help", "?"):
            text = "/help"
        if text.startswith("/"):
            return await self.slash.run(text[1:])
        if text.startswith("!"):
            await self.typed(text[1:].strip())
            return True
        await self.turn(text)
        return True

    def _end(self) -> int:
        if self.save() and self.host.save_name:
            self.write(p.Note(text=f"saved '{self.host.save_name}'"))
        self.write(p.Exit())
        return 1 if self.save_failed else 0

    def save(self) -> bool:
        """Save the conversation under its name, if it has one: after every turn, so a wisp
        killed later loses no finished turn, and at the end. A failure is one ``error:`` note
        naming the file and the cause, and the chat goes on; False when it failed."""
        name = self.host.save_name
        if not name:
            return True
        try:
            self.host.save(name)
        except WispError as exc:
            self.save_failed = True
            self.write(p.Note(text=f"error: {exc}"))
            return False
        self.save_failed = False
        return True

    def hello(self) -> None:
        """The session's hello (again after /new: its session may differ)."""
        conversation = self.host.conversation
        self.write(
            p.WispHello(
                version=self.version,
                session=conversation.session,
                model=conversation.model,
                tools=conversation.tool_names,
            )
        )

    async def _status(self) -> p.Status:
        conversation = self.host.conversation
        git = await self.status_reader.read()
        sandbox, note = self.host.sandbox_state()
        return p.Status(
            model=conversation.model,
            directory=home_short(conversation.working_directory),
            branch=git.branch,
            dirty=git.dirty,
            added=git.added,
            removed=git.removed,
            approval=self.host.approval_mode(),
            context_used=self._context_used(),
            sandbox=sandbox,
            sandbox_note=note,
        )

    def _context_used(self) -> float | None:
        conversation = self.host.conversation
        window = conversation.resolved.context_size
        used = conversation.last_input_tokens
        if not window or not used:
            return None
        return round(min(used / window, 1.0), 3)

    # -- a turn -----------------------------------------------------------------------------

    async def turn(self, text: str) -> None:
        conversation = self.host.conversation
        self.write(p.Turn(phase="start", turn=conversation.turn + 1))
        self.write(self.tracker.start_turn())
        self._running = "turn"
        try:
            result = await conversation.run_turn(text)
        finally:
            self._running = None
        self.write(p.Output(text=""))
        if result.cut is not None:
            self.write(p.Note(text=cut_note(result.cut)))
        if result.outcome == "error":
            self.write(p.Note(text=f"error: {result.error}"))
        self.save()  # before the end line: once a front end sees it, the turn is on disk
        self.write(self.tracker.end())
        self.write(_turn_end(result))
        if result.facts:
            self.write(p.Note(text=facts_note(result.facts)))

    def on_agent_event(self, event: AgentEvent) -> None:
        """The session's one stream: the reply's fragments, and every event it records."""
        match event:
            case TextFragment(text=text):
                if self._running == "turn" and (writing := self.tracker.on_text()) is not None:
                    self.write(writing)
                self.write(p.Delta(text=text))
            case ContextFill(tokens=tokens, window=window):
                self.write(p.ContextFill(tokens=tokens, window=window, used=event.used))
            case AuditEvent():
                self._recorded(event)

    async def typed(self, line: str) -> None:
        if not line:
            self.write(p.Note(text="nothing to run: type a command after !, as in ! git status"))
            return
        self.write(self.tracker.start_typed(line))
        self._running = "typed"
        try:
            await self.host.run_typed(line)
        finally:
            self._running = None
        self.save()  # the command is an entry of the conversation already
        self.write(self.tracker.end())

    # -- recorded events ------------------------------------------------------------------

    def _recorded(self, event: AuditEvent) -> None:
        """A recorded event: the activity it changes, then its line. Its details are encoded
        for the line here, at the protocol's edge; the words come from the typed value."""
        details = event.details
        if self._running is not None:
            changed = self.tracker.on_event(details)
            if changed is not None:
                self.write(changed)
        line = p.Event(
            kind=event.kind,
            call=event.call,
            turn=event.turn,
            details=msgspec.to_builtins(details),
            text=event_text(details, event.call),
        )
        output = event_output(details, event.id)
        if output is not None:
            line.output = output
        self.write(line)

    def _activity(self, activity: p.Activity) -> None:
        self.write(activity)


def _turn_end(result: TurnResult) -> p.Turn:
    end = p.Turn(
        phase="end", turn=result.turn, seconds=round(result.seconds, 3), outcome=result.outcome
    )
    usage = result.usage
    if usage is not None and (usage.input or usage.output):
        end.input_tokens = usage.input
        end.output_tokens = usage.output
    if result.ran:
        end.ran = result.ran
    if result.cited:
        end.cited = result.cited
    if result.verification:
        end.verification = result.verification
    if result.killed:
        end.killed = True
    if result.facts:
        end.facts = [_turn_fact(fact) for fact in result.facts]
    return end


def _turn_fact(fact: Fact) -> p.TurnFact:
    return p.TurnFact(
        id=fact.id, scope=fact.scope, subject=fact.subject, name=fact.name, value=fact.value,
        source=fact.source, proposed=is_proposal(fact),
    )  # fmt: skip


FACTS_NAMED, FACT_VALUE_CHARACTERS = 3, 60
"""The facts note names at most three, each value cut to 60 characters."""


def facts_note(facts: list[Fact]) -> str:
    """``2 new facts: c3 db port = 5433 (model), c4 …``: what a turn recorded, after its end."""
    named = []
    for fact in facts[:FACTS_NAMED]:
        value = fact.value
        if len(value) > FACT_VALUE_CHARACTERS:
            value = value[: FACT_VALUE_CHARACTERS - 1] + "…"
        said = f"{fact.source}, proposed permanent" if is_proposal(fact) else fact.source
        named.append(f"{fact.id} {fact.subject} {fact.name} = {value} ({said})")
    more = f", and {len(facts) - FACTS_NAMED} more" if len(facts) > FACTS_NAMED else ""
    noun = "fact" if len(facts) == 1 else "facts"
    note = f"{len(facts)} new {noun}: {', '.join(named)}{more}"
    if any(is_proposal(fact) for fact in facts):
        note += "; /facts keep ID keeps a proposed one for every conversation, drop ID declines"
    return note


def home_short(path: str | Path) -> str:
    """A path with the home folder written ``~``, as the status line and dialogs show it."""
    home = os.path.expanduser("~")
    text = str(path)
    if text == home or text.startswith(home + os.sep):
        return "~" + text[len(home) :]
    return text
