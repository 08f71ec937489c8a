"""The person's answers through the client: a command's approval as ``session/request_permission``
(the command, directory, level and reasons in its title and content, so a client that shows
only the title still shows what runs), a question with options as the same request, one
option an answer (docs/acp.md, "Approvals and questions"), and a guidance file, shown whole."""

from __future__ import annotations

from typing import Any

from acp import text_block, tool_content
from acp.schema import PermissionOption

from wisp.desk.approval import dialog_lines
from wisp.policy.types import Answer, ApprovalQuestion, QuestionAnswer

APPROVAL_OPTIONS: tuple[tuple[str, str, str], ...] = (
    ("once", "allow_once", "Allow once"),
    ("session", "allow_always", "Allow this pattern for this session"),
    ("project", "allow_always", "Allow this pattern in this project"),
    ("always", "allow_always", "Allow this pattern always, everywhere"),
    ("deny", "reject_once", "Reject"),
)
"""Each option: the gate's answer (its id), ACP's kind, and its name."""

DECLINE = "decline"
"""The option that answers a question with nothing."""

GUIDANCE_OPTIONS: tuple[tuple[str, str, str], ...] = (
    ("yes", "allow_always", "Use it (asked again only when it changes)"),
    ("no", "reject_always", "Leave it out"),
)
"""A guidance file's options: its answer, ACP's kind and its name (docs/turn.md, "Guidance
files")."""


class TurnCancelled(Exception):
    """The client answered ``cancelled``: it cancelled the turn, which is no answer."""


def approval_options() -> list[PermissionOption]:
    return [
        PermissionOption(option_id=answer, kind=kind, name=name)  # type: ignore[arg-type]
        for answer, kind, name in APPROVAL_OPTIONS
    ]


def approval_title(question: ApprovalQuestion) -> str:
    """``Run git push origin main? (moderate: pushes to a remote) in /work/app``."""
    command = question.line or question.command
    reasons = f": {'; '.join(question.reasons)}" if question.reasons else ""
    return f"Run {command}? ({question.level}{reasons}) in {question.directory}"


def approval_text(question: ApprovalQuestion) -> str:
    """The dialog's lines, as every client's dialog shows a request (``wisp.desk.approval``)."""
    return "\n".join(dialog_lines(question))


def approval_content(question: ApprovalQuestion) -> list[Any]:
    return [tool_content(text_block(approval_text(question)))]


def answer_of(outcome: Any) -> Answer:
    """The chosen option as the gate's answer; an unknown option refuses. ``TurnCancelled`` for
    a cancelled outcome."""
    if getattr(outcome, "outcome", None) != "selected":
        raise TurnCancelled
    chosen = outcome.option_id
    known = {answer for answer, _kind, _name in APPROVAL_OPTIONS}
    return chosen if chosen in known else "deny"  # type: ignore[return-value]


def guidance_options() -> list[PermissionOption]:
    return [
        PermissionOption(option_id=answer, kind=kind, name=name)  # type: ignore[arg-type]
        for answer, kind, name in GUIDANCE_OPTIONS
    ]


def guidance_accepted(outcome: Any) -> bool | None:
    """True to use the file, False to leave it out; None for a cancelled outcome (no answer:
    it is asked about again in a later session)."""
    if getattr(outcome, "outcome", None) != "selected":
        return None
    return outcome.option_id == "yes"


def question_options(options: list[str]) -> list[PermissionOption]:
    """Each option an answer (its index as id, so any text fits), and a way to decline."""
    chosen = [
        PermissionOption(option_id=str(index), kind="allow_once", name=option)
        for index, option in enumerate(options)
    ]
    return [*chosen, PermissionOption(option_id=DECLINE, kind="reject_once", name="Decline")]


def question_answer_of(outcome: Any, options: list[str]) -> QuestionAnswer:
    """The option chosen, or declined; ``TurnCancelled`` for a cancelled outcome."""
    if getattr(outcome, "outcome", None) != "selected":
        raise TurnCancelled
    chosen = outcome.option_id
    if chosen.isdigit() and int(chosen) < len(options):
        return QuestionAnswer(text=options[int(chosen)], via="elicitation")
    return QuestionAnswer(declined=True, via="elicitation")
