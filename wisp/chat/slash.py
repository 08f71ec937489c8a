"""Slash commands over the protocol, and completions for them."""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from wisp import protocol as p
from wisp.agent.types import capability_words
from wisp.chat.bridge import Withdrawn, new_id
from wisp.chat.context_views import context_answer
from wisp.chat.fact_command import fact_command
from wisp.chat.host import SlashLoop, Write
from wisp.desk.fact import answer_by_hand
from wisp.store import Entry

HELP = [
    ("/help", "these commands"),
    ("!COMMAND", "run a command yourself: the deny list and the sandbox apply, no approval"),
    ("/tools", "the tools the model can call"),
    ("/show [N|ID]", "entry N or an event id (4+ characters) whole; alone: the last output"),
    ("/last", "the last tool output, whole"),
    ("/inspect [status|config|approvals|audit]", "wisp's state, as the inspect tool shows it"),
    ("/inspect context [next|turns|N]", "what the next request carries (alone: saved to files)"),
    ("/model [NAME]", "the model; with a name, switch to it (the transcript continues)"),
    ("/models", "the model in use and how to change it"),
    ("/new", "a fresh conversation with the same instructions and tools"),
    ("/save NAME", "save the transcript now, and again after every turn"),
    ("/fact [SUBJECT NAME = VALUE]", "the facts every request carries; with one, state it"),
    ("/fact delete ID", "a fact left out of requests from now on (kept in the log)"),
    ("/fact ID permanent|session|thread", "move a fact (permanent: every conversation's)"),
    ("/facts keep|drop ID", "answer a fact proposed to keep for good (here, or by wisp mcp)"),
    ("/quit", "end the chat (also exit, quit, q, or Ctrl-D)"),
]  # fmt: skip
COMMANDS = sorted(
    {"help", "tools", "show", "last", "inspect", "model", "models", "new", "save", "fact",
     "quit", "exit", "q", "?"}
)  # fmt: skip
INSPECT_VIEWS = ("context", "status", "config", "approvals", "audit")
CONTEXT_WORDS = ("next", "turns")
MODEL_COLUMNS = ("MODEL", "CONTEXT", "ENABLED", "CAPABILITIES")
CHANGE_MODELS = "/models enable|disable NAME… turns models on or off; /model NAME switches to one"
"""The note under the /models table, where no picker can be shown (the plain chat)."""


