"""Composing a request from the store, and the reference form of a tool output.

See docs/turn.md, "What a request carries", and docs/store.md, "References".

Every request carries the whole composition: the instructions, the active entries in store
order with earlier turns' tool outputs as references, then the running turn's own entries
whole. Reasoning is never sent back.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from datetime import datetime

import msgspec

from wisp.agent.cuts import cut_text
from wisp.agent.text import bounded, utf8_len
from wisp.agent.types import Message, ToolCall
from wisp.store import Entry, PendingEntry, ToolOutputValue

READ_ONLY_TOOLS = frozenset({"read_file", "inspect", "system_info", "current_date"})
REFERENCE_BYTES = 576  # a reference's most bytes (docs/store.md, "References")
_NOT_CONTENT = ("exit status:", "stdout:", "stderr:", "timed out:", "stopped:")
_TRAILING_MARKERS = ("[truncated:", "[held back:", "[more: call again with offset", "[end of file")


def compose(
    instructions: str,
    stored: Iterable[Entry],
    running: Iterable[PendingEntry],
    *,
    memory: bool,
    references: Callable[[Entry], str] | None = None,
) -> list[Message]:
    """The messages of one request. ``stored`` is the entries a request carries (the store's
    ``live()``: active ones, instructions left out); ``references`` gives an earlier output's
    reference (made afresh when not given)."""
    messages = [Message(role="system", content=instructions)]
    stored = list(stored)
    if references is None:
        calls = calls_by_id(stored)
        references = functools.partial(reference, memory=memory, calls=calls)
    for entry in stored:
        if entry.active and entry.kind != "instructions":
            append_entry(messages, entry.kind, entry.value, replacement(entry, references))
    for pending in running:
        append_entry(messages, pending.kind, pending.value, None)
    return messages


def replacement(entry: Entry, references: Callable[[Entry], str]) -> str | None:
    """What a request carries in place of a stored entry's value: an earlier output's
    reference once it is marked, a reply with its cut stretches as markers (``cuts.py``);
    None: the value itself."""
    if entry.referenced_at is not None:
        return references(entry)
    if entry.cuts:
        return cut_text(str(entry.value), entry.cuts)
    return None


def compose_entry(kind: str, value: object, replaced: str | None) -> list[Message]:
    """The message (or none) one entry becomes on its own, to measure it."""
    messages: list[Message] = []
    append_entry(messages, kind, value, replaced)
    return messages


def calls_by_id(entries: Iterable[Entry]) -> dict[str, ToolCall]:
    """Every stored tool call by its id, for the references' ``arguments:`` lines."""
    return {
        call.id: call
        for entry in entries
        if entry.kind == "toolCalls"
        for call in entry.value  # type: ignore[union-attr]
    }


def append_entry(messages: list[Message], kind: str, value: object, replaced: str | None) -> None:
    """Add one entry to ``messages``: text the model wrote before its calls shares the calls'
    message; ``replaced`` stands for a tool output's text (its reference) or a reply's (its
    cut form)."""
    match kind:
        case "prompt" | "command" | "other":
            messages.append(Message(role="user", content=str(value)))
        case "response":
            content = str(value) if replaced is None else replaced
            messages.append(Message(role="assistant", content=content))
        case "toolCalls":
            calls = list(value)  # type: ignore[call-overload]
            last = messages[-1] if messages else None
            if last is not None and last.role == "assistant" and not last.tool_calls:
                last.tool_calls = calls  # text the model wrote before its calls: one message
            else:
                messages.append(Message(role="assistant", tool_calls=calls))
        case "toolOutput":
            assert isinstance(value, ToolOutputValue)
            content = value.text if replaced is None else replaced
            messages.append(
                Message(
                    role="tool", content=content, tool_call_id=value.call_id, tool_name=value.tool
                )
            )
        case _:
            pass  # reasoning is never sent; instructions come first, from the caller


