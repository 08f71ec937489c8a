"""The approval dialog in the client's own UI: an ``elicitation/create`` form with one field,
``scope``. It reaches the person through the client, never the calling model; the gate races it
against the out-of-band request (docs/mcp.md, "Approvals"). The model's questions get a form of
their own, one field ``answer``, raced against the filed question the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wisp.desk.approval import dialog_lines
from wisp.policy.types import Answer, ApprovalQuestion, QuestionAnswer

SCOPES = ("once", "session", "project", "always")
SCOPE_TITLES = {
    "once": "Once: this command, this time",
    "session": "Session: this pattern, for this thread",
    "project": "Project: this pattern, in this directory",
    "always": "Always: this pattern, everywhere",
}


def approval_title(question: ApprovalQuestion) -> str:
    return f"wisp: approve command? ({question.level} risk)"


def approval_message(question: ApprovalQuestion) -> str:
    """The dialog's text: the title, then the request's lines as every client's dialog shows
    them (``wisp.desk.approval``: command, directory, level, reasons, pattern), then what accept
    and decline do."""
    lines = [approval_title(question), "", *dialog_lines(question)]
    lines.append("Accept runs it at the scope chosen; decline or cancel refuses it.")
    return "\n".join(lines)


def approval_schema() -> dict[str, Any]:
    """One field, ``scope``: an enum with the standard titles, ``once`` by default."""
    return {
        "type": "object",
        "title": "wisp: approve command?",
        "properties": {
            "scope": {
                "type": "string",
                "title": "Approve for",
                "oneOf": [{"const": scope, "title": SCOPE_TITLES[scope]} for scope in SCOPES],
                "default": "once",
            }
        },
        "required": ["scope"],
    }


def answer_of(action: str, content: dict[str, Any] | None) -> Answer:
    """accept → its scope (``once`` when none came); decline and cancel → deny."""
    if action != "accept":
        return "deny"
    scope = (content or {}).get("scope", "once")
    return scope if scope in SCOPES else "deny"  # type: ignore[return-value]


def can_elicit(request: Any) -> bool:
    """Whether this call's client can be asked mid-call: it declared elicitation, and the
    protocol era lets a server send it a request (the stateless era does not)."""
    session = request.session
    capabilities = session.client_capabilities
    if capabilities is None or capabilities.elicitation is None:
        return False
    return bool(session.can_send_request)


def elicitor(current: Callable[[], Any]) -> Callable[[ApprovalQuestion], Any]:
    """The ``alongside`` way for a thread: asks through the request ``current()`` gives (the
    thread's running call). Cancelling the wait withdraws the dialog: the SDK sends
    ``notifications/cancelled`` for a request its caller stopped waiting for."""

    async def ask(question: ApprovalQuestion) -> Answer | None:
        request = current()
        if request is None or not can_elicit(request):
            return None
        result = await request.session.elicit_form(
            approval_message(question), approval_schema(), related_request_id=request.request_id
        )
        return answer_of(result.action, result.content)

    return ask


# -- the model's questions ------------------------------------------------------------------------

QUESTION_TITLE = "wisp: the model asks you"


def question_message(question: str, options: list[str]) -> str:
    """The form's text: the title, the question, and what accept and decline do."""
    lines = [QUESTION_TITLE, "", question, ""]
    if options:
        lines.append("Accept sends the option chosen; decline answers nothing.")
    else:
        lines.append("Accept sends what you typed; decline answers nothing.")
    return "\n".join(lines)


def question_schema(options: list[str]) -> dict[str, Any]:
    """One field, ``answer``: free text, or an enum of the options (their own words as
    titles)."""
    answer: dict[str, Any] = {"type": "string", "title": "Answer"}
    if options:
        answer["oneOf"] = [{"const": option, "title": option} for option in options]
    return {
        "type": "object",
        "title": QUESTION_TITLE,
        "properties": {"answer": answer},
        "required": ["answer"],
    }


def question_answer_of(action: str, content: dict[str, Any] | None) -> QuestionAnswer:
    """accept → the answer given (empty when none came); decline and cancel → declined."""
    if action != "accept":
        return QuestionAnswer(declined=True, via="elicitation")
    value = (content or {}).get("answer", "")
    return QuestionAnswer(text=value if isinstance(value, str) else str(value), via="elicitation")


def question_elicitor(current: Callable[[], Any]) -> Callable[[str, list[str]], Any]:
    """The ``alongside`` way for a thread's questions, as ``elicitor`` is for its commands."""

    async def ask(question: str, options: list[str]) -> QuestionAnswer | None:
        request = current()
        if request is None or not can_elicit(request):
            return None
        result = await request.session.elicit_form(
            question_message(question, options),
            question_schema(options),
            related_request_id=request.request_id,
        )
        return question_answer_of(result.action, result.content)

    return ask
