"""``ConversationStore``: every entry of a conversation, once, numbered from 1 (docs/store.md).

A turn's entries are appended together when the turn ends (``add_turn``), so a turn is always a
contiguous range. Nothing stored is edited; what the model sees differs from the store only by
marks (``referenced_at``, ``dropped_at``) that the store records.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from wisp.store.entries import Entry, EntryKind, Source


@dataclass(frozen=True, slots=True)
class PendingEntry:
    """An entry of the running turn, not yet numbered."""

    kind: EntryKind
    value: object
    sources: tuple[Source, ...] = ()
    time: str | None = None


class ConversationStore:
    """The entries of one conversation."""

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self.entries: list[Entry] = list(entries)

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
