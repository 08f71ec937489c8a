"""One conversation's turns: prompt → streamed request → tools → … → reply.

``Conversation`` is handed its model, tools, store and recorder; it imports none of them. A
turn streams the reply's fragments to the face through ``emit``; every fact it records (the
calls, results, verdicts, reasoning) reaches the same face through the recorder, as the typed
Details the audit log writes. A turn ends with a ``TurnResult`` carrying the lines under the
reply, computed from the store and the turn's recorded trail.

``Conversation`` keeps the turn: its steps, its stop, its endings. It hands the rest to rooms of
their own: what requests carry is sized and condensed by ``ContextPlanner``
(``condensing.py``), each request's reply is read by ``stream_reply`` (``streaming.py``), and
the lines under a reply are checked by ``ReplyChecks`` (``reply_checks.py``), and the model is
asked once more for an answer by ``asking_again.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from wisp.agent.asking_again import (
    CUT_NUDGE,
    CUT_UNSEEN,
    answer_after_silence,
    answer_request,
    answer_that_answers,
)
from wisp.agent.assessment import Assessor, Choice, Router
from wisp.agent.audited import AuditedTools, new_call_id
from wisp.agent.compose import append_entry
from wisp.agent.condensing import ContextPlanner
from wisp.agent.context import ContextMeter, ContextSettings
from wisp.agent.cuts import cut_turn
from wisp.agent.distilling import Distiller
from wisp.agent.events import Emit, TextFragment, TurnResult
from wisp.agent.facts import ConversationFacts
from wisp.agent.prompt import tool_specs
from wisp.agent.recorder import Recorder
from wisp.agent.reply_checks import ReplyChecks
from wisp.agent.side_calls import SideCalls
from wisp.agent.streaming import stream_reply
from wisp.agent.turn_state import Reply, TurnState, utc_now
from wisp.agent.types import (
    ChatRequest,
    ContextOverflow,
    LateTools,
    Message,
    ModelError,
    ResolvedModel,
    Tool,
    ToolCall,
    ToolCallRequested,
)
from wisp.audit.kinds import Error, Prompt, Response, ToolsWithdrawn, TurnStopped
from wisp.audit.kinds import Usage as UsageDetails
from wisp.facts.book import FactBook
from wisp.facts.shared import SharedFacts
from wisp.store import ConversationStore, PendingEntry, Source, ToolOutputValue

DEFAULT_MAX_STEPS = 25
COMMAND_STOP_GRACE = 5.0  # SIGTERM, SIGKILL 2 s later, and the pipes drained
MIN_BUDGET, MAX_BUDGET = 4 * 1024, 64 * 1024
LOOP_NUDGE = "You called {} again with the same arguments. No more tools in this turn."
"""The opening of the one request after a call repeated straight after its result, no tools
offered (``answer_request``)."""
LOOPED = (
    "the model kept calling {} with the same arguments and gave no answer (tools were "
    "withdrawn once it repeated the call)"
)
STILL_TOO_BIG = (
    "the conversation does not fit the model's window even after condensing it ({}): start "
    "afresh with /new, give the model a bigger window (its contextLength setting, or the "
    "server's own), or choose a model with a larger context"
)


def output_budget(context_size: int | None) -> int:
    """B: an eighth of the window at 4 bytes a token, within [4 KiB, 64 KiB]."""
    if not context_size:
        return MIN_BUDGET
    return max(MIN_BUDGET, min(MAX_BUDGET, context_size // 8 * 4))


class Conversation:
    """A conversation with one model over one store. Also the ``ConversationView`` tools read."""

    def __init__(
        self,
        *,
        model: ResolvedModel,
        tools: list[Tool],
        store: ConversationStore,
        recorder: Recorder,
        instructions: str,
        home: Path,
        config: Any,
        working_directory: Path,
        audit_file: Path | None,
        max_steps: int = DEFAULT_MAX_STEPS,
        memory: bool = False,
        max_reply_tokens: int = 0,
        context: ContextSettings | None = None,
        assessment: bool | str = False,
        router: Router | None = None,
        facts: FactBook | None = None,
        facts_enabled: bool = True,
        shared_facts: SharedFacts | None = None,
        late_tools: LateTools | None = None,
    ) -> None:
        self.resolved = model
        self.tools = tools
        self.late_tools = late_tools
        """Tools still to join, at the first turn (the MCP servers' as they start)."""
        self.store = store
        self.recorder = recorder
        self.instructions = instructions
        self.home = home
        self.config = config
        self.working_directory = working_directory
        self.audit_file = audit_file
        self.max_steps = max_steps
        self.max_reply_tokens = max_reply_tokens
        """``agent.maxReplyTokens``: 0 sizes a reply's cap by the window."""
        self.memory = memory
        self.meter = ContextMeter(store, memory=memory, settings=context)
        """Sizes what requests carry, for condensing and the context meter."""
        self.planner = ContextPlanner(self)
        """Plans and condenses what requests carry (docs/turn.md, "Long conversations")."""
        self.assessment = assessment
        """``assessment.enabled``: choose each turn's tools (true, false, or auto: on a small
        window)."""
        self.assessor = Assessor(recorder, router)
        """Chooses the tools a turn offers (docs/turn.md, "The assessment per request")."""
        self.checks = ReplyChecks(self)
        """Links a stored turn's calls to its trail; the lines under a reply."""
        self.facts = ConversationFacts(
            facts if facts is not None else FactBook(),
            recorder,
            lambda: self.resolved.context_size,
            enabled=facts_enabled,
            shared=shared_facts,
        )
        """What this conversation knows beyond its window; the facts in force go with every
        request (``messages``)."""
        self.side_calls = SideCalls(recorder, router, lambda: self.resolved)
        """Calls to a routed model of wisp's own accord, outside the conversation (the memory
        tool's ``summarise`` and ``condense`` too)."""
        self.distiller = Distiller(
            self.side_calls,
            recorder,
            self.facts,
            lambda: self.resolved.context_size,
            batch=self.meter.settings.summary_batch,
        )
        """What a condensation keeps of the turns it drops: facts, and the running summary
        (docs/turn.md, "Distillation", "The running summary")."""
        self.summary = self.distiller.summary
        """The running summary of the dropped turns, as ``memory`` recalls it."""
        self.turn = 0
        self._audited = AuditedTools(tools, recorder, home / "output", memory=memory)
        self._call_ids: set[str] = set()
        self.stop_requested = asyncio.Event()
        """Set by the first Ctrl-C or interrupt of a turn; a running command watches it."""
        self.kill_requested = asyncio.Event()
        """Set by a second one within the turn: what still runs is killed at once."""
        self._commands_running = 0
        """Commands the turn has running; a stop lets them end (SIGTERM, SIGKILL) first."""
        self.last_input_tokens: int | None = None
        """The last request's prompt tokens, as the runtime reported them (context used)."""
        self.sandbox_mechanism: str | None = None
        """How commands are confined (Landlock ABI, network), for ``inspect status``."""

    # -- the ConversationView tools read ------------------------------------------------

    @property
    def session(self) -> str:
        return self.recorder.session

    @property
    def model(self) -> str:
        return self.resolved.selection

    @property
    def tool_names(self) -> list[str]:
        return [tool.name for tool in self.tools]

    @contextlib.contextmanager
    def running_command(self) -> Iterator[None]:
        """Held while a command runs (the model's or the person's): a stop waits for it to end
        (SIGTERM, then SIGKILL) before the turn does."""
        self._commands_running += 1
        try:
            yield
        finally:
            self._commands_running -= 1

    # -- turns ----------------------------------------------------------------------------

    def add_typed_command(self, notice: str, event_id: str) -> int:
        """Store a command the person typed (``!cmd``) between turns: the next turn's first
        request carries it. Returns its entry number."""
        source = Source(session=self.session, turn=self.turn + 1, event=event_id)
        entry = self.store.add(
            PendingEntry("command", notice, (source,)), turn=self.turn + 1, time=utc_now()
        )
        return entry.id

    def stop(self) -> None:
        """Stop the running turn (Ctrl-C, or an interrupt line); a second stop kills what still
        runs at once. Safe when idle. See docs/turn.md, "Stopping a turn"."""
        if self.stop_requested.is_set():
            self.kill_requested.set()
        self.stop_requested.set()

    def subscribe(self, emit: Emit) -> contextlib.AbstractContextManager[None]:
        """``with conversation.subscribe(emit):`` the face's one wire: while the block runs,
        the turn's fragments and window fill and every event recorded go to ``emit``. The
        subscription is the recorder's, so it holds for the conversations that follow on it
        (``/model``, ``/new``)."""
        return self.recorder.subscribe(emit)

    async def run_turn(self, prompt: str, *, schema: dict[str, Any] | None = None) -> TurnResult:
        """Run one turn to its end: a reply, an error, or a stop; what happens goes to the face
        subscribed (``subscribe``). ``schema``: the JSON Schema the reply must match, sent
        with the turn's requests that offer no tools (the caller sends it only to a model with
        ``guidedGeneration``, and validates the reply)."""
        emit: Emit = self.recorder.show
        self.turn += 1
        self.recorder.audit.turn = self.turn
        self.stop_requested.clear()
        self.kill_requested.clear()
        self._audited.new_turn()
        turn = TurnState(self.turn, time.monotonic(), schema=schema)
        prompt_event = self.recorder.record(Prompt(text=prompt))
        turn.pending.append(
            PendingEntry("prompt", prompt, (self._source(prompt_event),), utc_now())
        )
        self.planner.reference_outputs()
        body = asyncio.create_task(self._run(turn, emit))
        stopped = asyncio.create_task(self.stop_requested.wait())
        try:
            await asyncio.wait({body, stopped}, return_when=asyncio.FIRST_COMPLETED)
            if not body.done() and self._commands_running:
                # A running command is stopped by its runner (SIGTERM, then SIGKILL), which
                # records its outcome; the turn ends after it.
                await asyncio.wait({body}, timeout=COMMAND_STOP_GRACE)
        finally:
            stopped.cancel()
            if not body.done():
                body.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await body
        if body.cancelled():
            return self._stopped(turn)
        return body.result()

    async def _run(self, turn: TurnState, emit: Emit) -> TurnResult:
        try:
            text = await self._loop(turn, emit)
        except ModelError as exc:
            return self._failed(turn, str(exc))
        return self._succeeded(turn, text)

    async def _loop(self, turn: TurnState, emit: Emit) -> str:
        if self.late_tools is not None:
            arrived, self.late_tools = await self.late_tools.arrived(), None
            self.tools.extend(arrived)
            self._audited.adopt(arrived)
        specs = tool_specs(self.tools, self.resolved.context_size)  # the same for every request
        budget = output_budget(self.resolved.context_size)

        prompt = turn.pending[0]  # the turn's first entry
        choice = await self.assessor.choose(
            str(prompt.value), specs, self.resolved, enabled=self.assessment,
            facts=self.facts.carried_ids(),
        )  # fmt: skip

        def next_request() -> ChatRequest:  # composed when sent, after any condensing
            if turn.looped is not None:  # the tools withdrawn: one request for the answer
                return answer_request(self, turn, LOOP_NUDGE.format(turn.looped))
            return _next_request(turn, self.messages(turn.pending), choice)

        for _ in range(self.max_steps):
            reply = await self.send(turn, next_request, emit)
            if _missed(reply, choice):  # a call of a tool not offered: again, with every tool
                choice = self.assessor.retry(choice, specs)
                continue
            turn.reminder = None  # sent with that one request only
            if not reply.calls:
                if reply.text.strip():
                    if (reminder := self.checks.reminder(turn, reply.text)) is not None:
                        turn.reminder = reminder
                        emit(TextFragment("\n\n"))
                        continue
                    return await answer_that_answers(self, turn, emit, reply.text)
                if turn.cut is not None:  # it ran away in text held as a possible call
                    why, turn.cut = turn.cut, None
                    failure = CUT_UNSEEN.format(why)
                    return await answer_after_silence(self, turn, emit, CUT_NUDGE, failure)
                return await answer_after_silence(self, turn, emit)
            if turn.looped is not None:
                raise ModelError(LOOPED.format(turn.looped))
            if reply.text:
                turn.pending.append(PendingEntry("response", reply.text))
            calls = [
                ToolCall(new_call_id(self._call_ids), c.name, c.arguments) for c in reply.calls
            ]
            turn.calls.update((call.id, call) for call in calls)
            turn.unparsed.update(_unparsed(calls, reply.calls))
            turn.pending.append(PendingEntry("toolCalls", calls))
            for index, call in enumerate(calls):
                if turn.looped is not None:
                    # The tools were withdrawn by an earlier call of this reply: the rest are
                    # never run, nor kept (every kept call has its output).
                    for skipped in calls[index:]:
                        del turn.calls[skipped.id]
                    del calls[index:]
                    break
                await self._call(turn, call, budget)
                if self.stop_requested.is_set():
                    raise asyncio.CancelledError  # the turn ends after the stopped call
        raise ModelError(
            f"the model made {self.max_steps} requests without a final reply; "
            "the turn was stopped there"
        )

    def earlier_question(self) -> str | None:
        """The person's last message before this turn, if the conversation keeps one: what a
        request for the answer that stands alone gives for "it" to point to."""
        for message in reversed(self.meter.stored().messages):
            if message.role == "user":
                return message.content
        return None

    def messages(self, running: list[PendingEntry]) -> list[Message]:
        """The messages of the next request: the instructions, the live entries (kept between
        requests) led by the running summary when there is one, then the running turn's, its
        prompt led by the facts in force."""
        messages = [Message(role="system", content=self.instructions)]
        messages += self.distiller.summary.carried(self.meter.stored().messages)
        first_running = len(messages)
        for pending in running:
            append_entry(messages, pending.kind, pending.value, None)
        if len(messages) > first_running and messages[first_running].role == "user":
            messages[first_running] = self.facts.lead(messages[first_running])
        return messages

    async def send(self, turn: TurnState, make: Callable[[], ChatRequest], emit: Emit) -> Reply:
        """One request, condensed first when due. An overflow is condensed from the runtime's
        own count and asked once more; a second one in the turn fails it, saying what to do."""
        await self.planner.condense(turn, emit, self.planner.plan_before(turn))
        request = make()
        try:
            return await stream_reply(self, turn, request, emit, self._source)
        except ContextOverflow as overflow:
            if turn.overflowed:
                raise ModelError(STILL_TOO_BIG.format(_overflow_counts(overflow))) from overflow
            turn.overflowed = True
            plan = self.planner.plan_after(turn, overflow, request)
            await self.planner.condense(turn, emit, plan)
            if not plan.drop:  # nothing earlier to drop: the same request would fail again
                raise ModelError(STILL_TOO_BIG.format(_overflow_counts(overflow))) from overflow
        return await self.send(turn, make, emit)

    async def _call(self, turn: TurnState, call: ToolCall, budget: int) -> None:
        done = await self._audited.run(
            call,
            conversation=self,
            working_directory=self.working_directory,
            budget=budget,
            unparsed=turn.unparsed.get(call.id),
        )
        sources = [self._source(done.call_event)]
        if done.result_event:
            sources = [self._source(done.result_event)]
        value = ToolOutputValue(call.id, call.name, done.output)
        turn.pending.append(PendingEntry("toolOutput", value, tuple(sources), utc_now()))
        turn.answered.add(call.id)
        turn.call_events[call.id] = done.call_event
        made = f"{call.name} {json.dumps(call.arguments, sort_keys=True)}"
        in_a_row, turn.last_call = made == turn.last_call, made
        # A call made again straight after its result came back adds nothing: the model is
        # looping (Qwen2.5-Coder-0.5B reads the same file until stopped). A repeat with other
        # calls between (a test run after an edit) may be worth it, twice.
        if (done.repeat >= 3 or in_a_row) and turn.looped is None:
            turn.looped = call.name
            withdrawn = ToolsWithdrawn(tool=call.name, arguments=call.arguments, repeat=done.repeat)
            self.recorder.record(withdrawn, call=call.id)

    # -- endings ----------------------------------------------------------------------------

    def _succeeded(self, turn: TurnState, text: str) -> TurnResult:
        seconds = time.monotonic() - turn.started
        response = Response(text=text, condensed=turn.condensed, seconds=round(seconds, 3))
        if turn.usage is not None:
            u = turn.usage
            response.usage = UsageDetails(
                input=u.input, output=u.output, cached=u.cached, reasoning=u.reasoning
            )
        event = self.recorder.record(response)
        turn.pending.append(PendingEntry("response", text, (self._source(event),)))
        result = self._store(turn, "ok", seconds)
        cut_turn(self.store, turn.number, self.recorder.record)  # before the lines under it
        result.text = text
        result.cut = turn.cut
        self.checks.check(result, text)
        return result

    def _failed(self, turn: TurnState, message: str) -> TurnResult:
        self.recorder.record(Error(message=message, context="turn"))
        result = self._store(turn, "error", time.monotonic() - turn.started)
        result.error = message
        return result

    def _stopped(self, turn: TurnState) -> TurnResult:
        seconds = time.monotonic() - turn.started
        killed = self.kill_requested.is_set()
        self.recorder.record(TurnStopped(seconds=round(seconds, 3), killed=killed))
        # Calls that never started are dropped, so every stored call has its output.
        kept: list[PendingEntry] = []
        for entry in turn.pending:
            if entry.kind == "toolCalls":
                calls = [c for c in entry.value if c.id in turn.answered]  # type: ignore[attr-defined]
                if not calls:
                    continue
                entry = PendingEntry("toolCalls", calls, entry.sources, entry.time)
            kept.append(entry)
        turn.pending = kept
        result = self._store(turn, "stopped", seconds)
        result.killed = killed
        return result

    def _store(self, turn: TurnState, outcome: str, seconds: float) -> TurnResult:
        self.checks.link_calls(turn, self._source)
        self.store.add_turn(turn.pending, turn=turn.number, time=utc_now())
        return TurnResult(
            turn=turn.number,
            outcome=outcome,  # type: ignore[arg-type]
            seconds=seconds,
            usage=turn.usage,
            facts=self.facts.settle(),  # what the model noted in the turn, now that it ended
        )

    def _source(self, event_id: str) -> Source:
        return Source(session=self.session, turn=self.turn, event=event_id)


def _overflow_counts(overflow: ContextOverflow) -> str:
    if overflow.tokens and overflow.window:
        return f"{overflow.tokens:,} of {overflow.window:,} tokens"
    return str(overflow)


def _unparsed(calls: list[ToolCall], written: list[ToolCallRequested]) -> dict[str, str]:
    """Each failed call's arguments as written, when they did not parse, by its call id."""
    return {c.id: w.unparsed for c, w in zip(calls, written, strict=True) if w.unparsed is not None}


def _next_request(turn: TurnState, messages: list[Message], choice: Choice) -> ChatRequest:
    """The turn's next request: the tools chosen for it offered (the rest withheld, so that a
    call to one is read as a call and retried), and the reminder, if any, last."""
    specs, withheld = choice.offered, choice.withheld
    if turn.reminder is not None:
        messages.append(Message(role="user", content=turn.reminder))
    schema = None if specs else turn.schema
    turn.offered = specs
    return ChatRequest(messages, specs, withheld=withheld, schema=schema)


def _missed(reply: Reply, choice: Choice) -> bool:
    """Whether the reply calls a tool the assessment withheld, before any retry."""
    withheld = {spec.name for spec in choice.withheld}
    return not choice.retried and any(call.name in withheld for call in reply.calls)
