"""What ``status`` says of the working directory's repository (protocol.md §3.3)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

GIT_SECONDS = 2.0  # a slow repository must not hold up the prompt


@dataclass(frozen=True, slots=True)
class GitState:
    branch: str | None = None
    dirty: bool | None = None
    added: int | None = None
    removed: int | None = None


class StatusReader:
    """Reads the branch and the uncommitted line counts with git, when there is a repository."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    async def read(self) -> GitState:
        branch = await self._git("rev-parse", "--abbrev-ref", "HEAD")
        if branch is None:
            return GitState()
        if branch == "HEAD":  # detached: the commit's first 8 characters
            branch = (await self._git("rev-parse", "--short=8", "HEAD")) or "HEAD"
        numstat = await self._git("diff", "HEAD", "--numstat")
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
        try:
            process = await asyncio.create_subprocess_exec(
                "git", *args, cwd=self.directory,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
            )  # fmt: skip
        except OSError:
            return None  # no git on this machine
        try:
            out, _ = await asyncio.wait_for(process.communicate(), GIT_SECONDS)
        except TimeoutError:
            process.kill()
            await process.wait()
            return None
        if process.returncode != 0:
            return None
        return out.decode(errors="replace").strip()
