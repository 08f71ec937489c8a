"""The conversation store's entries (docs/store.md, "Entries"): numbered from 1, never edited,
never reused."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from wisp.tool_call import ToolCall

EntryKind = Literal[
    "instructions", "prompt", "toolCalls", "toolOutput", "response", "reasoning", "command", "other"
]  # fmt: skip
Origin = Literal["turn", "carried", "resumed"]


class Source(msgspec.Struct, frozen=True):
    """The audit event that recorded an entry's content."""

    session: str
    turn: int | None
    event: str


class ToolOutputValue(msgspec.Struct, frozen=True, rename="camel"):
    call_id: str
    tool: str
    text: str


class ReplyCut(msgspec.Struct, frozen=True):
    """A stretch of a reply that reproduced a tool output, carried by later requests as a
    marker in its place (docs/turn.md, "Copies of output cut from later requests")."""

    segment: int
    """The stretch's number in the reply, from 1."""
    start: int
    end: int
    """Byte offsets into the reply's UTF-8 text: the stretch is ``[start, end)``."""
    output: int
    """The store id of the tool output it reproduced."""
    tool: str


class Entry(msgspec.Struct, kw_only=True, rename="camel", omit_defaults=True):
    """One entry. ``value`` by kind: text, a list of ToolCall, or a ToolOutputValue."""

    id: int
    kind: EntryKind
    origin: Origin
    turn: int | None
    value: Any
    sources: list[Source] = msgspec.field(default_factory=list)
    time: str | None = None
    """ISO 8601 UTC: a prompt's send time, a tool output's result time, else when stored."""
    active: bool = True
    dropped_by: str | None = None
    dropped_at: int | None = None
    referenced_at: int | None = None
    """Tool outputs: the turn from whose first request the output went as a reference."""
    cuts: list[ReplyCut] = msgspec.field(default_factory=list)
    """Replies: the stretches later requests carry as a marker; the text stays whole."""

    @property
    def text(self) -> str:
        """The entry's content as text (a tool output's text; calls as name + JSON)."""
        value = self.value
        if isinstance(value, ToolOutputValue):
            return value.text
        if isinstance(value, list):
            return "\n".join(
                f"{call.name} {msgspec.json.encode(call.arguments).decode()}" for call in value
            )
        return str(value)


def decode_value(kind: EntryKind, raw: Any) -> Any:
    """An entry's value from its saved JSON form, checked for its kind."""
    if kind == "toolCalls":
        return msgspec.convert(raw, list[ToolCall])
    if kind == "toolOutput":
        return msgspec.convert(raw, ToolOutputValue)
    return msgspec.convert(raw, str)
