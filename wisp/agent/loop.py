"""One conversation's turns: prompt → streamed request → tools → … → reply.

``Conversation`` is handed its model, tools, store and recorder; it imports none of them. A
turn streams the reply's fragments to the face through ``emit``; every fact it records (the
calls, results, verdicts, reasoning) reaches the same face through the recorder, as the typed
Details the audit log writes. A turn ends with a ``TurnResult`` carrying the lines under the
reply, computed from the store and the turn's recorded trail.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from wisp.agent import checks
from wisp.agent.audited import AuditedTools, new_call_id
from wisp.agent.compose import append_entry
from wisp.agent.context import ContextMeter, ContextSettings, Plan
from wisp.agent.context_report import save_context
from wisp.agent.events import ContextFill, Emit, TextFragment, TurnResult
from wisp.agent.prompt import tool_specs
from wisp.agent.recorder import Recorder
from wisp.agent.runaway import RunawayGuard, reply_cap
from wisp.agent.text import utf8_len
from wisp.agent.types import (
    ChatRequest,
    ContextOverflow,
    HeldText,
    Message,
    ModelError,
    ResolvedModel,
    TextDelta,
    ThinkingDelta,
    Tool,
    ToolCall,
    ToolCallRequested,
    Usage,
    UsageReport,
)
from wisp.audit.kinds import (
    ContextCondensation,
    ContextReference,
    Error,
    ModelReasoning,
    Prompt,
    Response,
    ToolsWithdrawn,
    TurnStopped,
)
from wisp.audit.kinds import Usage as UsageDetails
from wisp.store import ConversationStore, PendingEntry, Source, ToolOutputValue

DEFAULT_MAX_STEPS = 25
COMMAND_STOP_GRACE = 5.0  # SIGTERM, SIGKILL 2 s later, and the pipes drained
MIN_BUDGET, MAX_BUDGET = 4 * 1024, 64 * 1024
EMPTY_REPLY_NUDGE = (
    "Your reply was empty. Answer my last message now, in plain text, from what you already "
    "know and the results above."
)
"""Sent (not stored) when a reply ends with nothing, for the one request asked again."""
NO_ANSWER = "the model gave no answer (its reply was empty, and again when asked once more)"
CUT_NUDGE = (
    "Your reply ran on without end and was cut off. Answer my last message now, in plain "
    "text, from what you already know and the results above."
)
"""Sent (not stored) when a reply was cut before any of it was shown, for the one request
asked again."""
CUT_UNSEEN = (
    "the model's reply was cut before any of it could be shown ({}): it was writing something "
    "that looked like a tool call and never finished it, and gave no answer when asked once more"
)
LOOP_NUDGE = (
    "You called {} with the same arguments three times. No more tools in this turn: answer my "
    "last message now, in plain text, from the results you have."
)
"""Sent (not stored) with the one request after a call's third repeat, no tools offered."""
LOOPED = (
    "the model kept calling {} with the same arguments and gave no answer (tools were "
    "withdrawn after the third identical call)"
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


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Turn(msgspec.Struct):
    """The running turn's state; kept apart so a stopped turn can still be stored."""

    number: int
    started: float
    pending: list[PendingEntry] = msgspec.field(default_factory=list)
    usage: Usage | None = None
    calls: dict[str, ToolCall] = msgspec.field(default_factory=dict)
    answered: set[str] = msgspec.field(default_factory=set)
    call_events: dict[str, str] = msgspec.field(default_factory=dict)
    """Each call's ``tool.call`` event id, as ``AuditedTools.run`` returned it."""
    cut: str | None = None
    """Why the reply was cut short (it kept repeating itself, or ran past its cap)."""
    looped: str | None = None
    """The tool the model called a third time with the same arguments: no more tools this
    turn, and one request for the answer."""
    headroom: int | None = None
    """What the turn is expected to take besides its prompt, set at its first request."""
    condensed: bool = False
    overflowed: bool = False
    """A request of this turn overflowed the window once; a second overflow fails it."""
    floor_noted: bool = False
    schema: dict[str, Any] | None = None
    """The JSON Schema a reply is held to, on the requests that offer no tools."""


class _Reply(msgspec.Struct):
    """What one request streamed back."""

    text: str = ""
    calls: list[ToolCallRequested] = msgspec.field(default_factory=list)


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
    ) -> None:
        self.resolved = model
        self.tools = tools
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
        self._scanned = 0
        self._condensations = 0
        self._fixed: tuple[int | None, int] | None = None
        """Condensations this session, to name their saved contexts apart."""
        """Entries before this index were looked at for references already."""
        self.turn = 0
        self._audited = AuditedTools(tools, recorder, home / "output", memory=memory)
        self._call_ids: set[str] = set()
        self.stop_requested = asyncio.Event()
        """Set by the first Ctrl-C or interrupt of a turn; a running command watches it."""
        self.kill_requested = asyncio.Event()
        """Set by a second one within the turn: what still runs is killed at once."""
        self._commands_running = 0
        self.last_input_tokens: int | None = None
        """The last request's prompt tokens, as the runtime reported them (context used)."""
        self.sandbox_mechanism: str | None = None
        """How commands are confined (Landlock ABI, network), for ``inspect status``."""
        """Commands the turn has running; a stop lets them end (SIGTERM, SIGKILL) first."""

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
        turn = _Turn(self.turn, time.monotonic(), schema=schema)
        prompt_event = self.recorder.record(Prompt(text=prompt))
        turn.pending.append(
            PendingEntry("prompt", prompt, (self._source(prompt_event),), utc_now())
        )
        self._reference_outputs()
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

    def _reference_outputs(self) -> None:
        """From the turn after its own, an output goes as its reference when that is shorter
        (docs/turn.md, "Steps"); each is recorded once, as ``context.reference``. Each entry is
        looked at once: the decision never changes."""
        entries = self.store.entries
        start, self._scanned = self._scanned, len(entries)
        for entry in entries[start:]:
            if entry.kind != "toolOutput" or not entry.active or entry.referenced_at is not None:
                continue
            text = self.meter.reference_text(entry)
            size, reference_size = utf8_len(entry.text), utf8_len(text)
            if reference_size >= size:
                continue
            entry.referenced_at = self.turn
            self.meter.referenced(entry)
            details = ContextReference(
                entry=entry.id,
                tool=entry.value.tool,
                bytes=size,
                reference_bytes=reference_size,
                tokens=(size - reference_size) // 4,
            )
            if entry.sources:
                details.result = entry.sources[0].event
            self.recorder.record(details)

    async def _run(self, turn: _Turn, emit: Emit) -> TurnResult:
        try:
            text = await self._loop(turn, emit)
        except ModelError as exc:
            return self._failed(turn, str(exc))
        return self._succeeded(turn, text)

    async def _loop(self, turn: _Turn, emit: Emit) -> str:
        specs = tool_specs(self.tools, self.resolved.context_size)  # the same for every request
        budget = output_budget(self.resolved.context_size)
        for _ in range(self.max_steps):
            reply = await self._send(turn, lambda: self._next_request(turn, specs), emit)
            if not reply.calls:
                if reply.text.strip():
                    return reply.text
                if turn.cut is not None:  # it ran away in text held as a possible call
                    why, turn.cut = turn.cut, None
                    failure = CUT_UNSEEN.format(why)
                    return await self._answer_after_silence(turn, emit, CUT_NUDGE, failure)
                return await self._answer_after_silence(turn, emit)
            if turn.looped is not None:
                raise ModelError(LOOPED.format(turn.looped))
            if reply.text:
                turn.pending.append(PendingEntry("response", reply.text))
            calls = [
                ToolCall(new_call_id(self._call_ids), c.name, c.arguments) for c in reply.calls
            ]
            turn.calls.update((call.id, call) for call in calls)
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

    async def _answer_after_silence(
        self, turn: _Turn, emit: Emit, nudge: str = EMPTY_REPLY_NUDGE, failure: str = NO_ANSWER
    ) -> str:
        """The model ended its reply with nothing to show (small models do: an empty reply, or
        one cut while it ran away in what looked like a call): it is asked once more, with no
        tools and a plain request for the answer. Nothing again fails the turn with a message
        saying so, never a silent, empty answer."""
        specs = tool_specs(self.tools, self.resolved.context_size)

        def asked_again() -> ChatRequest:
            messages = self.messages(turn.pending)
            messages.append(Message(role="user", content=nudge))
            return ChatRequest(messages, withheld=specs, schema=turn.schema)

        reply = await self._send(turn, asked_again, emit)
        if reply.calls or not reply.text.strip():
            raise ModelError(failure)
        return reply.text

    def messages(self, running: list[PendingEntry]) -> list[Message]:
        """The messages of the next request: the instructions, the live entries (kept between
        requests), then the running turn's."""
        messages = [Message(role="system", content=self.instructions)]
        messages += self.meter.stored().messages
        for pending in running:
            append_entry(messages, pending.kind, pending.value, None)
        return messages

    def _next_request(self, turn: _Turn, specs: list[Any]) -> ChatRequest:
        messages = self.messages(turn.pending)
        if turn.looped is None:
            return ChatRequest(messages, specs, schema=None if specs else turn.schema)
        messages.append(Message(role="user", content=LOOP_NUDGE.format(turn.looped)))
        return ChatRequest(messages, withheld=specs, schema=turn.schema)

    async def _send(self, turn: _Turn, make: Callable[[], ChatRequest], emit: Emit) -> _Reply:
        """One request, condensed first when due. An overflow is condensed from the runtime's
        own count and asked once more; a second one in the turn fails it, saying what to do."""
        self._condense(turn, emit, self._plan_before(turn))
        request = make()
        try:
            return await self._request(turn, request, emit)
        except ContextOverflow as overflow:
            if turn.overflowed:
                raise ModelError(STILL_TOO_BIG.format(_overflow_counts(overflow))) from overflow
            turn.overflowed = True
            plan = self._plan_after(turn, overflow, request)
            self._condense(turn, emit, plan)
            if not plan.drop:  # nothing earlier to drop: the same request would fail again
                raise ModelError(STILL_TOO_BIG.format(_overflow_counts(overflow))) from overflow
        return await self._send(turn, make, emit)

    # -- condensing (docs/turn.md, "Long conversations") --------------------------------------

    def _sizes(self, turn: _Turn) -> tuple[int, int, int]:
        """The fixed part, the running turn and what is left of its headroom, in tokens."""
        meter = self.meter
        fixed = meter.scaled(self._fixed_tokens())
        running = meter.scaled(meter.pending_tokens(turn.pending))
        if turn.headroom is None:
            turn.headroom = meter.headroom()
        prompt = meter.scaled(meter.pending_tokens(turn.pending[:1]))
        return fixed, running, max(0, turn.headroom - (running - prompt))

    def _estimate(self, request: ChatRequest) -> int:
        """The request's size by estimate: the kept stored part's, and the rest measured (the
        instructions, the tools, the running turn), without walking the stored part again."""
        stored = self.meter.stored()
        rest = [request.messages[0], *request.messages[1 + len(stored.messages) :]]
        return stored.tokens + ChatRequest(rest, request.tools).estimated_tokens()

    def _fixed_tokens(self) -> int:
        """The instructions and the tool schemas, measured once per window (a smaller window
        is offered smaller schemas)."""
        window = self.resolved.context_size
        if self._fixed is None or self._fixed[0] != window:
            specs = tool_specs(self.tools, window)
            self._fixed = (window, self.meter.fixed_tokens(self.instructions, specs))
        return self._fixed[1]

    def _plan_before(self, turn: _Turn) -> Plan | None:
        window = self.resolved.context_size
        if not window:
            return None  # an unknown window: nothing to condense against ahead of time
        fixed, running, headroom = self._sizes(turn)
        return self.meter.plan(
            reason="budget", window=window, fixed=fixed, running=running, headroom=headroom
        )

    def _plan_after(self, turn: _Turn, overflow: ContextOverflow, request: ChatRequest) -> Plan:
        if overflow.window:  # learnt for the rest of the session
            self.resolved.context_size = overflow.window
            self.resolved.context_note = "learnt from the runtime's refusal of a longer prompt"
        estimated = self._estimate(request)
        if overflow.tokens:
            self.meter.learn(overflow.tokens, estimated)
        fixed, running, headroom = self._sizes(turn)
        plan = self.meter.plan(
            reason="overflow",
            window=self.resolved.context_size,
            fixed=fixed,
            running=running,
            headroom=headroom,
            measured=overflow.tokens or self.meter.scaled(estimated),
        )
        assert plan is not None  # an overflow always plans
        return plan

    def _condense(self, turn: _Turn, emit: Emit, plan: Plan | None) -> None:
        """Carry out a plan: drop its turns (marked, never deleted) and record it. A pass at
        the floor that changes nothing is recorded once a turn, for the note it brings."""
        if plan is None or not (plan.drop or plan.floor):
            return
        if not plan.drop and turn.floor_noted:
            return
        turn.floor_noted = turn.floor_noted or plan.floor
        details = plan.details()
        if self.audit_file is not None:
            self._save_contexts(details, plan, turn.number)
        event = self.recorder.record(details)
        entries = [entry for gone in plan.drop for entry in gone.entries]
        self.store.drop(entries, by=event, turn=turn.number)
        turn.condensed = turn.condensed or bool(plan.drop)
        _, running, _ = self._sizes(turn)
        emit(ContextFill(plan.fill_after + running, self.resolved.context_size))

    def _save_contexts(self, details: ContextCondensation, plan: Plan, turn: int) -> None:
        """The context before and after, as Markdown beside the audit log; a file that cannot
        be written is left out of the event, and the condensation goes on."""
        self._condensations += 1
        name = f"{self.session}-turn{turn}-{self._condensations}"
        dropped = {entry.id for gone in plan.drop for entry in gone.entries}
        kept = [entry for entry in self.store.live() if entry.id not in dropped]
        before = save_context(self, f"{name}-before", turn, "before", self.store.live())
        after = save_context(self, f"{name}-after", turn, "after", kept)
        if before is not None and after is not None:
            details.saved_before, details.saved_after = before, after

    async def _call(self, turn: _Turn, call: ToolCall, budget: int) -> None:
        done = await self._audited.run(
            call, conversation=self, working_directory=self.working_directory, budget=budget
        )
        sources = [self._source(done.call_event)]
        if done.result_event:
            sources = [self._source(done.result_event)]
        value = ToolOutputValue(call.id, call.name, done.output)
        turn.pending.append(PendingEntry("toolOutput", value, tuple(sources), utc_now()))
        turn.answered.add(call.id)
        turn.call_events[call.id] = done.call_event
        if done.repeat >= 3 and turn.looped is None:
            turn.looped = call.name
            withdrawn = ToolsWithdrawn(tool=call.name, arguments=call.arguments, repeat=done.repeat)
            self.recorder.record(withdrawn, call=call.id)

    async def _request(self, turn: _Turn, request: ChatRequest, emit: Emit) -> _Reply:
        reply = _Reply()
        thinking = _Thinking(self, turn)
        guard = RunawayGuard(reply_cap(self.max_reply_tokens, self.resolved.context_size))
        text: list[str] = []
        reported: int | None = None
        async with contextlib.aclosing(self.resolved.backend.stream(request)) as stream:
            async for event in stream:
                match event:
                    case ThinkingDelta(text=fragment):
                        thinking.add(fragment)
                    case TextDelta(text=fragment):
                        thinking.end()
                        text.append(fragment)
                        emit(TextFragment(fragment))
                        if (why := guard.add(fragment)) is not None:
                            turn.cut = why  # the request is closed: the model stops here
                            break
                    case HeldText(size=size, tail=tail):
                        if (why := guard.held(size, tail)) is not None:
                            turn.cut = why
                            break
                    case ToolCallRequested():
                        thinking.end()
                        reply.calls.append(event)
                    case UsageReport(usage=usage):
                        reported = usage.input or reported
                        turn.usage = usage if turn.usage is None else turn.usage + usage
                        thinking.reported_tokens = usage.reasoning or None
        thinking.end()
        reply.text = "".join(text)
        self._measured(request, reported, emit)
        return reply

    def _measured(self, request: ChatRequest, reported: int | None, emit: Emit) -> None:
        """After a request: the runtime's count anchors later estimates, and the meter moves."""
        estimated = self._estimate(request)
        if reported:
            self.meter.learn(reported, estimated)
        self.last_input_tokens = reported or self.meter.scaled(estimated)
        emit(ContextFill(self.last_input_tokens, self.resolved.context_size))

    # -- endings ----------------------------------------------------------------------------

    def _succeeded(self, turn: _Turn, text: str) -> TurnResult:
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
        result.text = text
        result.cut = turn.cut
        self._check(result, text)
        return result

    def _failed(self, turn: _Turn, message: str) -> TurnResult:
        self.recorder.record(Error(message=message, context="turn"))
        result = self._store(turn, "error", time.monotonic() - turn.started)
        result.error = message
        return result

    def _stopped(self, turn: _Turn) -> TurnResult:
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

    def _store(self, turn: _Turn, outcome: str, seconds: float) -> TurnResult:
        self._link_calls(turn)
        self.store.add_turn(turn.pending, turn=turn.number, time=utc_now())
        return TurnResult(
            turn=turn.number,
            outcome=outcome,  # type: ignore[arg-type]
            seconds=seconds,
            usage=turn.usage,
        )

    def _link_calls(self, turn: _Turn) -> None:
        """A toolCalls entry's sources: the ``tool.call`` events of its calls."""
        self._trail = self.recorder.take_turn(turn.number)
        for index, entry in enumerate(turn.pending):
            if entry.kind == "toolCalls":
                sources = tuple(
                    self._source(turn.call_events[c.id])
                    for c in entry.value  # type: ignore[attr-defined]
                    if c.id in turn.call_events
                )
                turn.pending[index] = PendingEntry(entry.kind, entry.value, sources, entry.time)

    def _check(self, result: TurnResult, text: str) -> None:
        """``ran:`` from the turn's audit trail, ``cited`` against the store, and the reply's
        claims of actions against the trail's calls (``response.verification``, after
        ``response``; none under ``verification.mode`` ``off``)."""
        result.ran = checks.ran_line(checks.call_outcomes(self._trail), text, self.tool_names)
        citations = checks.cited_entries(text)
        result.unknown_entries = checks.unknown_entries(citations, self.store.has)
        result.cited = checks.cited_line(result.unknown_entries, capped=citations.capped)
        if self.config.settings.verification.mode == "off":
            return
        # Imported at the first reply: its patterns take longer to compile than wisp's first
        # status would wait for them.
        from wisp.agent.verification import verify

        found = verify(text, self._trail, self.working_directory)
        if found is not None:
            self.recorder.record(found.details)
            result.verification = found.line

    def _source(self, event_id: str) -> Source:
        return Source(session=self.session, turn=self.turn, event=event_id)


