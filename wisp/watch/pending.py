"""What changed since the last run began (docs/watch.md, "Triggers"), and which changes count.

A path that is there when it is looked at counts. One that is gone counts only when it was
there before the watch saw it change and its own removal was seen: a file a tool made and
removed or renamed away (pytest writes its cache in a temporary folder, renames it into place
and removes the folder it made again; an editor writes a scratch copy) was never there for the
command to see, and the files of a folder renamed away go with it, unseen one by one. The
events of such a making may come in several batches on a busy machine, so a change is judged
again when its run takes it up.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from pathlib import Path

import msgspec

ADDED, DELETED = 1, 3
"""watchfiles' ``Change.added`` and ``Change.deleted``."""


class Seen(msgspec.Struct):
    """What the watch saw of one path since it was last taken up."""

    made: bool
    """Its first change was its making: it was not there before."""
    removed: bool
    """A change removed it."""


def seen_in(batch: Iterable[tuple[int, str]]) -> dict[Path, Seen]:
    """Each path of a batch, in order, and what the batch did to it."""
    seen: dict[Path, Seen] = {}
    for change, path in sorted(batch, key=lambda item: item[1]):
        each = seen.setdefault(Path(path), Seen(made=False, removed=False))
        each.made = each.made or change == ADDED
        each.removed = each.removed or change == DELETED
    return seen


def counts(path: Path, seen: Seen) -> bool:
    """Whether a change to ``path`` is one: it is there, or it was there and was removed."""
    return os.path.lexists(path) or (seen.removed and not seen.made)


class Pending:
    """The changes that came since the last run began, in the order they came; ``arrived`` is
    set while there are any."""

    def __init__(self) -> None:
        self._seen: dict[Path, Seen] = {}
        self._vanished: set[Path] = set()
        """The paths the last take found made and gone: their removal, should it come after,
        is no news either."""
        self.arrived = asyncio.Event()

    def add(self, changed: dict[Path, Seen]) -> None:
        for path, seen in changed.items():
            if path in self._vanished and not os.path.lexists(path):
                continue
            known = self._seen.setdefault(path, seen)
            known.removed = known.removed or seen.removed
        if self._seen:
            self.arrived.set()

    def peek(self) -> list[Path]:
        """Every change so far, left pending."""
        return list(self._seen)

    def take(self) -> list[Path]:
        """Every change so far that still counts, and none pending after."""
        paths = [path for path, seen in self._seen.items() if counts(path, seen)]
        self._vanished = set(self._seen).difference(paths)
        self._seen.clear()
        self.arrived.clear()
        return paths
