"""``ConversationStore``: every entry of a conversation, once, numbered from 1 (docs/store.md).

A turn's entries are appended together when the turn ends (``add_turn``), so a turn is always a
contiguous range. Nothing stored is edited; what the model sees differs from the store only by
marks (``referenced_at``, ``dropped_at``) that the store records.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import msgspec

from wisp.store.entries import Entry, EntryKind, Source
from wisp.tool_call import ToolCall


class PendingEntry(msgspec.Struct, frozen=True):
    """An entry of the running turn, not yet numbered."""

    kind: EntryKind
    value: object
    sources: tuple[Source, ...] = ()
    time: str | None = None


class ConversationStore:
    """The entries of one conversation."""

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self.entries: list[Entry] = list(entries)
        self.calls: dict[str, ToolCall] = {}
        """Every stored tool call by its id (a reference names its call's arguments)."""
        for entry in self.entries:
            self._index(entry)
        self.drops = 0
        """How many times entries were dropped: what is kept of the live part is stale after."""
        self._horizon = 0
        """Every entry before this index is dropped or the instructions: composing starts here,
        never walking the dropped entries, however many there are."""
        self._advance_horizon()

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    @property
    def last_id(self) -> int:
        return len(self.entries)

    def get(self, entry_id: int) -> Entry | None:
        """The entry numbered ``entry_id``, or None (ids run 1..N)."""
        if 1 <= entry_id <= len(self.entries):
            return self.entries[entry_id - 1]
        return None

    def has(self, entry_id: int) -> bool:
        return 1 <= entry_id <= len(self.entries)

    def add(
        self, pending: PendingEntry, *, turn: int | None, origin: str = "turn", time: str | None
    ) -> Entry:
        entry = Entry(
            id=len(self.entries) + 1,
            kind=pending.kind,
            origin=origin,  # type: ignore[arg-type]
            turn=turn,
            value=pending.value,
            sources=list(pending.sources),
            time=pending.time or time,
        )
        self.entries.append(entry)
        self._index(entry)
        return entry

    def add_turn(self, pending: Iterable[PendingEntry], *, turn: int, time: str) -> list[Entry]:
        """Store a finished (or failed, or stopped) turn's entries, contiguously."""
        return [self.add(entry, turn=turn, time=time) for entry in pending]

    def turn_entries(self, turn: int) -> list[Entry]:
        return [entry for entry in self.entries if entry.turn == turn]

    def turns(self) -> list[int]:
        """The turn numbers the store holds, in order."""
        seen: dict[int, None] = {}
        for entry in self.entries:
            if entry.turn is not None:
                seen.setdefault(entry.turn)
        return list(seen)

    def active(self) -> list[Entry]:
        return [entry for entry in self.entries if entry.active]

    def live(self) -> Iterator[Entry]:
        """The active entries a request carries, in order, the instructions left out (every
        request leads with them). Starts past the dropped ones without looking at them."""
        for entry in self.entries[self._horizon :]:
            if entry.active and entry.kind != "instructions":
                yield entry

    @property
    def horizon(self) -> int:
        """The index composing starts from: every entry before it is dropped or the
        instructions."""
        return self._horizon

    def drop(self, entries: Iterable[Entry], *, by: str, turn: int) -> None:
        """Mark entries dropped by the condensation recorded as event ``by``, during ``turn``.
        They stay, numbered as before: a citation, a recall or a save still finds them."""
        for entry in entries:
            entry.active = False
            entry.dropped_by = by
            entry.dropped_at = turn
        self.drops += 1
        self._advance_horizon()

    def _advance_horizon(self) -> None:
        entries = self.entries
        while self._horizon < len(entries) and (
            not entries[self._horizon].active or entries[self._horizon].kind == "instructions"
        ):
            self._horizon += 1

    def _index(self, entry: Entry) -> None:
        if entry.kind == "toolCalls":
            self.calls.update((call.id, call) for call in entry.value)
