"""A turn's stream (reply fragments, the window's fill, every recorded event) as ACP session
updates: text as ``agent_message_chunk``, reasoning as ``agent_thought_chunk``, each tool call as
``tool_call`` then ``tool_call_update``, the window's fill as ``usage_update`` (docs/acp.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
)
from acp.schema import ToolCallLocation, UsageUpdate

from wisp.agent.checks import call_outcomes
from wisp.agent.events import AgentEvent, ContextFill, TextFragment, TurnResult, cut_note
from wisp.audit.event import AuditEvent
from wisp.audit.kinds import ModelReasoning, ToolCall, ToolResult
from wisp.chat.event_text import call_summary

TOOL_KINDS = {
    "run_command": "execute",
    "read_file": "read",
    "inspect": "read",
    "edit_file": "edit",
    "memory": "search",
    "ask": "think",
}
"""ACP's ``kind`` of each tool, for the client's icon; any other tool is ``other``."""

OUTPUT_CHARACTERS = 8000
"""A call's output is shown up to this long, its head and tail (the model saw it whole, within
its budget; the whole output is kept under WISP_HOME/output)."""


class TurnUpdates:
    """Maps one session's stream to updates; ``updates(event)`` gives those one event makes."""

    def __init__(self, working_directory: Path) -> None:
        self.working_directory = working_directory
        self._calls: dict[str, list[AuditEvent]] = {}
        """Each call's recorded events so far, by call id: its outcome is read from them."""
        self.current_call: str | None = None
        """The call running now (calls run one at a time): what an approval is asked for."""

    def updates(self, event: AgentEvent) -> list[Any]:
        if isinstance(event, TextFragment):
            return [update_agent_message_text(event.text)] if event.text else []
        if isinstance(event, ContextFill):
            if not event.window:
                return []
            used = min(event.tokens, event.window)
            return [UsageUpdate(session_update="usage_update", used=used, size=event.window)]
        return self._recorded(event)

    def _recorded(self, event: AuditEvent) -> list[Any]:
        details = event.details
        if isinstance(details, ModelReasoning):
            text = details.text if isinstance(details.text, str) else ""
            return [update_agent_thought_text(text)] if details.phase == "end" and text else []
        if event.call is None:
            return []
        if isinstance(details, ToolCall):
            self._calls[event.call] = [event]
            self.current_call = event.call
            return self._started(event.call, details)
        if event.call not in self._calls:
            return []
        self._calls[event.call].append(event)
        if isinstance(details, ToolResult):
            self.current_call = None
            return [self._finished(event.call, details)]
        return []

    def _started(self, call: str, details: ToolCall) -> list[Any]:
        start = call_started(call, details, self.working_directory)
        return [start, update_tool_call(call, status="in_progress")]

    def _finished(self, call: str, details: ToolResult) -> Any:
        events = self._calls.pop(call)
        outcomes = call_outcomes(events)  # type: ignore[arg-type]
        failed = bool(outcomes) and outcomes[0][1] != "succeeded"
        called = events[0].details
        assert isinstance(called, ToolCall)
        return update_tool_call(
            call,
            status="failed" if failed else "completed",
            content=call_content(called, details.output, failed, self.working_directory),
            raw_output=details.output,
        )


def call_started(call: str, details: ToolCall, working_directory: Path, **finished: Any) -> Any:
    """A call's ``tool_call``: its title as chat shows it, its kind, arguments and file;
    ``pending``, unless ``finished`` gives its final ``status``, ``content`` and
    ``raw_output`` (a call replayed from a loaded session's history)."""
    path = _path_argument(details)
    locations = [ToolCallLocation(path=str(working_directory / path))] if path else None
    return start_tool_call(
        call,
        call_summary(details),
        kind=TOOL_KINDS.get(details.tool, "other"),  # type: ignore[arg-type]
        locations=locations,
        raw_input=details.arguments,
        **({"status": "pending"} | finished),
    )


def call_content(called: ToolCall, output: str, failed: bool, working_directory: Path) -> list[Any]:
    """A finished call's content: its output (head and tail), after the diff of an edit."""
    content: list[Any] = [tool_content(text_block(cut_output(output)))]
    if called.tool == "edit_file" and not failed:
        diff = _diff(called.arguments, working_directory)
        if diff is not None:
            content.insert(0, diff)
    return content


def _path_argument(details: ToolCall) -> str | None:
    if details.tool not in ("read_file", "edit_file") or not isinstance(details.arguments, dict):
        return None
    path = details.arguments.get("path")
    return path if isinstance(path, str) and path else None


def _diff(arguments: Any, working_directory: Path) -> Any:
    """The edit as a diff: ``replace`` with ``find`` from the text found, else the content
    written (``write``, ``append``, a line replaced)."""
    if not isinstance(arguments, dict):
        return None
    path, content = arguments.get("path"), arguments.get("content")
    if not isinstance(path, str) or not isinstance(content, str):
        return None
    find = arguments.get("find")
    old = find if arguments.get("mode") == "replace" and isinstance(find, str) else None
    return tool_diff_content(str(working_directory / path), content, old)


def cut_output(text: str) -> str:
    """Up to ``OUTPUT_CHARACTERS``: the head and the tail, with a marker between."""
    if len(text) <= OUTPUT_CHARACTERS:
        return text
    half = OUTPUT_CHARACTERS // 2
    cut = len(text) - 2 * half
    return f"{text[:half]}\n… {cut:,} characters not shown …\n{text[-half:]}"


def closing_lines(result: TurnResult) -> str:
    """What chat prints under a reply (the cut note, ``ran:``, ``cited …``, ``claimed but not
    done: …``, the error), as the turn's last message chunk; empty when there is none."""
    lines = [cut_note(result.cut)] if result.cut is not None else []
    lines += [line for line in (result.ran, result.cited, result.verification) if line]
    if result.outcome == "error":
        lines.append(f"wisp: {result.error or 'the turn failed'}")
    return "\n\n" + "\n".join(lines) if lines else ""


def stop_reason(result: TurnResult) -> str:
    """``cancelled`` for a stopped turn, ``max_tokens`` for a reply cut at its cap, else
    ``end_turn`` (an error is said in the reply)."""
    if result.outcome == "stopped":
        return "cancelled"
    if result.cut is not None and "maxReplyTokens" in result.cut:
        return "max_tokens"
    return "end_turn"