def reference(entry: Entry, *, memory: bool, calls: dict[str, ToolCall] | None = None) -> str:
    """``[output of entry 7 not repeated: read_file at 14:05:12, ok, 101 lines, …]`` and its
    ``arguments:``, ``first line:``, ``last line:`` and ``paging:`` lines."""
    value = entry.value
    assert isinstance(value, ToolOutputValue)
    text = value.text
    header = f"output of entry {entry.id} not repeated: {value.tool[:40]}"
    if clock := _local_time(entry.time):
        header += f" at {clock}"
    lines = text.split("\n")
    count = len(lines)
    header += f", {_status(value.tool, text)}, {count} line{'s' if count != 1 else ''}"
    size = utf8_len(text)
    header += f", {size} byte{'s' if size != 1 else ''}; {_hint(entry.id, value.tool, memory)}"
    parts = [f"[{header}]"]
    call = (calls or {}).get(value.call_id)
    if call is not None:
        arguments = " ".join(msgspec.json.encode(call.arguments).decode().split())
        parts.append("arguments: " + _cut(arguments, 200))
    content, paging = _content_lines(value.tool, lines)
    if content:
        parts.append("first line: " + _cut(content[0], 100))
    if len(content) > 1:
        parts.append("last line: " + _cut(content[-1], 100))
    if paging:
        parts.append(f"paging: more from offset {paging}")
    return bounded("\n".join(parts), REFERENCE_BYTES)


def _status(tool: str, text: str) -> str:
    if text.startswith("error:"):
        return "failed"
    if tool == "run_command":
        first = next((line for line in text.split("\n") if line.strip()), "")
        if first.startswith("exit status: "):
            return "exit status " + first.removeprefix("exit status: ").strip()
    return "ok"


def _hint(entry_id: int, tool: str, memory: bool) -> str:
    if memory:
        return f'to see it: memory "recall entry {entry_id}"'
    if tool in READ_ONLY_TOOLS:
        return "call it again to see it"
    return "its output is not repeated; do not run it again to see it"


def _content_lines(tool: str, lines: list[str]) -> tuple[list[str], str | None]:
    content = [line.strip() for line in lines if line.strip()]
    if tool == "run_command":
        content = [line for line in content if not line.startswith(_NOT_CONTENT)]
    paging = None
    while content and content[-1].startswith(_TRAILING_MARKERS):
        marker = content.pop()
        if marker.startswith("[more: call again with offset"):
            paging = marker.removeprefix("[more: call again with offset").strip(" ]")
    return content, paging


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _local_time(iso: str | None) -> str | None:
    if not iso:
        return None
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.astimezone().strftime("%H:%M:%S")


NOTICE_WHOLE_BYTES = 320


def command_notice(
    *,
    line: str,
    directory: str,
    clock: str | None,
    exit_status: int | None,
    timed_out: bool,
    stopped: bool,
    output: str,
    entry_id: int,
    memory: bool,
) -> str:
    """How the model learns of a command the person typed: one entry, always this form,
    never bare output."""
    at = f" at {clock}" if clock else ""
    line_count = output.count("\n") + 1 if output else 0
    status = f"exit status {exit_status}" if exit_status is not None else "it did not start"
    if timed_out:
        status += ", timed out"
    if stopped:
        status += ", stopped"
    count = f"{line_count} line{'s' if line_count != 1 else ''}"
    head = (
        f"[the person ran `{line}` themselves in {directory}{at} ({status}, {count}); "
        "this was not your action; "
    )
    if not output:
        return head + "it printed nothing]"
    if utf8_len(output) <= NOTICE_WHOLE_BYTES:
        return head + "its output:]\n" + output
    hint = (
        f'to see the output: memory "recall entry {entry_id}"'
        if memory
        else ("its output is not repeated")
    )
    parts = [head + hint + "]"]
    first, last = _first_and_last_lines(output)
    if first is not None:
        parts.append("first line: " + _cut(first, 100))
    if last is not None:
        parts.append("last line: " + _cut(last, 100))
    return "\n".join(parts)


def _first_and_last_lines(output: str) -> tuple[str | None, str | None]:
    """The first and the last line that are not blank, stripped; the last is None when it is
    the first. Found by offsets, never by splitting: the output may be 16 MiB of short lines."""
    start = len(output) - len(output.lstrip())
    if start == len(output):
        return None, None
    end = len(output.rstrip())
    first_end = output.find("\n", start)
    first = output[start : end if first_end < 0 else min(first_end, end)].strip()
    last_start = output.rfind("\n", start, end) + 1
    if last_start == 0:
        return first, None
    return first, output[last_start:end].strip()
