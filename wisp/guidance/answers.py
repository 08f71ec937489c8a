"""The person's answers about guidance files, kept under ``WISP_HOME`` (docs/turn.md, "Guidance
files").

``guidance.json`` holds one answer per file and content: its real path, the SHA-256 of its
bytes, and whether the person accepted it. A "no" is kept as a "yes" is, so the same bytes are
never asked about again; a changed file has another SHA-256 and is asked about afresh. Every
change is made under ``guidance.lock`` and written atomically, so two wisps answering at once
lose neither answer. Only wisp writes here: ``WISP_HOME`` is hidden from confined commands.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import msgspec

from wisp.errors import WispError
from wisp.home import ensure_private_dir, locked, open_lock, read_if_there, replace_atomically

VERSION = 1


class KeptAnswer(msgspec.Struct, frozen=True):
    path: str
    sha256: str
    accepted: bool


class _File(msgspec.Struct):
    version: int
    answers: list[KeptAnswer]


class GuidanceError(WispError):
    """``guidance.json`` cannot be read or written."""


class KeptAnswers:
    """``WISP_HOME/guidance.json``: the person's answers, by (real path, SHA-256)."""

    def __init__(self, home: Path) -> None:
        self.path = home / "guidance.json"
        self.lock_path = home / "guidance.lock"

    def read(self) -> list[KeptAnswer]:
        """Every answer kept; none when there is no file yet."""
        try:
            raw = read_if_there(self.path)
        except OSError as exc:
            raise GuidanceError(f"cannot read {self.path}: {exc.strerror}") from exc
        if not raw:
            return []
        try:
            stored = msgspec.json.decode(raw, type=_File)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise GuidanceError(f"{self.path} cannot be read: {exc}; move it aside") from exc
        if stored.version != VERSION:
            raise GuidanceError(
                f"{self.path}: version {stored.version} (this wisp reads {VERSION})"
            )
        return stored.answers

    def keep(self, path: str, sha256: str, *, accepted: bool) -> None:
        """The person's answer about ``path`` as it is now, replacing any about the same bytes."""
        with self._locked():
            answers = [a for a in self.read() if (a.path, a.sha256) != (path, sha256)]
            answers.append(KeptAnswer(path, sha256, accepted))
            body = msgspec.json.encode(_File(version=VERSION, answers=answers))
            try:
                replace_atomically(self.path, body)
            except OSError as exc:
                raise GuidanceError(f"cannot write {self.path}: {exc.strerror}") from exc

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            ensure_private_dir(self.path.parent)
            fd = open_lock(self.lock_path)
        except OSError as exc:
            raise GuidanceError(f"cannot lock {self.lock_path}: {exc.strerror}") from exc
        with locked(fd):
            yield
