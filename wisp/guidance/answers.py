"""The person's answers about guidance files, kept under ``WISP_HOME`` (docs/turn.md, "Guidance
files").

``guidance.json`` holds one answer per file and content: its real path, the SHA-256 of its
bytes, and whether the person accepted it. A "no" is kept as a "yes" is, so the same bytes are
never asked about again; a changed file has another SHA-256 and is asked about afresh. Every
change is made under ``guidance.lock`` and written atomically, so two wisps answering at once
lose neither answer. Only wisp writes here: ``WISP_HOME`` is hidden from confined commands.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from wisp.errors import WispError
from wisp.home import KeptList

VERSION = 1


class KeptAnswer(msgspec.Struct, frozen=True):
    path: str
    sha256: str
    accepted: bool


class GuidanceError(WispError):
    """``guidance.json`` cannot be read or written."""


class KeptAnswers:
    """``WISP_HOME/guidance.json``: the person's answers, by (real path, SHA-256)."""

    def __init__(self, home: Path) -> None:
        self._file = KeptList(
            home / "guidance.json", KeptAnswer, field="answers", version=VERSION,
            error=GuidanceError,
        )  # fmt: skip
        self.path = self._file.path
        self.lock_path = self._file.lock_path

    def read(self) -> list[KeptAnswer]:
        """Every answer kept; none when there is no file yet."""
        return self._file.read()

    def keep(self, path: str, sha256: str, *, accepted: bool) -> None:
        """The person's answer about ``path`` as it is now, replacing any about the same bytes."""

        def replaced(answers: list[KeptAnswer]) -> None:
            answers[:] = [a for a in answers if (a.path, a.sha256) != (path, sha256)]
            answers.append(KeptAnswer(path, sha256, accepted))

        self._file.change(replaced)
