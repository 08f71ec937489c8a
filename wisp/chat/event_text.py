"""The lines wisp words for recorded events: each event's text, its output page, the output fold
and the plain chat's footer (the words are listed in docs/protocol.md).

Pure functions over an event's typed details (the registry's Details Structs, matched by type),
so the JSON face and the plain chat word every line the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, TypeVar

from msgspec import UNSET, UnsetType

from wisp import protocol as p
from wisp.agent.checks import thought_line
from wisp.agent.text import count_lines
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
    TurnStopped,
)
from wisp.audit.kinds import ToolCall as ToolCallEvent

T = TypeVar("T")

SHORTENED_CHARACTERS = 100
"""``shorten`` keeps this many characters."""
PAGE_BYTES = 16 * 1024
"""An ``output`` object's ``text`` holds at most this many UTF-8 bytes."""
SHOWN_LINES = 20
"""The default ``shownOutputLines``: lines the plain chat shows before folding."""
FOLD_BYTES = 2048
"""The fold shows at most this many bytes of lines."""
NAMED_PATHS = 3
"""A sandbox note names this many paths, then ``and N more``."""


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


# -- event.output ----------------------------------------------------------------------------


def output_text(details: Details) -> str | None:
    """The text an event carries to fold under its line: a tool's output (even empty), what a
    typed command printed (when it printed something), or the model's thinking at its end."""
    match details:
        case ToolResult(output=output):
            return output
        case CommandTyped(output=output):
            return output or None
        case ModelReasoning(phase="end"):
            return _given(details.text, "")
        case _:
            return None


def event_output(
    details: Details, event_id: str | None, *, shown_lines: int = SHOWN_LINES
) -> p.EventOutput | None:
    """The ``output`` object for an event that carries text, or None."""
    text = output_text(details)
    if text is None:
        return None
    return output_page(text, event_id, shown_lines=shown_lines)


def output_page(
    text: str, event_id: str | None, *, shown_lines: int = SHOWN_LINES
) -> p.EventOutput:
    """``text`` as an ``output`` object: its first page (at most 16 KiB, cut at a character)
    and the whole text's measures."""
    data = _utf8(text)
    page = text if len(data) <= PAGE_BYTES else _cut(data, PAGE_BYTES)
    return p.EventOutput(
        id=event_id,
        text=page,
        lines=count_lines(text),
        bytes=len(data),
        truncated=len(page) < len(text),
        shown_lines=shown_lines,
    )


def _utf8(text: str) -> bytes:
    # surrogatepass: a lone surrogate from a lenient decoder must not make the count fail.
    return text.encode("utf-8", "surrogatepass")


def _cut(data: bytes, limit: int) -> str:
    """The longest prefix of ``data``, at most ``limit`` bytes, that ends on a character."""
    end = limit
    while end > 0 and data[end] & 0xC0 == 0x80:  # a continuation byte starts no character
        end -= 1
    return data[:end].decode("utf-8", "surrogatepass")


# -- the plain chat's fold -------------------------------------------------------------------

# C0 controls but the newline (tabs are expanded first), DEL and the C1 controls.
_CONTROLS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def drawable(text: str) -> str:
    """``text`` as every front end draws it: tabs as 4 spaces, other control characters gone."""
    return _CONTROLS.sub("", text.replace("\t", "    "))


def fold(
    text: str,
    event_id: str | None,
    *,
    shown_lines: int = SHOWN_LINES,
    max_bytes: int = FOLD_BYTES,
    total_lines: int | None = None,
    total_bytes: int | None = None,
) -> list[str]:
    """The lines the plain chat shows under an event's line for its output: the first that fit,
    indented 4 spaces, then a fold line saying how much more there is and how to see it.

    ``text`` may be the first page of a longer output whose measures ``total_lines`` and
    ``total_bytes`` give (an ``output`` object's)."""
    if shown_lines <= 0 or not text:
        return []
    lines = drawable(text).split("\n")
    if lines[-1] == "":  # a trailing empty line is not counted
        lines.pop()
    shown = _fitting(lines, shown_lines, max_bytes)
    folded = ["    " + line for line in shown]
    hidden = (len(lines) if total_lines is None else total_lines) - len(shown)
    if hidden > 0:
        noun = "line" if hidden == 1 else "lines"
        where = f"/show {event_id[:8]}" if event_id else "/last"
        size = len(_utf8(text)) if total_bytes is None else total_bytes
        folded.append(f"    … {hidden} more {noun}, {size} bytes in all: {where}")
    return folded


def fold_output(output: p.EventOutput) -> list[str]:
    """:func:`fold` of an event's ``output`` object, by its first page and whole measures."""
    return fold(
        output.text,
        output.id,
        shown_lines=output.shown_lines,
        total_lines=output.lines,
        total_bytes=output.bytes,
    )


def _fitting(lines: list[str], most: int, max_bytes: int) -> list[str]:
    """The first lines that fit in ``most`` lines and ``max_bytes``; at least one, a lone line
    over the bytes cut to half as many characters plus ``…``."""
    shown: list[str] = []
    size = 0
    for line in lines[:most]:
        length = len(_utf8(line))
        size += length + 1
        if shown and size > max_bytes:
            break
        shown.append(line if length <= max_bytes else line[: max_bytes // 2] + "…")
    return shown


# -- the plain chat's footer ---------------------------------------------------------------

_ENDINGS = {"error": "failed after ", "stopped": "stopped after "}


def footer(
    ran: str | None,
    cited: str | None,
    seconds: float,
    outcome: str,
    input_tokens: int | None,
    output_tokens: int | None,
) -> list[str]:
    """The muted lines the plain chat prints after a turn: ran, cited, then time and tokens."""
    lines = [f"  {line}" for line in (ran, cited) if line]
    timing = f"  {_ENDINGS.get(outcome, '')}{seconds:.1f} s"
    # As turn end's tokens: only when both are known and not both zero.
    if input_tokens is not None and output_tokens is not None and (input_tokens or output_tokens):
        timing += f" · ↓{input_tokens:,} ↑{output_tokens:,}"
    lines.append(timing)
    return lines
