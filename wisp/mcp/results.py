"""``respond``'s result: what one turn did, gathered from the events it recorded, as the
``structuredContent`` docs/mcp.md describes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from wisp.agent.events import TurnResult
from wisp.audit.details import Details
from wisp.audit.kinds import CommandOutcome, ContextCondensation, Error, PolicyDecision, ToolResult
from wisp.audit.kinds import ToolCall as ToolCallEvent
from wisp.chat.event_text import event_text

INLINE_OUTPUT_BYTES = 1024
"""A call's output up to this size travels in the result; a longer one as its URI."""
MAX_CALLS = 64
"""The result lists at most this many calls, the first ones."""
FLOOR_NOTE = "(context at its floor"


def output_uri(thread: str, call: str) -> str:
    return f"wisp://threads/{thread}/output/{call}"


class CallRecord(msgspec.Struct):
    """One tool call of a turn, as its events told it."""

    id: str
    tool: str
    arguments: Any
    command: str | None = None
    exit_status: int | None = None
    output: str | None = None
    error: str | None = None


class TurnRecord(msgspec.Struct):
    """What a ``respond`` saw recorded: the calls in order, the refusals, a floor note."""

    calls: dict[str, CallRecord] = msgspec.field(default_factory=dict)
    refusals: list[dict[str, str]] = msgspec.field(default_factory=list)
    context_note: str | None = None

    def add(self, details: Details, call: str | None) -> None:
        """Follow one recorded event."""
        match details:
            case ToolCallEvent(tool=tool, arguments=arguments) if call is not None:
                self.calls[call] = CallRecord(call, tool, arguments)
            case ToolResult(output=output) if call in self.calls:
                self.calls[call].output = output
            case CommandOutcome(command=command, exit_status=status) if call in self.calls:
                record = self.calls[call]
                record.command, record.exit_status = command, status
            case PolicyDecision(command=command, verdict=verdict, reason=reason):
                if verdict != "allowed":
                    self.refusals.append({"command": command, "reason": reason})
                    if call in self.calls:
                        self.calls[call].command = command
            case Error(message=message) if call in self.calls:
                self.calls[call].error = message
            case ContextCondensation(floor=True):
                text = event_text(details, call) or ""
                floor = [line for line in text.splitlines() if line.startswith(FLOOR_NOTE)]
                self.context_note = floor[0] if floor else self.context_note


def call_outputs(record: TurnRecord) -> dict[str, str]:
    """Each call's output as the model saw it, by call id (a resource serves it)."""
    return {call.id: call.output for call in record.calls.values() if call.output is not None}


def whole_output(output_dir: Path, call: str, seen: str | None) -> str | None:
    """A call's whole output: the kept file when the output was cut, else what the model saw."""
    kept = output_dir / call
    try:
        return kept.read_bytes().decode(errors="replace")
    except OSError:
        return seen


def structured(
    *,
    thread: str,
    created: bool,
    result: TurnResult,
    record: TurnRecord,
    output_dir: Path,
    shaped: Any = None,
) -> dict[str, Any]:
    """``structuredContent`` of a finished turn."""
    return {
        "thread_id": thread,
        "created": created,
        "text": result.text,
        "refusals": record.refusals,
        "calls": [
            _call(thread, call, output_dir) for call in list(record.calls.values())[:MAX_CALLS]
        ],
        "ran": result.ran,
        "unknownEntries": result.unknown_entries,
        "cited": result.cited,
        "verification": result.verification,
        "output": shaped,
        "contextNote": record.context_note,
    }


def _call(thread: str, call: CallRecord, output_dir: Path) -> dict[str, Any]:
    whole = whole_output(output_dir, call.id, call.output)
    shown: dict[str, Any] = {
        "id": call.id,
        "tool": call.tool,
        "arguments": call.arguments,
        "command": call.command,
        "exitStatus": call.exit_status,
        "bytes": len((whole or "").encode()),
    }
    if call.error is not None and call.output is None:
        shown["error"] = call.error
    elif whole is not None and len(whole.encode()) <= INLINE_OUTPUT_BYTES:
        shown["output"] = whole
    else:
        shown["outputURI"] = output_uri(thread, call.id)
    return shown
