"""The line wisp words for each recorded event, the same for every face (the words are listed
in docs/protocol.md). The ``output`` object an event carries is in ``output_page``; the plain
chat's fold and footer in ``fold``.

Pure functions over an event's typed details (the registry's Details Structs, matched by type),
so the JSON face and the plain chat word every line the same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar

from msgspec import UNSET, UnsetType

from wisp.agent.checks import thought_line
from wisp.audit.details import Details
from wisp.audit.kinds import (
    ApprovalDecided,
    ApprovalPending,
    ApprovalSettled,
    ClassifierVerdict,
    CommandOutcome,
    CommandTyped,
    ContextCondensation,
    Error,
    FileWrite,
    InquirySettled,
    ModelReasoning,
    ModelRouted,
    PolicyDecision,
    ToolResult,
    ToolsWithdrawn,
    TurnStopped,
)
from wisp.audit.kinds import ToolCall as ToolCallEvent

T = TypeVar("T")

SHORTENED_CHARACTERS = 100
"""``shorten`` keeps this many characters."""
NAMED_PATHS = 3
"""A sandbox note names this many paths, then ``and N more``."""
WITHDRAWN = "no more tools this turn"


def shorten(text: str) -> str:
    """The first 100 characters of ``text``, plus ``…`` when it is longer."""
    if len(text) <= SHORTENED_CHARACTERS:
        return text
    return text[:SHORTENED_CHARACTERS] + "…"


# -- event.text ------------------------------------------------------------------------------


def event_text(details: Details, call: str | None) -> str | None:
    """The unstyled line the chat shows for a recorded event, or None when it shows nothing."""
    match details:
        case ToolCallEvent():
            return _tool_call(details)
        case ToolResult():
            return _tool_result(details)
        case CommandOutcome():
            return _command_outcome(details)
        case CommandTyped():
            return _command_typed(details)
        case FileWrite(mode=mode, path=path, bytes_after=size):
            return f"  ↳ {mode} {path}, now {size} bytes"
        case Error(message=message):
            return None if call is None else f"  ↳ error: {message}"
        case ClassifierVerdict():
            return _classifier_verdict(details)
        case ApprovalDecided():
            return _approval_decided(details)
        case ApprovalPending():
            return _approval_pending(details)
        case ApprovalSettled():
            return _approval_settled(details)
        case PolicyDecision():
            return _policy_decision(details)
        case ModelRouted(task=task, model=model, reason=reason):
            return f"  · {task} runs on {model}: {reason}"
        case ContextCondensation():
            return _condensation(details)
        case ModelReasoning(phase="end"):
            return thought_line(_given(details.seconds, 0.0), _given(details.tokens, 0))
        case InquirySettled():
            return _inquiry_settled(details)
        case ToolsWithdrawn(tool=tool):
            return f"  · {tool} called a third time with the same arguments: {WITHDRAWN}"
        case TurnStopped(seconds=seconds, killed=killed):
            return f"  · stopped by you after {seconds:.1f} s{' (killed)' if killed else ''}"
        case _:
            return None


def _given(value: T | UnsetType | None, default: T) -> T:
    """An optional field's value, or ``default`` where it is absent."""
    return default if value is UNSET or value is None else value  # type: ignore[return-value]


# The argument that names a call, by tool; any other tool shows its whole arguments JSON.
_SUMMARY_KEYS = {
    "run_command": "command",
    "read_file": "path",
    "edit_file": "path",
    "inspect": "what",
    "current_date": "timeZone",
    "ask": "question",
}


def tool_summary(tool: str, arguments: Any) -> str:
    """A call's argument summary, shortened: ``git status`` for run_command, ``append notes.md``
    for edit_file, ``README.md from line 40`` for read_file, else the whole arguments JSON.

    ``arguments`` may be the model's JSON text or the object it decodes to."""
    fields, whole = _arguments(arguments)
    key = _SUMMARY_KEYS.get(tool)
    value = fields.get(key) if key is not None else None
    if not isinstance(value, str):
        return shorten(whole)
    parts = [value]
    mode = fields.get("mode")
    if tool == "edit_file" and isinstance(mode, str):
        parts.insert(0, mode)
    offset = fields.get("offset")
    if tool == "read_file" and isinstance(offset, int) and not isinstance(offset, bool):
        parts.append(f"from line {offset}")
    return shorten(" ".join(parts))


def _arguments(arguments: Any) -> tuple[Mapping[str, Any], str]:
    """The arguments as an object (empty when they are not one) and as JSON text."""
    if arguments is None:
        return {}, ""
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments)
        except ValueError:
            decoded = None
        return (decoded if isinstance(decoded, dict) else {}), arguments
    whole = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"), default=str)
    return (arguments if isinstance(arguments, dict) else {}), whole


def call_summary(details: ToolCallEvent) -> str:
    """``run_command git status``: the tool and its summary, as the call's line and the
    activity name it."""
    summary = tool_summary(details.tool or "?", details.arguments)
    return f"{details.tool or '?'} {summary}" if summary else details.tool or "?"


def _tool_call(details: ToolCallEvent) -> str:
    return f"⚙ {call_summary(details)}"


def _tool_result(details: ToolResult) -> str | None:
    # run_command's outcome line says it already; ask's inquiry.settled line does.
    if details.tool in ("run_command", "ask"):
        return None
    line = f"  ↳ {details.bytes} bytes in {details.seconds:.1f} s"
    head = _first_line(details.output)
    return f"{line}: {shorten(head)}" if head else line