class _Thinking:
    """One request's thinking stretch: ``model.reasoning`` start at the first chunk, end at the
    first reply or tool-call chunk (or the stream's end), and a ``reasoning`` entry."""

    def __init__(self, conversation: Conversation, turn: _Turn) -> None:
        self.conversation = conversation
        self.turn = turn
        self.parts: list[str] = []
        self.started: float | None = None
        self.reported_tokens: int | None = None

    def add(self, fragment: str) -> None:
        if self.started is None:
            self.started = time.monotonic()
            self.conversation.recorder.record(ModelReasoning(phase="start"))
        self.parts.append(fragment)

    def end(self) -> None:
        if self.started is None:
            return
        text = "".join(self.parts)
        seconds = time.monotonic() - self.started
        tokens = self.reported_tokens or len(self.parts)  # one a chunk when none is reported
        event_id = self.conversation.recorder.record(
            ModelReasoning(
                phase="end",
                text=text,
                bytes=len(text.encode()),
                tokens=tokens,
                seconds=round(seconds, 3),
            )
        )
        source = (self.conversation._source(event_id),)
        self.turn.pending.append(PendingEntry("reasoning", text, source, utc_now()))
        self.started = None
        self.parts = []


def _overflow_counts(overflow: ContextOverflow) -> str:
    if overflow.tokens and overflow.window:
        return f"{overflow.tokens:,} of {overflow.window:,} tokens"
    return str(overflow)