class SlashCommands:
    """Runs ``/word argument`` for a chat loop; answers with output, note and view lines."""

    def __init__(self, loop: SlashLoop) -> None:
        self.loop = loop

    @property
    def write(self) -> Write:
        return self.loop.write

    def output(self, text: str) -> None:
        self.write(p.Output(text=text))

    def note(self, text: str) -> None:
        self.write(p.Note(text=text))

    async def run(self, text: str) -> bool:
        """One slash command; False when it ends the loop."""
        word, _, argument = text.strip().partition(" ")
        argument = argument.strip()
        match word.lower():
            case "quit" | "exit" | "q":
                return False
            case "help" | "?":
                width = max(len(usage) for usage, _ in HELP)
                self.output("\n".join(f"{usage:<{width}}  {what}" for usage, what in HELP))
            case "tools":
                self.tools()
            case "show":
                self.show(argument)
            case "last":
                self.show("")
            case "inspect":
                await self.inspect(argument)
            case "model":
                await self.model(argument)
            case "models":
                await self.models(argument)
            case "new":
                self.loop.host.new_conversation()
                self.loop.hello()
                self.note("new conversation")
            case "save":
                self.save(argument)
            case "fact" | "facts":
                self.facts(argument)
            case _:
                self.note(f"unknown command /{word}; /help lists commands")
        return True

    def facts(self, argument: str) -> None:
        """``/fact`` and ``/facts``; a filed proposal is answered on the desk (``via: chat``)."""
        conversation = self.loop.host.conversation

        def desk(request_id: str, decision: str) -> str:
            record = conversation.recorder.record
            return answer_by_hand(
                conversation.home, request_id, decision, via="chat", record=record
            )

        kind, said = fact_command(conversation.facts, argument, desk)
        if kind == "output":
            self.output(said)
        else:
            self.note(said)

    def tools(self) -> None:
        tools = self.loop.host.conversation.tools
        if not tools:
            self.output("no tools in this conversation")
            return
        width = max(len(tool.name) for tool in tools)
        for tool in tools:
            first = tool.description.split(". ")[0].rstrip(".")
            self.output(f"{tool.name:<{width}}  {first}")

    def show(self, argument: str) -> None:
        store = self.loop.host.conversation.store
        entry = _entry(store.entries, argument)
        if entry is None:
            if not argument:
                self.note("no tool has run yet")
            else:
                self.note(f"no tool output {argument}")
            return
        self.output(entry.text)

    async def inspect(self, argument: str) -> None:
        view, _, rest = argument.partition(" ")
        view = view or "status"
        if view == "context":
            self.write(context_answer(self.loop.host.conversation, rest))
            return
        if view not in INSPECT_VIEWS:
            self.note(f"usage: /inspect [{'|'.join(INSPECT_VIEWS)}]")
            return
        self.output(await self.loop.host.inspect(view))

    async def model(self, name: str) -> None:
        host = self.loop.host
        if not name:
            resolved = host.conversation.resolved
            capabilities = ", ".join(capability_words(resolved.capabilities))
            self.output(f"model: {host.conversation.model} ({capabilities})")
            return
        try:
            notes = await host.switch_model(name)
        except Exception as exc:  # a model that cannot be used: said, and the chat goes on
            self.note(f"error: {exc}")
            return
        for text in notes:
            self.note(text)
        self.note(f"model: {host.conversation.model}; the transcript continues")

    async def models(self, argument: str) -> None:
        """/models: a choice with toggles (the picker), or the table where no picker can be
        shown; /models enable|disable|check NAME…."""
        host = self.loop.host
        verb, _, names = argument.partition(" ")
        if verb == "check" and names.split():
            for name in names.split():
                await host.models.check(name, self.note)
            return
        if verb in ("enable", "disable") and names.split():
            notes = await host.models.toggle(verb, names.split())
            for text in notes or ["models unchanged"]:
                self.note(text)
            return
        if argument:
            self.note(
                f"unknown /models argument '{verb}'; /models, or /models enable|disable|check NAME…"
            )
            return
        rows, unreachable = await host.models.rows()
        for text in unreachable:
            self.note(text)
        if not self.loop.has_picker:
            self.output("\n".join(models_table(rows, host.conversation.model)))
            self.note(CHANGE_MODELS)
            return
        await self.picker(rows)

    async def picker(self, rows: list[Any]) -> None:
        """The choice with toggles; its answer enables, disables and maybe switches models."""
        host = self.loop.host
        options = [
            p.ChoiceOption(
                value=row.selection, label=row.selection, detail=row.runtime, on=row.enabled,
                cells=[row.selection, row.context, row.capabilities],
            )
            for row in rows
        ]  # fmt: skip
        key = new_id()
        self.write(
            p.Choice(
                id=key,
                title="Models: space turns one on or off, Enter saves",
                options=options,
                current=host.conversation.model,
                toggles=True,
                columns=[
                    p.ChoiceColumn(heading="MODEL", drop=0),
                    p.ChoiceColumn(heading="CONTEXT", drop=1),
                    p.ChoiceColumn(heading="CAPABILITIES", drop=0),
                ],
            )
        )
        try:
            answer = await host.waiters.wait(key)
        except Withdrawn:
            self.write(p.Withdrawn(id=key))
            return
        values = getattr(answer, "values", UNSET)
        if not isinstance(values, list):
            self.note("models unchanged")  # no values, nothing changes
            return
        listed = {row.selection for row in rows}
        off = listed - set(values)
        notes = await host.models.set_off(off, listed)
        for text in notes or ["models unchanged"]:
            self.note(text)
        use = getattr(answer, "value", None)
        if use and use != host.conversation.model:
            if use in values:
                await self.model(use)  # the picker's `u`: switch, as `/model NAME` does
            else:
                self.note(f"error: {use} is turned off, so it cannot be the model in use")

    def save(self, name: str) -> None:
        if not name:
            self.note("usage: /save <name>")
            return
        try:
            self.loop.host.save(name)
        except Exception as exc:
            self.note(f"error: {exc}")
            return
        self.loop.host.save_name = name
        self.note(f"saved '{name}'")

    def complete(self, request: p.Complete) -> p.Completions:
        """Command names for a line that starts with ``/``; views after ``/inspect``."""
        cursor = request.cursor if isinstance(request.cursor, int) else len(request.text)
        text = request.text[:cursor]
        if not text.startswith("/"):
            return p.Completions(id=request.id, from_=cursor, candidates=[])
        if " " not in text:
            candidates = [f"/{name}" for name in COMMANDS if f"/{name}".startswith(text)]
            return p.Completions(id=request.id, from_=0, candidates=sorted(set(candidates)))
        word, _, rest = text.partition(" ")
        start = len(word) + 1
        if word == "/inspect" and rest.startswith("context "):
            start += len("context ")
            words = [w for w in CONTEXT_WORDS if w.startswith(rest.removeprefix("context "))]
            return p.Completions(id=request.id, from_=start, candidates=words)
        if word == "/inspect":
            options = [view for view in INSPECT_VIEWS if view.startswith(rest)]
            return p.Completions(id=request.id, from_=start, candidates=options)
        return p.Completions(id=request.id, from_=cursor, candidates=[])


def models_table(rows: list[Any], in_use: str) -> list[str]:
    """/models as a table: headings, then a model per line, ``*`` on the one in use, in the
    order and with the headings ``wisp models`` uses."""
    table = [list(MODEL_COLUMNS)]
    for row in rows:
        mark = "* " if row.selection == in_use else "  "
        enabled = "yes" if row.enabled else "no"
        table.append([mark + row.selection, row.context, enabled, row.capabilities])
    widths = [max(len(line[column]) for line in table) for column in range(len(MODEL_COLUMNS))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in table
    ]


def _entry(entries: list[Entry], argument: str) -> Entry | None:
    argument = argument.strip().removeprefix("entry").strip().lstrip("#")
    if not argument:
        outputs = [entry for entry in entries if entry.kind == "toolOutput"]
        return outputs[-1] if outputs else None
    if argument.isdigit():
        number = int(argument)
        return entries[number - 1] if 1 <= number <= len(entries) else None
    if len(argument) >= 4:
        for entry in reversed(entries):
            if any(source.event.startswith(argument) for source in entry.sources):
                return entry
    return None
