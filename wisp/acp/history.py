"""A loaded session's history as the session updates that replay it to the client
(docs/acp.md, "Sessions"): each prompt a ``user_message_chunk``, each reply an
``agent_message_chunk``, its reasoning an ``agent_thought_chunk``, and each tool call one
``tool_call`` with its final status and output, as the live turn's last update gave them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from acp import update_agent_message_text, update_agent_thought_text, update_user_message_text

from wisp.acp.updates import call_content, call_started
from wisp.audit.kinds import ToolCall
from wisp.store import Entry, ToolOutputValue


def history_updates(entries: Iterable[Entry], working_directory: Path) -> list[Any]:
    """The updates that replay ``entries`` (a store's, in order). The instructions are not
    the conversation's, and a command typed in chat (``!``) has no place in ACP: neither is
    replayed. Every stored call has its output (docs/store.md, "Turns")."""
    entries = list(entries)
    outputs = {e.value.call_id: e.value for e in entries if isinstance(e.value, ToolOutputValue)}
    updates: list[Any] = []
    for entry in entries:
        text = entry.value if isinstance(entry.value, str) else ""
        if entry.kind == "prompt" and text:
            updates.append(update_user_message_text(text))
        elif entry.kind == "response" and text:
            updates.append(update_agent_message_text(text))
        elif entry.kind == "reasoning" and text:
            updates.append(update_agent_thought_text(text))
        elif entry.kind == "toolCalls" and isinstance(entry.value, list):
            for call in entry.value:
                output = outputs.get(call.id)
                if output is not None:
                    updates.append(_finished_call(call.id, call, output, working_directory))
    return updates


def _finished_call(call_id: str, call: Any, output: ToolOutputValue, folder: Path) -> Any:
    details = ToolCall(tool=call.name, arguments=call.arguments)
    failed = output_failed(call.name, output.text)
    return call_started(
        call_id,
        details,
        folder,
        status="failed" if failed else "completed",
        content=call_content(details, output.text, failed, folder),
        raw_output=output.text,
    )


def output_failed(tool: str, text: str) -> bool:
    """Whether a stored output says its call failed, as the live ``tool_call_update`` said
    from the audit events: a refusal or an error (``error: …``), a command that ended with a
    non-zero status or was cut at its time limit."""
    if text.startswith("error:"):
        return True
    if tool != "run_command":
        return False
    first, _, rest = text.partition("\n")
    return first != "exit status: 0" or rest.startswith("timed out:")
