"""A session's guidance: the files found when it starts, which of them it uses, and which wait
for the person (docs/turn.md, "Guidance files").

A file is used only when the person accepted those very bytes. One not accepted yet, or changed
since it was, waits: a face that can ask shows it whole and keeps the answer (``settle``); a
face that cannot (the one-shot, ``wisp mcp``, a front end that declared no ``guidance``) leaves
it out and says so on stderr (``unasked``). Each session settles once, before its first turn.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import msgspec

from wisp.guidance.answers import KeptAnswer, KeptAnswers
from wisp.guidance.files import GuidanceFile, LeftOut, found

NOT_ACCEPTED = "not accepted yet"
CHANGED = "changed since accepted"
REFUSED = "refused"

Ask = Callable[[GuidanceFile, str], Awaitable[bool | None]]
"""Shows a waiting file (with why it waits) and returns the person's answer: True to use it,
False to refuse it, None when nobody answered (nothing is kept)."""


class Waiting(msgspec.Struct, frozen=True):
    file: GuidanceFile
    reason: str
    """``not accepted yet`` or ``changed since accepted``."""


class SessionGuidance:
    """The guidance files of one session, read once when it starts."""

    def __init__(self, files: list[GuidanceFile | LeftOut], answers: KeptAnswers) -> None:
        self.answers = answers
        self.order = [file.path for file in files]
        self.used: list[GuidanceFile] = []
        self.waiting: list[Waiting] = []
        self.left_out: list[LeftOut] = [file for file in files if isinstance(file, LeftOut)]
        kept = answers.read()
        for file in files:
            if isinstance(file, GuidanceFile):
                self._sort(file, kept)

    @classmethod
    def read(cls, working_directory: Path, home: Path) -> SessionGuidance:
        """The guidance files of ``working_directory``, read now, and the answers kept."""
        return cls(found(working_directory, home), KeptAnswers(home))

    @property
    def settled(self) -> bool:
        """Nothing waits for the person any more."""
        return not self.waiting

    async def settle(self, ask: Ask) -> bool:
        """Ask about each waiting file, keep each answer; True when a file was accepted (the
        instructions change)."""
        changed = False
        waiting, self.waiting = self.waiting, []
        for item in waiting:
            answer = await ask(item.file, item.reason)
            if answer is None:
                self.left_out.append(LeftOut(item.file.path, item.reason))
                continue
            self.answers.keep(item.file.path, item.file.sha256, accepted=answer)
            if answer:
                self.used.append(item.file)
                changed = True
            else:
                self.left_out.append(LeftOut(item.file.path, REFUSED))
        self.used.sort(key=lambda file: self.order.index(file.path))
        return changed

    def unasked(self) -> list[str]:
        """Settled without asking: every file waiting is left out. The lines that say, one per
        file left out, which and why (for stderr)."""
        self.left_out += [LeftOut(item.file.path, item.reason) for item in self.waiting]
        self.waiting = []
        return self.left_out_lines()

    def left_out_lines(self) -> list[str]:
        return [f"guidance left out: {file.path}: {_why(file.reason)}" for file in self.left_out]

    def layer(self) -> str | None:
        """The instructions' guidance layer: each file used, under a heading naming it; None
        when none is used."""
        texts = [f"Guidance from {file.path}:\n{file.text.strip()}" for file in self.used]
        return "\n\n".join(texts) or None

    def recorded(self, extension: str | None) -> str | None:
        """``session.start``'s ``systemPromptExtension``: the operator's layer, then each file
        used with its SHA-256 (docs/logging.md)."""
        texts = [extension.strip()] if extension and extension.strip() else []
        texts += [
            f"Guidance from {file.path} (sha256 {file.sha256}):\n{file.text.strip()}"
            for file in self.used
        ]
        return "\n\n".join(texts) or None

    def _sort(self, file: GuidanceFile, kept: list[KeptAnswer]) -> None:
        mine = [answer for answer in kept if answer.path == file.path]
        same = [answer for answer in mine if answer.sha256 == file.sha256]
        if same:
            if same[-1].accepted:
                self.used.append(file)
            else:
                self.left_out.append(LeftOut(file.path, REFUSED))
        elif any(answer.accepted for answer in mine):
            self.waiting.append(Waiting(file, CHANGED))
        else:
            self.waiting.append(Waiting(file, NOT_ACCEPTED))


def _why(reason: str) -> str:
    if reason in (NOT_ACCEPTED, CHANGED):
        return f"{reason} (wisp chat in this folder shows it and asks)"
    if reason == REFUSED:
        return "refused when it was shown"
    return reason
