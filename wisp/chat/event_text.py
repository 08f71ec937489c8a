"""The lines wisp words for audit events: each event's text, its output page, the output fold and
the plain chat's footer (protocol.md §3.8, §10.1, §10.2, §10.6).

Pure functions over an event's kind, call and details as written (camelCase keys, optional fields
absent or null), so the JSON face and the plain chat word every line the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wisp.agent.text import count_lines

SHORTENED_CHARACTERS = 100
"""``shorten`` keeps this many characters (§10.1)."""
PAGE_BYTES = 16 * 1024
"""An ``output`` object's ``text`` holds at most this many UTF-8 bytes (§3.8)."""
SHOWN_LINES = 20
"""The default ``shownOutputLines``: lines the plain chat shows before folding."""
FOLD_BYTES = 2048
"""The fold shows at most this many bytes of lines (§10.2)."""
NAMED_PATHS = 3
"""A sandbox note names this many paths, then ``and N more``."""

_Details = Mapping[str, Any]


def shorten(text: str) -> str:
    """The first 100 characters of ``text``, plus ``…`` when it is longer (§10.1)."""
    if len(text) <= SHORTENED_CHARACTERS:
        return text
    return text[:SHORTENED_CHARACTERS] + "…"


# -- event.text (§10.1) ----------------------------------------------------------------------


def event_text(kind: str, call: str | None, details: _Details) -> str | None:
    """The unstyled line the chat shows for an audit event, or None when it shows nothing."""
    match kind:
        case "tool.call":
            return _tool_call(details)
        case "tool.result":
            return _tool_result(details)
        case "command.outcome":
            return _command_outcome(details)
        case "command.typed":
            return _command_typed(details)
        case "file.write":
            mode, path = details.get("mode", "?"), details.get("path", "?")
            return f"  ↳ {mode} {path}, now {details.get('bytesAfter', 0)} bytes"
        case "error":
            return None if call is None else f"  ↳ error: {details.get('message', '')}"
        case "classifier.verdict":
            return _classifier_verdict(details)
        case "approval.decided":
            return _approval_decided(details)
        case "approval.pending":
            return _approval_pending(details)
        case "approval.settled":
            return _approval_settled(details)
        case "policy.decision":
            return _policy_decision(details)
        case "model.routed":
            task, model = details.get("task", "?"), details.get("model", "?")
            return f"  · {task} runs on {model}: {details.get('reason', '')}"
        case "context.condensation":
            return _condensation(details)
        case "model.reasoning":
            return _thought(details) if details.get("phase") == "end" else None
        case "inquiry.settled":
            return _inquiry_settled(details)
        case "turn.stopped":
            killed = " (killed)" if details.get("killed") is True else ""
            return f"  · stopped by you after {_seconds(details)} s{killed}"
        case _:
            return None


