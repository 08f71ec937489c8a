"""``wisp mcp``'s tools ``scan`` and ``redact``: text in; findings, or the text with each one
replaced by ``[REDACTED:KIND]``, out (docs/mcp.md, "scan and redact"). The scan's rules, and
with ``thorough`` a routed model after them (docs/scan.md, "The thorough pass"). Each call is
recorded as ``secrets.scan`` or ``redaction`` under its thread (the server's session when no
thread is named); the text itself is never logged: ``mcp.request`` holds its size."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from wisp.agent.side_calls import SideCalls
from wisp.scan import redact
from wisp.scan.job import Scanned, Scanner, redaction_event, scan_event
from wisp.scan.thorough import Thorough

TOOLS = ("scan", "redact")
LONGEST = 4_000_000
"""Characters one call may hand in: a big log; a tree is ``wisp scan``'s."""


def text_schema(task: str, thread_pattern: str) -> dict[str, Any]:
    doing = "scanned" if task == "scan" else "redacted"
    return {
        "type": "object",
        "properties": {
            "text": {"type": "string", "maxLength": LONGEST, "description": f"The text {doing}."},
            "source": {
                "type": "string",
                "maxLength": 200,
                "description": "A name for the text in the audit log (a file name); omitted, mcp.",
            },
            "thorough": {
                "type": "boolean",
                "description": "After the rules, a model reads the text for what they missed "
                f"(routing.tasks.{task}); slower.",
            },
            "thread_id": {
                "type": "string",
                "pattern": thread_pattern,
                "description": "Record the call under this open thread, whose model is the "
                "thorough pass's last resort.",
            },
        },
        "required": ["text"],
        "additionalProperties": False,
    }


SCAN_DESCRIPTION = (
    "Find secrets (keys, tokens, passwords, private keys) and personal data (emails, phones, "
    "IBANs, card numbers, IP addresses) in a text: each finding's kind, line, column and "
    "character offsets in structuredContent, never its value."
)
REDACT_DESCRIPTION = (
    "The text with each secret and piece of personal data replaced by [REDACTED:KIND]; every "
    "other character unchanged, the line count kept."
)


def logged_arguments(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments as ``mcp.request`` records them: a scan's text by its size only, since it
    may hold the very secrets it is scanned for."""
    if tool not in TOOLS or not isinstance(arguments.get("text"), str):
        return arguments
    size = len(arguments["text"].encode("utf-8", "surrogatepass"))
    return {**arguments, "text": f"[{size} bytes, not logged]"}


class TextJob:
    """One ``scan`` or ``redact`` call: where it is recorded and who reads for the thorough
    pass."""

    def __init__(self, record: Any, calls: SideCalls | None) -> None:
        self.record = record
        """The thread's (or the server's) recorder's ``record``."""
        self.calls = calls
        """Side calls routed for the thorough pass: None when no model can be asked."""

    async def run(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        text: str = arguments["text"]
        source = arguments.get("source") or "mcp"
        size = len(text.encode("utf-8", "surrogatepass"))
        scanned = await self._scanner(tool, arguments.get("thorough", False)).scan(text)
        if tool == "scan":
            self.record(scan_event(source, size, scanned))
            return _scan_result(scanned)
        out = redact(text, scanned.findings)
        self.record(redaction_event(source, size, scanned, bytes_out=len(out.encode())))
        return _redact_result(out, scanned)

    def _scanner(self, task: str, thorough: bool) -> Scanner:
        if not thorough or self.calls is None:
            return Scanner()
        return Scanner(Thorough(self.calls, task))


def _counts(scanned: Scanned) -> dict[str, Any]:
    return {
        "total": len(scanned.findings),
        "kinds": scanned.kinds(),
        "thorough": scanned.thorough,
        "failedChunks": scanned.failed_chunks,
    }


def _scan_result(scanned: Scanned) -> types.CallToolResult:
    findings = [
        {
            "kind": found.kind,
            "line": found.line,
            "column": found.column,
            "start": found.start,
            "end": found.end,
        }
        for found in scanned.findings
    ]
    said = "; ".join(f"{f['kind']} at {f['line']}:{f['column']}" for f in findings)
    count = len(findings)
    text = f"{count} finding{'s' if count != 1 else ''}: {said}" if count else "nothing found"
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content={"findings": findings, **_counts(scanned)},
    )


def _redact_result(out: str, scanned: Scanned) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=out)],
        structured_content={"text": out, **_counts(scanned)},
    )
