"""A conversation's context planning: what its requests carry, sized against the model's window,
condensed when due, and each condensation's contexts saved (docs/turn.md, "Long
conversations").

``ContextPlanner`` works for one ``Conversation`` and reads it live (its model, tools,
instructions, store and meter), so a window learnt from an overflow or a tool added later
counts at once. The turn decides when to plan; the planner sizes, plans and carries a plan
out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from wisp.agent.context import Plan
from wisp.agent.context_report import save_context
from wisp.agent.events import ContextFill
from wisp.agent.prompt import tool_specs
from wisp.agent.text import utf8_len
from wisp.agent.turn_state import TurnState
from wisp.agent.types import ChatRequest, ContextOverflow
from wisp.audit.kinds import ContextCondensation, ContextReference

if TYPE_CHECKING:
    from wisp.agent.events import Emit
    from wisp.agent.loop import Conversation


class ContextPlanner:
    """Sizes, plans and condenses one conversation's requests; saves the contexts around each
    condensation beside the audit log."""

    def __init__(self, conversation: Conversation) -> None:
        self.conversation = conversation
        self._scanned = 0
        """Entries before this index were looked at for references already."""
        self._condensations = 0
        """Condensations this session, to name their saved contexts apart."""
        self._fixed: tuple[int | None, int] | None = None
        """The window the fixed part was measured for, and its tokens."""

    def reference_outputs(self) -> None:
        """From the turn after its own, an output goes as its reference when that is shorter
        (docs/turn.md, "Steps"); each is recorded once, as ``context.reference``. Each entry is
        looked at once: the decision never changes."""
        conversation = self.conversation
        meter = conversation.meter
        entries = conversation.store.entries
        start, self._scanned = self._scanned, len(entries)
        for entry in entries[start:]:
            if entry.kind != "toolOutput" or not entry.active or entry.referenced_at is not None:
                continue
            text = meter.reference_text(entry)
            size, reference_size = utf8_len(entry.text), utf8_len(text)
            if reference_size >= size:
                continue
            entry.referenced_at = conversation.turn
            meter.referenced(entry)
            details = ContextReference(
                entry=entry.id,
                tool=entry.value.tool,
                bytes=size,
                reference_bytes=reference_size,
                tokens=(size - reference_size) // 4,
            )
            if entry.sources:
                details.result = entry.sources[0].event
            conversation.recorder.record(details)

    def sizes(self, turn: TurnState) -> tuple[int, int, int]:
        """The fixed part, the running turn and what is left of its headroom, in tokens."""
        meter = self.conversation.meter
        facts = self.conversation.facts.in_force()  # sent with the prompt, never stored
        summary = self.conversation.distiller.summary.block()  # where the dropped turns were
        fixed = meter.scaled(
            self.fixed_tokens() + meter.text_tokens(facts) + meter.text_tokens(summary)
        )
        running = meter.scaled(meter.pending_tokens(turn.pending))
        if turn.headroom is None:
            turn.headroom = meter.headroom()
        prompt = meter.scaled(meter.pending_tokens(turn.pending[:1]))
        return fixed, running, max(0, turn.headroom - (running - prompt))

    def estimate(self, request: ChatRequest) -> int:
        """The request's size by estimate: the kept stored part's, and the rest measured (the
        instructions, the tools, the running turn), without walking the stored part again."""
        meter = self.conversation.meter
        stored, summary = meter.stored(), self.conversation.distiller.summary
        carried = 1 + len(stored.messages) + summary.added(stored.messages)
        rest = [request.messages[0], *request.messages[carried:]]
        measured = ChatRequest(rest, request.tools).estimated_tokens()
        return stored.tokens + meter.text_tokens(summary.block()) + measured

    def fixed_tokens(self) -> int:
        """The instructions and the tool schemas, measured once per window (a smaller window
        is offered smaller schemas)."""
        conversation = self.conversation
        window = conversation.resolved.context_size
        if self._fixed is None or self._fixed[0] != window:
            specs = tool_specs(conversation.tools, window)
            tokens = conversation.meter.fixed_tokens(conversation.instructions, specs)
            self._fixed = (window, tokens)
        return self._fixed[1]

    def plan_before(self, turn: TurnState) -> Plan | None:
        """The plan ahead of a request, against the model's known window."""
        window = self.conversation.resolved.context_size
        if not window:
            return None  # an unknown window: nothing to condense against ahead of time
        fixed, running, headroom = self.sizes(turn)

        def plan(room: int) -> Plan | None:
            return self.conversation.meter.plan(
                reason="budget", window=window, fixed=fixed, running=running,
                headroom=headroom, room=room,
            )  # fmt: skip

        return self._with_summary_room(plan)

    def plan_after(self, turn: TurnState, overflow: ContextOverflow, request: ChatRequest) -> Plan:
        """The plan after the runtime refused ``request`` as too long, from its own count."""
        resolved, meter = self.conversation.resolved, self.conversation.meter
        if overflow.window:  # learnt for the rest of the session
            resolved.context_size = overflow.window
            resolved.context_note = "learnt from the runtime's refusal of a longer prompt"
        estimated = self.estimate(request)
        if overflow.tokens:
            meter.learn(overflow.tokens, estimated)
        fixed, running, headroom = self.sizes(turn)

        def plan(room: int) -> Plan | None:
            return meter.plan(
                reason="overflow", window=resolved.context_size, fixed=fixed,
                running=running, headroom=headroom,
                measured=overflow.tokens or meter.scaled(estimated), room=room,
            )  # fmt: skip

        planned = self._with_summary_room(plan)
        assert planned is not None  # an overflow always plans
        return planned

    def _with_summary_room(self, plan: Callable[[int], Plan | None]) -> Plan | None:
        """``plan`` made with no room set aside, and made again with room for the running
        summary when its turns would make the summary due: a new version can be larger than
        the one requests carry now, and the turns it would not fit beside are dropped in the
        same condensation, not in another one (with calls of its own) before the request."""
        planned = plan(0)
        if planned is None or not planned.drop:
            return planned
        summary = self.conversation.distiller.summary
        if not summary.due_with(planned.drop):
            return planned
        meter = self.conversation.meter
        room = self.conversation.distiller.summary_room() - meter.text_tokens(summary.block())
        return plan(meter.scaled(room)) if room > 0 else planned

    async def condense(self, turn: TurnState, emit: Emit, plan: Plan | None) -> None:
        """Carry out a plan: what its turns hold distilled and summarised (``distilling.py``;
        recorded first), then the turns dropped (marked, never deleted) and the plan recorded.
        A pass at the floor that changes nothing is recorded once a turn, for the note it
        brings."""
        if plan is None or not (plan.drop or plan.floor):
            return
        if not plan.drop and turn.floor_noted:
            return
        conversation = self.conversation
        turn.floor_noted = turn.floor_noted or plan.floor
        if plan.drop:
            plan.distilled = await conversation.distiller.dropping(plan.drop)
        details = plan.details()
        if conversation.audit_file is not None:
            self._save_contexts(details, plan, turn.number)
        event = conversation.recorder.record(details)
        entries = [entry for gone in plan.drop for entry in gone.entries]
        conversation.store.drop(entries, by=event, turn=turn.number)
        turn.condensed = turn.condensed or bool(plan.drop)
        _, running, _ = self.sizes(turn)
        emit(ContextFill(plan.fill_after + running, conversation.resolved.context_size))

    def measured(self, request: ChatRequest, reported: int | None, emit: Emit) -> None:
        """After a request: the runtime's count anchors later estimates, the conversation's
        ``last_input_tokens`` is set (before the face hears of it), and the meter moves."""
        conversation, meter = self.conversation, self.conversation.meter
        estimated = self.estimate(request)
        if reported:
            meter.learn(reported, estimated)
        conversation.last_input_tokens = reported or meter.scaled(estimated)
        emit(ContextFill(conversation.last_input_tokens, conversation.resolved.context_size))

    def _save_contexts(self, details: ContextCondensation, plan: Plan, turn: int) -> None:
        """The context before and after, as Markdown beside the audit log; a file that cannot
        be written is left out of the event, and the condensation goes on."""
        conversation = self.conversation
        self._condensations += 1
        name = f"{conversation.session}-turn{turn}-{self._condensations}"
        dropped = {entry.id for gone in plan.drop for entry in gone.entries}
        live = conversation.store.live
        kept = [entry for entry in live() if entry.id not in dropped]
        before = save_context(conversation, f"{name}-before", turn, "before", live())
        after = save_context(conversation, f"{name}-after", turn, "after", kept)
        if before is not None and after is not None:
            details.saved_before, details.saved_after = before, after