# The argument that names a call, by tool; any other tool shows its whole arguments JSON.
_SUMMARY_KEYS = {
    "run_command": "command",
    "read_file": "path",
    "edit_file": "path",
    "inspect": "what",
    "current_date": "timeZone",
    "ask": "question",  # Python wisp
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


def _tool_call(details: _Details) -> str:
    tool = details.get("tool") or "?"
    summary = tool_summary(tool, details.get("arguments"))
    return f"⚙ {tool} {summary}" if summary else f"⚙ {tool}"


def _tool_result(details: _Details) -> str | None:
    # run_command's outcome line says it already; ask's inquiry.settled line does (Python wisp).
    if details.get("tool") in ("run_command", "ask"):
        return None
    line = f"  ↳ {details.get('bytes', 0)} bytes in {_seconds(details)} s"
    head = _first_line(details.get("output") or "")
    return f"{line}: {shorten(head)}" if head else line


def _first_line(text: str) -> str:
    """The first line with something besides white space on it, or ``""``."""
    for line in text.split("\n"):
        if line.strip():
            return line.removesuffix("\r")
    return ""


def _command_outcome(details: _Details) -> str:
    notes = [
        note
        for key, note in (
            ("timedOut", "timed out"),
            ("stopped", "stopped by you"),
            ("truncated", "output truncated"),
        )
        if details.get(key) is True
    ]
    said = f" ({', '.join(notes)})" if notes else ""
    return f"  ↳ exit {details.get('exitStatus', '?')}{said}"


def _command_typed(details: _Details) -> str | None:
    failure = details.get("failure")
    if failure is not None:
        return f"  · could not run it: {failure}"
    named = _named_paths(details.get("sandboxPaths") or [])
    match details.get("sandboxRefusal"):
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


def _named_paths(paths: list[Any]) -> str:
    named = ", ".join(str(path) for path in paths[:NAMED_PATHS])
    more = len(paths) - NAMED_PATHS
    return f"{named} and {more} more" if more > 0 else named


def _classifier_verdict(details: _Details) -> str:
    # The command is named only when it is one part of a longer line (details has ``line``).
    named = ""
    if details.get("line") is not None:
        named = f"{shorten(str(details.get('command', '')))}: "
    text = f"  · {named}{details.get('level', '?')}"
    sources = ", ".join(str(source) for source in details.get("sources") or [])
    if sources:
        text += f" by {sources}"
    reasons = details.get("reasons") or []
    if reasons and reasons[0]:
        text += f": {reasons[0]}"
    metadata = details.get("metadata") or {}
    if isinstance(metadata, Mapping) and metadata.get("classifier.cached") is True:
        return f"{text} (remembered)"
    return f"{text} ({_milliseconds(details.get('seconds') or 0)})"


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


def _approval_decided(details: _Details) -> str:
    decision = str(details.get("decision", ""))
    if decision == "approved":
        scope = details.get("scope")
        return "  · approved" if scope is None else f"  · approved ({scope})"
    return _DECISIONS.get(decision, f"  · {decision}")


def _approval_pending(details: _Details) -> str | None:
    # A fact's request carries ``kind``; only a command's gets the line.
    if details.get("outcome") != "filed" or details.get("kind") is not None:
        return None
    return "  · also waiting in wisp approvals pending and wisp-tui"


# The face an out-of-band answer came from, by its ``via``.
_FACES = {"tui": "wisp-tui", "cli": "wisp approvals", "elicitation": "the client's dialog"}


def _approval_settled(details: _Details) -> str | None:
    if details.get("outcome") != "answered" or details.get("kind") is not None:
        return None
    via = details.get("via")
    if via is None:
        return "  · answered"
    return f"  · answered in {_FACES.get(via, via)}"


def _policy_decision(details: _Details) -> str | None:
    if details.get("verdict") == "allowed":
        return None
    reason = details.get("reason")
    return f"  · blocked by policy: {reason}" if reason else "  · blocked by policy"


def _condensation(details: _Details) -> str | None:
    reason = details.get("reason", "")
    turns = f"{details.get('turnsBefore', 0)} → {details.get('turnsAfter', 0)} turns"
    target = details.get("target")
    if target is None:
        return f"(context condensed, {reason}: {turns})"
    # Condensing to a target: the fill line only when something was done, or on overflow.
    window = details.get("contextSize")
    window = "?" if window is None else window
    after = details.get("fillAfter", 0)
    lines = []
    if details.get("steps") or reason == "overflow":
        fill = f"{details.get('fillBefore', 0)} → {after} of {window} tokens"
        lines.append(f"(context condensed, {reason}: {turns}, {fill})")
    if details.get("floor") is True:
        lines.append(
            f"(context at its floor: the instructions and the last turn take {after} of "
            f"{window} tokens, above the {target} that leave room for this request and a reply; "
            "this turn may run out of room, and /new starts afresh)"
        )
    return "\n".join(lines) or None


def _thought(details: _Details) -> str:
    tokens = details.get("tokens") or 0
    noun = "token" if tokens == 1 else "tokens"
    return f"∴ thought for {_seconds(details)} s, {tokens} {noun}"


_INQUIRY_OUTCOMES = {
    "none": "  · no answer",
    "declined": "  · declined",
    "unanswered": "  · no answer in time",
    "stopped": "  · stopped by you",
}


def _inquiry_settled(details: _Details) -> str:
    outcome = str(details.get("outcome", ""))
    reason = details.get("reason")
    match outcome:
        case "answered":
            answer = details.get("answer")
            return "  · answered" if answer is None else f"  · answered: {shorten(str(answer))}"
        case "refused":
            return f"  · not asked: {reason}" if reason else "  · not asked"
        case _ if outcome in _INQUIRY_OUTCOMES:
            return _INQUIRY_OUTCOMES[outcome]
        case _:
            return f"  · {outcome}: {reason}" if reason else f"  · {outcome}"


def _seconds(details: _Details) -> str:
    return f"{float(details.get('seconds') or 0):.1f}"


# -- event.output (§3.8) ---------------------------------------------------------------------


@dataclass(frozen=True)
class OutputPage:
    """An event's ``output`` object: the first page of the text it carries, and its measures."""

    id: str | None
    """The audit event's own id; ``/show`` with its first characters fetches the whole text."""
    text: str
    """The first page: at most 16 KiB, cut at a character boundary."""
    lines: int
    """Lines in the whole text; a trailing newline adds no line."""
    bytes: int
    """UTF-8 bytes of the whole text."""
    truncated: bool
    """``text`` is shorter than the whole."""
    shown_lines: int = SHOWN_LINES
    """How many lines the plain chat shows before folding (``shownOutputLines``)."""


def output_text(kind: str, details: _Details) -> str | None:
    """The text an event carries to fold under its line: a tool's output (even empty), what a
    typed command printed (when it printed something), or the model's thinking at its end."""
    match kind:
        case "tool.result":
            return str(details.get("output") or "")
        case "command.typed":
            return str(details.get("output") or "") or None
        case "model.reasoning" if details.get("phase") == "end":
            return str(details.get("text") or "")
        case _:
            return None


def event_output(
    kind: str, details: _Details, event_id: str | None, *, shown_lines: int = SHOWN_LINES
) -> OutputPage | None:
    """The ``output`` object for an event that carries text (§3.8), or None."""
    text = output_text(kind, details)
    if text is None:
        return None
    return output_page(text, event_id, shown_lines=shown_lines)


def output_page(text: str, event_id: str | None, *, shown_lines: int = SHOWN_LINES) -> OutputPage:
    """``text`` as an ``output`` object: its first page and its measures."""
    data = _utf8(text)
    page = text if len(data) <= PAGE_BYTES else _cut(data, PAGE_BYTES)
    return OutputPage(
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


# -- the plain chat's fold (§10.2) -----------------------------------------------------------

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
) -> list[str]:
    """The lines the plain chat shows under an event's line for its output: the first that fit,
    indented 4 spaces, then a fold line saying how much more there is and how to see it."""
    if shown_lines <= 0 or not text:
        return []
    lines = drawable(text).split("\n")
    if lines[-1] == "":  # a trailing empty line is not counted
        lines.pop()
    shown = _fitting(lines, shown_lines, max_bytes)
    folded = ["    " + line for line in shown]
    hidden = len(lines) - len(shown)
    if hidden > 0:
        noun = "line" if hidden == 1 else "lines"
        where = f"/show {event_id[:8]}" if event_id else "/last"
        folded.append(f"    … {hidden} more {noun}, {len(_utf8(text))} bytes in all: {where}")
    return folded


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


# -- the plain chat's footer (§10.6) ---------------------------------------------------------

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
