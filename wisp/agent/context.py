"""Long conversations: what a request holds, measured against the model's window, and condensing
to a target before it would not fit (docs/turn.md, "Long conversations").

Sizes are tokens at four UTF-8 bytes a token (``ChatRequest.estimated_tokens``), anchored on the
runtime's own figure: the last request's reported prompt tokens over its estimate is a ratio
applied to every estimate until the next report.

The stored part of every request (the live entries as messages, and their size) is kept between
requests and brought up to date from what changed: a stored turn is appended, an output that
becomes its reference is replaced in place, and only a condensation builds it afresh. So
composing a request costs about the same at turn 2,000 as at turn 10 (bench/context.py).

Condensing never edits or deletes an entry: it marks whole turns dropped (``ConversationStore.
drop``), oldest first, never the last whole one, and records ``context.condensation``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import groupby

import msgspec

from wisp.agent.compose import append_entry, compose_entry, reference, replacement
from wisp.agent.types import BYTES_PER_TOKEN, ChatRequest, Message, ToolSpec, message_bytes
from wisp.audit.kinds import ContextCondensation
from wisp.store import ConversationStore, Entry, PendingEntry

MARGIN = 0.2
"""The target share is kept at least this far under the budget."""
RATIO_RANGE = (0.25, 4.0)
"""How far a runtime's count may stray from four bytes a token before it is taken for noise."""


class ContextSettings(msgspec.Struct, frozen=True):
    """``context.budget``, ``context.target``, ``context.headroomTurns`` and
    ``context.summaryBatch``."""

    budget: float = 0.85
    target: float = 0.6
    headroom_turns: int = 8
    summary_batch: int = 3
    """Dropped turns the running summary's next version waits for; 0 writes none
    (docs/turn.md, "The running summary")."""

    @property
    def share(self) -> float:
        """The share of the window condensing aims for: the target, capped at budget − 0.2."""
        return min(self.target, self.budget - MARGIN)


class StoredTurn(msgspec.Struct):
    """One turn's live entries (a typed command goes with the turn whose request carries it)."""

    number: int | None
    entries: list[Entry]
    tokens: int
    """What the turn costs a request now (earlier outputs as their references)."""

    @property
    def is_model_turn(self) -> bool:
        return any(entry.kind == "prompt" for entry in self.entries)

    @property
    def span(self) -> str:
        first, last = self.entries[0].id, self.entries[-1].id
        return f"entry {first}" if first == last else f"entries {first}-{last}"


class Plan(msgspec.Struct):
    """What condensing decided: the turns to drop, and the numbers its event records."""

    reason: str
    window: int | None
    """None when an overflow said nothing of the window: everything but the last turn goes."""
    goal: int
    headroom: int
    fill_before: int
    fill_after: int
    token_count: int
    turns_before: int
    turns_after: int
    drop: list[StoredTurn] = msgspec.field(default_factory=list)
    floor: bool = False
    distilled: int = 0
    """The dropped turns facts were distilled from (``distilling.py``): 0 when no
    distillation ran or it failed."""

    @property
    def steps(self) -> list[str]:
        if not self.drop:
            return []
        count = sum(1 for turn in self.drop if turn.is_model_turn) or len(self.drop)
        steps = [f"dropped {_turns(count)}"]
        if self.distilled:
            steps.insert(0, f"distilled {_turns(self.distilled)}")
        return steps

    def details(self) -> ContextCondensation:
        return ContextCondensation(
            reason=self.reason,
            turns_before=self.turns_before,
            turns_after=self.turns_after,
            context_size=self.window,
            token_count=self.token_count,
            target=self.goal,
            fill_before=self.fill_before,
            fill_after=self.fill_after,
            headroom=self.headroom,
            steps=self.steps,
            floor=self.floor,
        )


