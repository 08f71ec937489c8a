"""The face a session opens for: what it can do, and who approves and answers through it."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from wisp import protocol as p
from wisp.chat.asker import TerminalAsker
from wisp.chat.bridge import ProtocolApprover, ProtocolAsker, Waiters
from wisp.cli.building.runner import ReadLine, terminal_approver
from wisp.policy.types import ApprovalQuestion, Approver, Asker
from wisp.tools.ask import NobodyAsker


class Face(msgspec.Struct, frozen=True):
    """What the face that opens the session can do. A chat (plain or ``--json``) asks over the
    protocol (``protocol``); the one-shot asks on the terminal when stdin is one."""

    readline: ReadLine | None = None
    is_terminal: bool = False
    write: Callable[[str], None] | None = None
    protocol: bool = False
    asks_via: str = "json"
    """The ``via`` and ``ways`` of the model's questions: ``json`` or ``terminal``."""


def askers_for(
    face: Face, waiters: Waiters, emit: Callable[[p.Outbound], None]
) -> tuple[Approver, Asker]:
    """Who approves commands and answers the model's questions for ``face``: over the
    protocol's dialogs, on the terminal, or nobody."""
    if face.protocol:
        approver = ProtocolApprover(
            waiters,
            show=lambda key, question: emit(_approval_line(key, question)),
            withdrawn=lambda key: emit(p.Withdrawn(id=key)),
        )
        asker = ProtocolAsker(
            waiters,
            show=lambda key, text, options, timeout: emit(
                p.Question(id=key, question=text, options=options, timeout_seconds=timeout)
            ),
            withdrawn=lambda key: emit(p.Withdrawn(id=key)),
            note=lambda text: emit(p.Note(text=text)),
            ways=[face.asks_via],
            via=face.asks_via,
        )
        return approver, asker
    approver = terminal_approver(face.readline, face.is_terminal)
    if face.readline is not None and face.write is not None:
        return approver, TerminalAsker(face.readline, face.write)
    return approver, NobodyAsker()


def _approval_line(key: str, question: ApprovalQuestion) -> p.Approval:
    return p.Approval(
        id=key,
        command=question.command,
        line=question.line,
        pattern=question.pattern,
        directory=str(question.directory),
        level=question.level,
        reasons=list(question.reasons),
    )
