"""Permanent facts: kept under ``WISP_HOME`` and shared by every conversation of this user.

``facts.json`` holds every permanent fact ever kept, deleted and replaced ones too, marked, as
the book keeps them. Every change is made under ``facts.lock`` (held exclusive) and written
atomically, so two wisps keeping facts at once neither lose one nor give two the same ``p``
id. A conversation reads the file when it opens; the facts in force there join its own.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from wisp.facts.book import Fact, FactError
from wisp.home import KeptList

__all__ = ["SharedFacts"]

VERSION = 1


class SharedFacts:
    """``WISP_HOME/facts.json``: the permanent facts."""

    def __init__(self, home: Path) -> None:
        self._file = KeptList(
            home / "facts.json", Fact, field="facts", version=VERSION, error=FactError
        )
        self.path = self._file.path
        self.lock_path = self._file.lock_path

    def read(self) -> list[Fact]:
        """Every permanent fact, oldest first; none when there is no file yet. A file that
        does not read is a ``FactError`` naming it."""
        return self._file.read()

    def keep(self, fact: Fact) -> Fact:
        """``fact`` kept for good: a copy in scope ``permanent`` with the next ``p`` id."""

        def add(facts: list[Fact]) -> Fact:
            numbers = [int(f.id[1:]) for f in facts if f.id[1:].isdigit()]
            kept = msgspec.structs.replace(
                fact, id=f"p{max(numbers, default=0) + 1}", scope="permanent",
                superseded_by=None, deleted=False, supersedes=None,
            )  # fmt: skip
            facts.append(kept)
            return kept

        return self._file.change(add)

    def mark(
        self, fact_id: str, *, deleted: bool = False, superseded_by: str | None = None
    ) -> None:
        """A permanent fact deleted, or replaced (moved out of the store), kept in the file."""

        def marked(facts: list[Fact]) -> None:
            for fact in facts:
                if fact.id == fact_id:
                    fact.deleted = fact.deleted or deleted
                    fact.superseded_by = superseded_by or fact.superseded_by
                    return
            raise FactError(f"no permanent fact {fact_id!r} in {self.path}")

        self._file.change(marked)
