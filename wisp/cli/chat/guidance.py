"""The chat's guidance files (docs/turn.md, "Guidance files"): asked about as `approval` lines
with `kind: "guidance"` (the plain chat draws them on the terminal, wisp-tui in a dialog), once,
before the first turn; with nobody to ask, left out and said on stderr. A file accepted changes
the instructions, so the conversation is opened again on them (``SessionBuilder.reopened``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from wisp import protocol as p
from wisp.chat.bridge import Waiters, Withdrawn, new_id
from wisp.guidance import GuidanceFile

if TYPE_CHECKING:
    from wisp.cli.chat.session import ChatSession

YES = frozenset({"yes", "y"})


class ChatGuidance:
    """Settles one chat session's guidance files, once."""

    def __init__(
        self, session: ChatSession, waiters: Waiters, lines: Callable[[p.Outbound], None]
    ) -> None:
        self.session = session
        self.waiters = waiters
        self.lines = lines
        self.done = False

    async def settle(self, can_ask: bool) -> None:
        """Ask about each file waiting (``can_ask``), or leave them out and say so on stderr;
        either way only once a session."""
        guidance = self.session.builder.guidance
        if self.done or guidance is None:
            return
        self.done = True
        if not can_ask:
            for line in guidance.unasked():
                self.session.context.warn(line)
            return
        if not guidance.settled and await guidance.settle(self.ask):
            session = self.session
            session.conversation = session.builder.reopened(
                session.recorder,
                session.conversation,
                session.runner,
                fresh=not session.options.resume,
            )
        for line in guidance.left_out_lines():
            self.lines(p.Note(text=line))

    async def ask(self, file: GuidanceFile, reason: str) -> bool | None:
        """The file shown whole; True for a yes, False for any other answer, None when the
        dialog was withdrawn (the input ended)."""
        key = new_id()
        self.lines(_approval(key, file, reason))
        try:
            answer = await self.waiters.wait(key)
        except Withdrawn:
            self.lines(p.Withdrawn(id=key))
            return None
        decision = getattr(answer, "decision", None)
        return isinstance(decision, str) and decision.strip().lower() in YES


def _approval(key: str, file: GuidanceFile, reason: str) -> p.Approval:
    return p.Approval(
        id=key,
        command=file.path,
        line=file.path,
        pattern="",
        directory=str(Path(file.path).parent),
        level="moderate",
        reasons=[reason],
        kind="guidance",
        guidance=p.ApprovalGuidance(
            path=file.path, bytes=file.size, sha256=file.sha256, text=file.text, reason=reason
        ),
    )
