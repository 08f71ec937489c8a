"""The changes under the watched folders (docs/watch.md, "Triggers"): inotify through watchfiles'
``awatch``, never polling; a batch closes once the folders have been quiet for ``STEP_MS`` (an
editor's save is several writes and a rename), or after ``DEBOUNCE_MS`` of changes without a
pause; what is passed over (``ignore.py``) and what was never there for a command to see
(``pending.py``) never reaches the loop."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wisp.errors import WispError
from wisp.watch.ignore import GitIgnore, PassedOver
from wisp.watch.pending import Pending, counts, seen_in

STEP_MS = 10
"""The quiet that closes a batch, and how often watchfiles looks: a change waits one to two
steps before its run starts. watchfiles' default is 50: measured against entr, 10 starts a
command about as soon as entr does."""
DEBOUNCE_MS = 400
"""The longest a batch is held while changes keep coming (watchfiles' default is 1,600)."""


class WatchError(WispError):
    """A watched path could not be watched."""


class Watcher:
    """Batches of changed paths under ``roots``, each path kept once a batch.

    A folder is watched with everything beneath it. A file is watched through its folder, on
    its own (not what lies beneath it), with the rest of the folder passed over: an editor
    that saves by renaming a new file over the old one would leave a watch on the file itself
    watching nothing."""

    def __init__(
        self,
        roots: Sequence[Path],
        *,
        passed_over: PassedOver,
        git: GitIgnore,
        step_ms: int = STEP_MS,
        debounce_ms: int = DEBOUNCE_MS,
    ) -> None:
        self.folders = [root for root in roots if root.is_dir()]
        files = [root for root in roots if not root.is_dir()]
        self.beside = sorted(
            {file.parent for file in files if not any(map(file.is_relative_to, self.folders))}
        )
        """The folders of the files watched (those in no folder watched), each watched for its
        files alone."""
        self.passed_over = passed_over
        self.git = git
        self.step_ms = step_ms
        self.debounce_ms = debounce_ms

    async def feed(self, pending: Pending, ready: asyncio.Event) -> None:
        """Every batch into ``pending`` until cancelled; ``ready`` set once the kernel watches
        every path, so a change from then on is seen."""
        both = [(self.folders, True), (self.beside, False)]
        groups = [(paths, deep) for paths, deep in both if paths]
        started = [asyncio.Event() for _ in groups]
        try:
            async with asyncio.TaskGroup() as tasks:
                for (paths, deep), event in zip(groups, started, strict=True):
                    tasks.create_task(self._feed(pending, paths, deep, event))
                for event in started:
                    await event.wait()
                ready.set()
        except* OSError as failed:
            error = failed.exceptions[0]
            raise WatchError(f"cannot watch {getattr(error, 'filename', '')}: {error}") from None

    async def _feed(
        self, pending: Pending, paths: list[Path], deep: bool, started: asyncio.Event
    ) -> None:
        from watchfiles import awatch  # anyio and the Rust watcher: only once a watch runs

        changes = awatch(
            *paths,
            watch_filter=self.passed_over,
            step=self.step_ms,
            debounce=self.debounce_ms,
            recursive=deep,
            force_polling=False,
            ignore_permission_denied=True,  # a folder wisp may not read holds no one's edit
        )
        async with contextlib.aclosing(changes):
            first = asyncio.ensure_future(anext(changes))
            # FIFO: that task's first step runs before this one goes on, and it sets up the
            # kernel's watches (watchfiles' RustNotify) before it first waits.
            await asyncio.sleep(0)
            started.set()
            await self._add(await first, pending)
            async for batch in changes:
                await self._add(batch, pending)

    async def _add(self, batch: set[tuple[Any, str]], pending: Pending) -> None:
        """The batch's changes that count, less what git ignores, into ``pending``."""
        changed = {path: seen for path, seen in seen_in(batch).items() if counts(path, seen)}
        ignored = await self.git.ignored(list(changed))
        kept = {path: seen for path, seen in changed.items() if path not in ignored}
        if kept:
            pending.add(kept)