def _first_line(text: str) -> str:
    """The first line with something besides white space on it, or ``""``."""
    for line in text.split("\n"):
        if line.strip():
            return line.removesuffix("\r")
    return ""


def _command_outcome(details: CommandOutcome) -> str:
    notes = [
        note
        for flag, note in (
            (details.timed_out, "timed out"),
            (details.stopped, "stopped by you"),
            (details.truncated, "output truncated"),
        )
        if flag is True
    ]
    said = f" ({', '.join(notes)})" if notes else ""
    return f"  ↳ exit {details.exit_status}{said}"


def _command_typed(details: CommandTyped) -> str | None:
    if details.failure is not UNSET:
        return f"  · could not run it: {details.failure}"
    named = _named_paths(_given(details.sandbox_paths, []))
    match details.sandbox_refusal:
        case "refused":
            return (
                f"  · the sandbox refused writing to {named}, as it would for the model: "
                "commands write only within wisp's writable roots, less WISP_HOME and what a "
                "sandbox note at start-up names"
            )
        case "not-the-sandbox":
            return f"  · not the sandbox: {named} is inside wisp's writable roots"
        case "guess":
            return (
                "  · the sandbox may have refused it (no path to check), as it would the "
                "model's; no policy rule denied it"
            )
        case _:
            return None


def _named_paths(paths: list[str]) -> str:
    named = ", ".join(paths[:NAMED_PATHS])
    more = len(paths) - NAMED_PATHS
    return f"{named} and {more} more" if more > 0 else named


def _classifier_verdict(details: ClassifierVerdict) -> str:
    # The command is named only when it is one part of a longer line (details has ``line``).
    named = "" if details.line is UNSET else f"{shorten(details.command)}: "
    text = f"  · {named}{details.level}"
    sources = ", ".join(details.sources)
    if sources:
        text += f" by {sources}"
    if details.reasons and details.reasons[0]:
        text += f": {details.reasons[0]}"
    metadata = _given(details.metadata, {})
    if metadata.get("classifier.cached") is True:
        return f"{text} (remembered)"
    return f"{text} ({_milliseconds(details.seconds)})"


def _milliseconds(seconds: float) -> str:
    ms = float(seconds) * 1000
    return f"{ms:.1f} ms" if ms < 10 else f"{ms:.0f} ms"


_DECISIONS = {
    "denied": "  · denied",
    "timed-out": "  · no answer in time, denied",
    "cached-turn": "  · allowed: approved once earlier in this turn",
    "cached": "  · allowed by your approval for this session",
    "cached-project": "  · allowed by your approval for this project",
    "cached-always": "  · allowed by your standing approval",
}


def _approval_decided(details: ApprovalDecided) -> str:
    if details.decision == "approved":
        scope = details.scope
        return "  · approved" if scope is UNSET else f"  · approved ({scope})"
    return _DECISIONS.get(details.decision, f"  · {details.decision}")


def _approval_pending(details: ApprovalPending) -> str | None:
    # A fact's request carries ``kind``; only a command's gets the line.
    if details.outcome != "filed" or details.request_kind is not UNSET:
        return None
    return "  · also waiting in wisp approvals pending and wisp-tui"


# The face an out-of-band answer came from, by its ``via``.
_FACES = {"tui": "wisp-tui", "cli": "wisp approvals", "elicitation": "the client's dialog"}


def _approval_settled(details: ApprovalSettled) -> str | None:
    if details.outcome != "answered" or details.request_kind is not UNSET:
        return None
    if details.via is UNSET:
        return "  · answered"
    return f"  · answered in {_FACES.get(details.via, details.via)}"


def _policy_decision(details: PolicyDecision) -> str | None:
    if details.verdict == "allowed":
        return None
    reason = details.reason
    return f"  · blocked by policy: {reason}" if reason else "  · blocked by policy"


def _condensation(details: ContextCondensation) -> str | None:
    reason = details.reason
    turns = f"{details.turns_before} → {details.turns_after} turns"
    target = details.target
    if target is UNSET:
        return f"(context condensed, {reason}: {turns})"
    # Condensing to a target: the fill line only when something was done, or on overflow.
    window = "?" if details.context_size is None else details.context_size
    after = _given(details.fill_after, 0)
    lines = []
    if _given(details.steps, []) or reason == "overflow":
        fill = f"{_given(details.fill_before, 0)} → {after} of {window} tokens"
        lines.append(f"(context condensed, {reason}: {turns}, {fill})")
    if details.floor is True:
        lines.append(
            f"(context at its floor: the instructions and the last turn take {after} of "
            f"{window} tokens, above the {target} that leave room for this request and a reply; "
            "this turn may run out of room, and /new starts afresh)"
        )
    return "\n".join(lines) or None


_INQUIRY_OUTCOMES = {
    "none": "  · no answer",
    "declined": "  · declined",
    "unanswered": "  · no answer in time",
    "stopped": "  · stopped by you",
}


def _inquiry_settled(details: InquirySettled) -> str:
    outcome = details.outcome
    reason = _given(details.reason, "")
    match outcome:
        case "answered":
            answer = details.answer
            return "  · answered" if answer is UNSET else f"  · answered: {shorten(answer)}"
        case "refused":
            return f"  · not asked: {reason}" if reason else "  · not asked"
        case _ if outcome in _INQUIRY_OUTCOMES:
            return _INQUIRY_OUTCOMES[outcome]
        case _:
            return f"  · {outcome}: {reason}" if reason else f"  · {outcome}"
