"""One line per event for a person scanning ``wisp logs``.

    2026-11-30 00:15:26.123  5fd0cf21  t3  tool.call           current_date {}
    └ time (UTC, ms) ──────┘ └session┘ └turn └ kind ──────────┘ └ what matters for the kind

Each kind shows the detail that tells its events apart (a command, a path and its change, a
reply's first words); a kind without a formatter, including one this build does not know,
shows its first few fields as ``name=value``. Text is put on one line and cut to ``width``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from wisp.audit.event import StoredEvent

Details = dict[str, Any]
KIND_WIDTH = 18
VALUE_CHARS = 240
"""A value (a prompt, a tool's output, arguments) shows at most this many characters: a summary
is for scanning; ``--json`` prints every byte. Cutting first also keeps a log of large outputs
fast to summarise."""
_GENERIC_FIELDS = 4


def summary_line(event: StoredEvent, width: int | None = None) -> str:
    """The event as one line of at most ``width`` characters (no limit when None)."""
    time = event.time.replace("T", " ").removesuffix("Z") if event.time else "?"
    session = (event.session or "?")[:8]
    turn = f"t{event.turn}" if isinstance(event.turn, int) else ""
    formatter = _FORMATTERS.get(event.kind, _generic)
    detail = _one_line(formatter(event.details))
    line = f"{time:<23}  {session:<8}  {turn:<3} {event.kind:<{KIND_WIDTH}}  {detail}".rstrip()
    if width is not None and len(line) > width:
        line = line[: max(width - 1, 0)] + "…"
    return line


def _one_line(text: str) -> str:
    """``text`` with each run of whitespace made one space and none at the ends, when it has a
    newline or a tab: ``" ".join(text.split())``, computed faster for plain ASCII."""
    if "\n" not in text and "\t" not in text:
        return text
    if not text.isascii() or any(space in text for space in _RARE_ASCII_SPACE):
        return " ".join(text.split())
    # A tool's output of a few KB is the usual case: replacing in place is several times
    # faster than splitting it into words and joining them (bench/logs_filter.py).
    flat = text.replace("\n", " ").replace("\t", " ").replace("\r", " ")
    while "  " in flat:
        flat = flat.replace("  ", " ")
    return flat.strip(" ")


_RARE_ASCII_SPACE = "\x0b\x0c\x1c\x1d\x1e\x1f"
"""ASCII characters that ``str.split`` also takes for whitespace, besides space, \\t, \\n, \\r."""


def _clip(text: str) -> str:
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS] + "…"


def _json(value: Any) -> str:
    if isinstance(value, str):
        return _clip(value)
    return _clip(msgspec.json.encode(value).decode())


def _quote(value: Any) -> str:
    return '"' + _clip(value) + '"' if isinstance(value, str) else _json(value)


def _generic(details: Details) -> str:
    shown = list(details.items())[:_GENERIC_FIELDS]
    more = len(details) - len(shown)
    text = " ".join(f"{name}={_quote(value)}" for name, value in shown)
    return text + (f" (+{more} more)" if more > 0 else "")


def _seconds(details: Details) -> str:
    seconds = details.get("seconds")
    return f" {seconds:.2f}s" if isinstance(seconds, int | float) else ""


def _session_start(d: Details) -> str:
    tools = d.get("tools")
    count = f" tools={len(tools)}" if isinstance(tools, list) else ""
    return f"{d.get('entryPoint', d.get('reason', '?'))} model={d.get('model')}{count}"


def _model_resolved(d: Details) -> str:
    context = d.get("contextSize")
    return f"{d.get('model')} ({d.get('backend')})" + (f" context={context}" if context else "")


def _response(d: Details) -> str:
    usage = d.get("usage")
    tokens = ""
    if isinstance(usage, dict):
        tokens = f" [{usage.get('input', '?')} in, {usage.get('output', '?')} out]"
    return f"{_quote(d.get('text', ''))}{_seconds(d)}{tokens}"


def _reasoning(d: Details) -> str:
    if d.get("phase") == "start":
        return "thinking…"
    return f"thought {d.get('tokens', '?')} tokens{_seconds(d)}"


def _tool_call(d: Details) -> str:
    return f"{d.get('tool')} {_json(d.get('arguments', {}))}"


def _tool_result(d: Details) -> str:
    repeat = f" (repeat {d['repeat']})" if "repeat" in d else ""
    output = _quote(d.get("output", ""))
    return f"{d.get('tool')} {d.get('bytes', '?')} B{_seconds(d)}{repeat} {output}"


def _command_outcome(d: Details) -> str:
    status = "timed out" if d.get("timedOut") else f"exit {d.get('exitStatus')}"
    return f"{status}{_seconds(d)} {d.get('command')}"


def _policy_decision(d: Details) -> str:
    sandbox = " (no sandbox)" if d.get("sandbox") is False else ""
    return f"{d.get('verdict')}{sandbox} {d.get('command')}"


def _watch_run(d: Details) -> str:
    ended = "timed out" if d.get("timedOut") else f"exit {d.get('exitStatus')}"
    was = f", was {d.get('previous')}" if d.get("changed") else ""
    return (
        f"run {d.get('run')} {d.get('trigger')}: {d.get('state')} ({ended}{was})"
        f"{_seconds(d)} {d.get('command')}"
    )


def _config_change(d: Details) -> str:
    old, new = d.get("old"), d.get("new")
    change = f"unset (was {_json(old)})" if new is None else f"{_json(old)} → {_json(new)}"
    return f"{d.get('path')}: {change} ({d.get('source')})"


def _file_write(d: Details) -> str:
    return f"{d.get('mode')} {d.get('path')} {d.get('bytesBefore')} → {d.get('bytesAfter')} B"


def _fields(*names: str) -> Callable[[Details], str]:
    """A formatter that shows the named fields' values, space-separated, skipping absent ones."""

    def format_fields(d: Details) -> str:
        return " ".join(_json(d[name]) for name in names if name in d and d[name] is not None)

    return format_fields


_FORMATTERS: dict[str, Callable[[Details], str]] = {
    "session.start": _session_start,
    "session.end": _fields("reason"),
    "model.resolved": _model_resolved,
    "model.fallback": lambda d: f"{d.get('model')} → {d.get('fallback')}: {d.get('reason')}",
    "prompt": lambda d: _quote(d.get("text", "")),
    "turn.stopped": lambda d: f"after{_seconds(d)}" + (" (killed)" if d.get("killed") else ""),
    "response": _response,
    "model.reasoning": _reasoning,
    "tool.call": _tool_call,
    "tool.result": _tool_result,
    "output.kept": lambda d: f"{d.get('tool')} {d.get('bytes')} B, {d.get('lines')} lines",
    "policy.decision": _policy_decision,
    "command.outcome": _command_outcome,
    "command.typed": lambda d: f"!{d.get('command')} {d.get('verdict')}",
    "approval.requested": _fields("level", "command"),
    "approval.decided": _fields("decision", "command"),
    "approval.pending": _fields("request", "outcome", "level", "command"),
    "approval.answered": _fields("request", "decision", "via", "command"),
    "approval.settled": _fields("request", "outcome", "via", "decision", "command"),
    "context.condensation": lambda d: (
        f"{d.get('reason')}: {d.get('turnsBefore')} → {d.get('turnsAfter')} turns, "
        f"{d.get('fillBefore', '?')} → {d.get('fillAfter', '?')} of {d.get('contextSize')} tokens"
    ),
    "mcp.request": _fields("tool", "arguments"),
    "mcp.result": lambda d: (
        f"{d.get('tool')}{' error' if d.get('isError') else ''}"
        f"{_seconds(d)}: {_quote(d.get('text', ''))}"
    ),
    "notification": _fields("outcome", "title", "body"),
    "watch.run": _watch_run,
    "classifier.verdict": _fields("level", "command"),
    "config.change": _config_change,
    "file.write": _file_write,
    "inquiry.requested": lambda d: _quote(d.get("question", "")),
    "inquiry.settled": _fields("outcome", "answer"),
    "inquiry.parked": lambda d: (
        f"after{_seconds({'seconds': d.get('waitedSeconds')})}: " + _quote(d.get("question", ""))
    ),
    "error": _fields("message", "context"),
    "host.hello": _fields("client", "version", "effects"),
}
