"""What a watch passes over (docs/watch.md, "Triggers"): a change no one means as one, and
whatever git ignores, asked of git itself.

Passed over by name, beneath each watched folder: ``.git/`` and the other version-control
folders, the caches tools write as they run (``__pycache__``, ``.pytest_cache``, ``node_modules``
…) and editors' swap and backup files: outside a repository nothing else would keep a test run
from starting itself again by the bytecode it writes. Passed over by place: wisp's home, where
each run's ``watch.run`` is written. Passed over by git: ``git check-ignore`` answers for a
batch at once, so nested ``.gitignore`` files, ``.git/info/exclude`` and the global excludes
file count as git counts them, and a tracked file is never ignored.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from wisp.diagnostics import logger

GitArgv = Callable[[Sequence[str]], list[str] | None]
"""The argv that runs git with these arguments, or None when there is no git wisp may run.
The watched folder is writable by the model's commands, its ``.git/config`` included, so the
face gives a git found outside the writable roots and confined as they are
(``wisp.cli.building.own_programs``)."""

SKIPPED_FOLDERS = frozenset({
    ".git", ".hg", ".svn", ".jj",
    "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".tox",
    ".venv", "node_modules", ".idea",
})  # fmt: skip
"""Folders whose changes are never the person's edit (watchfiles' own list, and a few more)."""

SKIPPED_NAMES = re.compile(r"\.py[cod]$|\.sw.$|~$|^\.#|^\.DS_Store$|^4913$|\.___jb_...___$")
"""Bytecode, and editors' scratch files: vim's swap files and its write test (``4913``),
backups, Emacs' locks, JetBrains' safe-write copies."""


class PassedOver:
    """watchfiles' filter: whether a changed path is kept (True) or passed over."""

    def __init__(self, roots: Sequence[Path], skipped: Sequence[Path] = ()) -> None:
        self.roots = sorted(roots, key=lambda root: len(root.parts), reverse=True)
        """Deepest first: a path is read beneath the nearest folder watched."""
        self.skipped = list(skipped)

    def __call__(self, _change: object, path: str) -> bool:
        changed = Path(path)
        if any(changed.is_relative_to(place) for place in self.skipped):
            return False
        root = next((root for root in self.roots if changed.is_relative_to(root)), None)
        if root is None:
            return False  # beside a watched file: its folder is watched for it alone
        # Only the parts beneath the watched folder count: a project kept in ~/.venv/x is
        # still watched.
        parts = changed.relative_to(root).parts
        if not parts:
            return True  # the watched file, or folder, itself
        *folders, name = parts
        skipped = any(folder in SKIPPED_FOLDERS for folder in folders) or name in SKIPPED_FOLDERS
        return not (skipped or SKIPPED_NAMES.search(name))


class GitIgnore:
    """Which of a batch's paths git ignores, asked of the repositories the watched folders
    are in; a folder in none ignores nothing."""

    def __init__(self, repositories: Sequence[Path], git: GitArgv) -> None:
        self.repositories = sorted(repositories, key=lambda top: len(top.parts), reverse=True)
        self.git = git

    @classmethod
    async def around(cls, roots: Sequence[Path], git: GitArgv) -> GitIgnore:
        """The repositories that hold ``roots``, found by git; none when there is no git wisp
        may run."""
        tops: set[Path] = set()
        for root in roots:
            folder = root if root.is_dir() else root.parent
            answer = await _git(git, folder, "rev-parse", "--show-toplevel")
            if answer is not None and answer.strip():
                tops.add(Path(answer.decode(errors="surrogateescape").strip()))
        return cls(sorted(tops), git)

    async def ignored(self, paths: Sequence[Path]) -> set[Path]:
        """The paths git ignores, each asked of the deepest repository holding it."""
        by_top: dict[Path, list[Path]] = {}
        for path in paths:
            top = next((top for top in self.repositories if path.is_relative_to(top)), None)
            if top is not None:
                by_top.setdefault(top, []).append(path)
        ignored: set[Path] = set()
        for top, inside in by_top.items():
            ignored |= await self._check(top, inside)
        return ignored

    async def _check(self, top: Path, paths: list[Path]) -> set[Path]:
        names = b"\0".join(bytes(path.relative_to(top)) for path in paths) + b"\0"
        answer = await _git(self.git, top, "check-ignore", "--stdin", "-z", stdin=names)
        if not answer:
            return set()
        return {top / name.decode(errors="surrogateescape") for name in answer.split(b"\0") if name}


async def _git(git: GitArgv, where: Path, *words: str, stdin: bytes | None = None) -> bytes | None:
    """git's stdout, or None when it failed or there is no git to run: exit 1 is
    check-ignore's "nothing ignored" and 128 a folder outside any repository, neither worth a
    word; anything else is logged."""
    argv = git(["-C", str(where), *words])
    if argv is None:
        return None
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate(stdin)
    if process.returncode == 0:
        return out
    if process.returncode not in (1, 128):
        logger.info("git %s in %s: exit %s: %s", words[0], where, process.returncode, err[-200:])
    return None