class ContextMeter:
    """Sizes of what requests carry, for one conversation over one store."""

    def __init__(
        self,
        store: ConversationStore,
        *,
        memory: bool,
        settings: ContextSettings | None = None,
    ) -> None:
        self.store = store
        self.memory = memory
        self.settings = settings or ContextSettings()
        self.ratio = 1.0
        """The runtime's tokens per estimated token, from the last request it reported."""
        self._sizes: dict[int, int] = {}
        self._references: dict[int, str] = {}
        self._whole: dict[int, int] = {}
        self._part = _StoredPart()

    # -- sizes --------------------------------------------------------------------------------

    def reference_text(self, entry: Entry) -> str:
        """An output's reference, made once (it names fixed things: the entry, its time)."""
        text = self._references.get(entry.id)
        if text is None:
            text = reference(entry, memory=self.memory, calls=self.store.calls)
            self._references[entry.id] = text
        return text

    def entry_tokens(self, entry: Entry) -> int:
        """What ``entry`` costs a request now, by estimate (before the runtime's ratio)."""
        size = self._sizes.get(entry.id)
        if size is None:
            replaced = replacement(entry, self.reference_text)
            size = _bytes(compose_entry(entry.kind, entry.value, replaced))
            if entry.kind != "toolOutput" or entry.referenced_at is not None:
                self._sizes[entry.id] = size  # an output is fixed only once referenced
        return _tokens(size)

    def whole_tokens(self, entry: Entry) -> int:
        """What ``entry`` cost in its own turn, an output whole."""
        size = self._whole.get(entry.id)
        if size is None:
            size = self._whole[entry.id] = _bytes(compose_entry(entry.kind, entry.value, None))
        return _tokens(size)

    def fixed_tokens(self, instructions: str, tools: Sequence[ToolSpec]) -> int:
        """The instructions and the tool schemas: in every request, never cut."""
        request = ChatRequest([Message(role="system", content=instructions)], list(tools))
        return request.estimated_tokens()

    def text_tokens(self, text: str) -> int:
        """Text sent beside the entries (the facts in force), by the same estimate."""
        return _tokens(len(text.encode())) if text else 0

    def pending_tokens(self, pending: Iterable[PendingEntry]) -> int:
        return _tokens(
            sum(_bytes(compose_entry(entry.kind, entry.value, None)) for entry in pending)
        )

    def scaled(self, tokens: int) -> int:
        """An estimate in the runtime's tokens."""
        return round(tokens * self.ratio)

    def learn(self, reported: int, estimated: int) -> None:
        """The runtime counted ``reported`` tokens for a request estimated at ``estimated``."""
        if reported > 0 and estimated > 0:
            low, high = RATIO_RANGE
            self.ratio = min(high, max(low, reported / estimated))

    # -- the stored part of every request ------------------------------------------------------

    def stored(self) -> _StoredPart:
        """The live entries as a request carries them, up to date with the store."""
        part, store = self._part, self.store
        if part.drops != store.drops:
            self._forget_dropped()
            part.reset(store.drops, store.horizon)
        for entry in store.entries[part.seen :]:
            if entry.active and entry.kind != "instructions":
                self._take(entry)
        part.seen = len(store.entries)
        return part

    def referenced(self, entry: Entry) -> None:
        """``entry``, an output, goes as its reference from now on: its message is replaced."""
        part = self._part
        if entry.id not in part.outputs or part.drops != self.store.drops:
            return  # not taken in yet, or about to be built afresh
        index, before = part.outputs[entry.id]
        message = part.messages[index]
        part.messages[index] = Message(
            role="tool",
            content=self.reference_text(entry),
            tool_call_id=message.tool_call_id,
            tool_name=message.tool_name,
        )
        after = self.entry_tokens(entry)
        part.tokens += after - before
        part.outputs[entry.id] = (index, after)

    def _take(self, entry: Entry) -> None:
        part = self._part
        index = len(part.messages)
        append_entry(
            part.messages, entry.kind, entry.value, replacement(entry, self.reference_text)
        )
        tokens = self.entry_tokens(entry)
        part.tokens += tokens
        if entry.kind == "toolOutput":
            part.outputs[entry.id] = (index, tokens)

    def _forget_dropped(self) -> None:
        """Sizes and references of dropped entries go: the caches hold the live part only."""
        for cache in (self._sizes, self._references, self._whole):
            for entry_id in [key for key in cache if not self.store.entries[key - 1].active]:
                del cache[entry_id]

    # -- turns --------------------------------------------------------------------------------

    def live_turns(self) -> list[StoredTurn]:
        """The live entries, grouped by turn, oldest first."""
        turns: list[StoredTurn] = []
        for number, group in groupby(self.store.live(), key=lambda entry: entry.turn):
            entries = list(group)
            tokens = sum(self.entry_tokens(entry) for entry in entries)
            turns.append(StoredTurn(number, entries, tokens))
        return turns

    def headroom(self) -> int:
        """The average size of the latest ``headroomTurns`` turns in their own requests: calls,
        outputs whole, reply (a person's typed commands left out)."""
        sizes: dict[int, int] = {}
        for entry in reversed(self.store.entries):
            if entry.turn is None:
                break  # the instructions: the store's start
            if entry.kind == "command":
                continue
            if entry.turn not in sizes:
                if len(sizes) == self.settings.headroom_turns:
                    break
                sizes[entry.turn] = 0
            if entry.kind in ("toolCalls", "toolOutput", "response"):
                sizes[entry.turn] += self.whole_tokens(entry)
        return self.scaled(sum(sizes.values()) // len(sizes)) if sizes else 0

    # -- condensing ---------------------------------------------------------------------------

    def plan(
        self,
        *,
        reason: str,
        window: int | None,
        fixed: int,
        running: int,
        headroom: int,
        measured: int | None = None,
        room: int = 0,
    ) -> Plan | None:
        """Whether to condense before a request, and what to drop.

        ``fixed`` is the instructions and tool schemas, ``running`` the running turn so far
        (its prompt first), ``headroom`` what the rest of the turn is expected to take, all in
        the runtime's tokens. ``measured`` is the runtime's own count of the whole request (an
        overflow's). ``room`` is what the condensation itself will add (a new version of the
        running summary), counted in what is left after it. Returns None when nothing is
        due."""
        settings = self.settings
        context = fixed + self.scaled(self.stored().tokens)
        if measured is not None:
            context = max(measured - running, fixed)
        if window is None:
            goal = 0
        else:
            budget = settings.budget * window
            if reason == "budget" and context + running + headroom < budget:
                return None
            goal = int(min(settings.share * window, budget - running - headroom))
        turns = self.live_turns()  # walked only when something is to be dropped
        model_turns = sum(1 for turn in turns if turn.is_model_turn)
        plan = Plan(
            reason=reason,
            window=window,
            goal=max(goal, 0),
            headroom=headroom,
            fill_before=context,
            fill_after=context + room,
            token_count=measured if measured is not None else context + running,
            turns_before=model_turns,
            turns_after=model_turns,
        )
        # The fewest oldest whole turns that reach the goal; never the last whole one.
        for turn in turns[:-1]:
            if plan.fill_after <= goal:
                break
            plan.drop.append(turn)
            plan.fill_after -= self.scaled(turn.tokens)
            plan.turns_after -= turn.is_model_turn
        plan.fill_after = max(plan.fill_after, fixed)
        plan.floor = plan.fill_after > goal
        return plan


class _StoredPart(msgspec.Struct):
    """The stored part of every request: the live entries as messages, and their size."""

    messages: list[Message] = msgspec.field(default_factory=list)
    tokens: int = 0
    """Their size by estimate, before the runtime's ratio."""
    seen: int = 0
    """The store's entries taken in so far."""
    drops: int = -1
    """The store's drop count it was built for (-1: never built)."""
    outputs: dict[int, tuple[int, int]] = msgspec.field(default_factory=dict)
    """Each output entry's message index and size, to replace it by its reference."""

    def reset(self, drops: int, start: int) -> None:
        self.messages, self.tokens, self.outputs = [], 0, {}
        self.seen, self.drops = start, drops


def _turns(count: int) -> str:
    return f"{count} turn{'s' if count != 1 else ''}"


def _bytes(messages: Iterable[Message]) -> int:
    return sum(message_bytes(message) for message in messages)


def _tokens(size: int) -> int:
    return -(-size // BYTES_PER_TOKEN)
