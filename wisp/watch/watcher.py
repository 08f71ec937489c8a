"""The changes under the watched folders (docs/watch.md, "Triggers"): inotify through watchfiles'
``awatch``, never polling; a batch closes once the folders have been quiet for ``STEP_MS`` (an
editor's save is several writes and a rename), or after ``DEBOUNCE_MS`` of changes without a
pause; what is passed over (``ignore.py``) never reaches the loop."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterable, Sequence
from pathlib import Path

from wisp.watch.ignore import GitIgnore, PassedOver

STEP_MS = 10
"""The quiet that closes a batch, and how often watchfiles looks: a change waits one to two
steps before its run starts. watchfiles' default is 50; measured in bench/watch.py against
entr, which starts at the first event."""
DEBOUNCE_MS = 400
"""The longest a batch is held while changes keep coming (watchfiles' default is 1,600)."""


ADDED = 1
"""watchfiles' ``Change.added``."""


def lasting(batch: Iterable[tuple[int, str]]) -> list[Path]:
    """The batch's paths, less those it added that are gone already: a file a tool made and
    removed or renamed away (pytest's cache, made in a temporary folder then renamed; an
    editor's scratch file) was never there for the command to see. A file that was there and
    is gone now is a change like any other."""
    added = {path for change, path in batch if change == ADDED}
    paths = {path for _, path in batch}
    return sorted(Path(path) for path in paths if path not in added or os.path.lexists(path))


class Pending:
    """The changes that came since the last run began, in the order they came; ``arrived`` is
    set while there are any."""

    def __init__(self) -> None:
        self._paths: dict[Path, None] = {}
        self.arrived = asyncio.Event()

    def add(self, paths: Sequence[Path]) -> None:
        self._paths.update(dict.fromkeys(paths))
        self.arrived.set()

    def peek(self) -> list[Path]:
        """Every change so far, left pending."""
        return list(self._paths)

    def take(self) -> list[Path]:
        """Every change so far, and none pending after."""
        paths = list(self._paths)
        self._paths.clear()
        self.arrived.clear()
        return paths


class Watcher:
    """Batches of changed paths under ``roots``, each path kept once a batch."""

    def __init__(
        self,
        roots: Sequence[Path],
        *,
        passed_over: PassedOver,
        git: GitIgnore,
        step_ms: int = STEP_MS,
        debounce_ms: int = DEBOUNCE_MS,
    ) -> None:
        self.roots = list(roots)
        self.passed_over = passed_over
        self.git = git
        self.step_ms = step_ms
        self.debounce_ms = debounce_ms

    async def batches(self) -> AsyncIterator[list[Path]]:
        """Each batch of changes, what git ignores left out; a batch left empty is none."""
        from watchfiles import awatch  # anyio and the Rust watcher: only once a watch runs

        changes = awatch(
            *self.roots,
            watch_filter=self.passed_over,
            step=self.step_ms,
            debounce=self.debounce_ms,
            force_polling=False,
        )
        async for batch in changes:
            paths = lasting(batch)
            ignored = await self.git.ignored(paths)
            kept = [path for path in paths if path not in ignored]
            if kept:
                yield kept

    async def feed(self, pending: Pending) -> None:
        """Every batch into ``pending``, until cancelled."""
        async for batch in self.batches():
            pending.add(batch)
