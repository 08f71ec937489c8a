"""Permanent facts: kept under ``WISP_HOME`` and shared by every conversation of this user.

``facts.json`` holds every permanent fact ever kept, deleted and replaced ones too, marked, as
the book keeps them. Every change is made under ``facts.lock`` (held exclusive) and written
atomically, so two wisps keeping facts at once neither lose one nor give two the same ``p``
id. A conversation reads the file when it opens; the facts in force there join its own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import msgspec

from wisp.facts.book import Fact, FactError
from wisp.home import ensure_private_dir, locked, open_lock, read_if_there, replace_atomically

__all__ = ["SharedFacts"]

VERSION = 1
_T = TypeVar("_T")


class _File(msgspec.Struct):
    version: int
    facts: list[Fact]


class SharedFacts:
    """``WISP_HOME/facts.json``: the permanent facts."""

    def __init__(self, home: Path) -> None:
        self.path = home / "facts.json"
        self.lock_path = home / "facts.lock"

    def read(self) -> list[Fact]:
        """Every permanent fact, oldest first; none when there is no file yet. A file that
        does not read is a ``FactError`` naming it."""
        try:
            raw = read_if_there(self.path)
        except OSError as exc:
            raise FactError(f"cannot read {self.path}: {exc.strerror}") from exc
        if not raw:
            return []
        try:
            stored = msgspec.json.decode(raw, type=_File)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise FactError(f"{self.path} cannot be read: {exc}; move it aside") from exc
        if stored.version != VERSION:
            raise FactError(f"{self.path}: version {stored.version} (this wisp reads {VERSION})")
        return stored.facts

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

        return self._change(add)

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

        self._change(marked)

    def _change(self, change: Callable[[list[Fact]], _T]) -> _T:
        with self._locked():
            facts = self.read()
            result = change(facts)
            body = msgspec.json.encode(_File(version=VERSION, facts=facts))
            try:
                replace_atomically(self.path, body)
            except OSError as exc:
                raise FactError(f"cannot write {self.path}: {exc.strerror}") from exc
            return result

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            ensure_private_dir(self.path.parent)
            fd = open_lock(self.lock_path)
        except OSError as exc:
            raise FactError(f"cannot lock {self.lock_path}: {exc.strerror}") from exc
        with locked(fd):
            yield
