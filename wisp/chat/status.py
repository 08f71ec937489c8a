"""What ``status`` says of the working directory's repository (docs/protocol.md, "`status`").

Nothing a repository configures may run unconfined (docs/sandbox.md, "Threat model"):
``.git/config`` can name programs (``core.fsmonitor``, filters, ``diff.external``, hooks) and a
command can set them. So the branch is read from the files (``.git/HEAD``, through a worktree's
``gitdir:`` file), with no program run; and the line counts come from a git the host finds outside
the writable roots and runs confined, with what it may run turned off besides (filters cannot be:
their names are the repository's). Where the host cannot do that, there are no counts.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

GIT_SECONDS = 5.0
"""A slow repository must not hold up the next message for long. The confined git starts through
the sandbox helper, a Python start (about 0.15 s here, where git's own diff takes 0.01 s), so
a loaded machine needs some room."""
HEAD_BYTES = 4096  # a HEAD or a gitdir file is one short line

GitArgv = Callable[[Sequence[str]], "list[str] | None"]
"""Turns git's arguments into the argv that runs git for wisp: by absolute path outside the
writable roots, confined; None when it cannot be run so."""

GIT_OPTIONS = (
    "--no-pager",
    "--no-optional-locks",  # never write the index: a read is a read
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "diff.external=",
    "-c", "core.pager=cat",
)  # fmt: skip
"""Switch off, on the command line (which outranks every config file), the programs a
repository's config can name that these reads would otherwise run."""

GIT_ENVIRONMENT = {
    "PATH": "/usr/bin:/bin",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
}
"""All of git's environment: none of wisp's own (a ``GIT_DIR`` or ``GIT_CONFIG_*`` there would
steer it), no system or global config."""

_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class GitState(msgspec.Struct, frozen=True):
    branch: str | None = None
    dirty: bool | None = None
    added: int | None = None
    removed: int | None = None


class StatusReader:
    """Reads the branch from the repository's files and the uncommitted line counts with a
    confined git, when there is a repository."""

    def __init__(self, directory: Path, git_argv: GitArgv | None = None) -> None:
        self.directory = directory
        self.git_argv = git_argv

    async def read(self) -> GitState:
        branch = await asyncio.to_thread(read_branch, self.directory)
        if branch is None:
            return GitState()
        numstat = await self._git("diff", "HEAD", "--numstat", "--no-ext-diff", "--no-textconv")
        if numstat is None:
            return GitState(branch=branch)
        added = removed = 0
        for row in numstat.splitlines():
            parts = row.split("\t")
            if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
                added += int(parts[0])
                removed += int(parts[1])
        return GitState(branch, bool(numstat.strip()), added, removed)

    async def _git(self, *args: str) -> str | None:
        argv = self.git_argv([*GIT_OPTIONS, *args]) if self.git_argv else None
        if argv is None:
            return None  # no git outside the writable roots, or no confinement
        try:
            process = await asyncio.create_subprocess_exec(
                *argv, cwd=self.directory, env=GIT_ENVIRONMENT,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
                start_new_session=True,
            )  # fmt: skip
        except OSError:
            return None
        try:
            out, _ = await asyncio.wait_for(process.communicate(), GIT_SECONDS)
        except TimeoutError:
            process.kill()
            await process.wait()
            return None
        if process.returncode != 0:
            return None
        return out.decode(errors="replace").strip()


def read_branch(directory: Path) -> str | None:
    """The branch checked out for ``directory`` (as ``git rev-parse --abbrev-ref HEAD`` says
    it), or a detached commit's first 8 characters; None outside a repository."""
    git_dir = find_git_dir(directory)
    head = _read_small(git_dir / "HEAD") if git_dir is not None else None
    if head is None:
        return None
    head = head.strip()
    if head.startswith("ref:"):
        ref = head[4:].strip()
        return ref.removeprefix("refs/heads/") or None
    return head[:8] if _COMMIT.fullmatch(head) else None


def find_git_dir(directory: Path) -> Path | None:
    """The repository folder of ``directory`` or the nearest folder above: ``.git`` itself, or
    where a ``.git`` file's ``gitdir:`` line points (a worktree, a submodule)."""
    for folder in (directory, *directory.parents):
        dot = folder / ".git"
        if dot.is_dir() and (dot / "HEAD").exists():
            return dot
        if dot.is_file():
            text = _read_small(dot)
            if text is None or not text.startswith("gitdir:"):
                return None
            return folder / text[len("gitdir:") :].strip()
    return None


def _read_small(path: Path) -> str | None:
    """A short regular file's text; None for anything else (a FIFO planted as ``HEAD`` must
    not hang the status line)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, HEAD_BYTES).decode(errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)
