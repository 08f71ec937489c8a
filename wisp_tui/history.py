"""Input history (docs/tui.md, "The input"): the lines sent, kept in `WISP_HOME/history`, one JSON
string a line."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

import msgspec

LIMIT = 100
"""The most lines kept, in memory and on disk; the oldest go first."""


def history_path(env: Mapping[str, str] | None = None) -> Path:
    """`$WISP_HOME/history`, `WISP_HOME` defaulting to `~/.wisp`."""
    env = os.environ if env is None else env
    home = env.get("WISP_HOME") or str(Path(env.get("HOME") or Path.home()) / ".wisp")
    return Path(home).expanduser() / "history"


class History:
    """The sent lines, oldest first; commands are stored with their `!`."""

    def __init__(self, path: Path | None, limit: int = LIMIT) -> None:
        self.path = path
        self.limit = limit
        self.lines: list[str] = self._load()

    def _load(self) -> list[str]:
        if self.path is None:
            return []
        lines: list[str] = []
        with contextlib.suppress(OSError):
            for raw in self.path.read_text(encoding="utf-8").splitlines():
                with contextlib.suppress(ValueError):
                    line = msgspec.json.decode(raw)
                    if isinstance(line, str) and line:
                        lines.append(line)
        return lines[-self.limit :]

    def add(self, line: str) -> None:
        """Append `line` and save; a failed write is ignored."""
        if not line or (self.lines and self.lines[-1] == line):
            return
        self.lines.append(line)
        is_over = len(self.lines) > self.limit
        del self.lines[: -self.limit]
        if self.path is not None:
            with contextlib.suppress(OSError):
                self._save(line, rewrite=is_over)

    def _save(self, line: str, *, rewrite: bool) -> None:
        assert self.path is not None
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if rewrite else os.O_APPEND)
        fd = os.open(self.path, flags, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            os.fchmod(file.fileno(), 0o600)
            lines = self.lines if rewrite else [line]
            file.writelines(msgspec.json.encode(item).decode() + "\n" for item in lines)
