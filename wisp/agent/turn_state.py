"""What a running turn holds, shared by the turn (``wisp/agent/loop.py``) and the rooms it hands
parts of its work to: the context planner (``condensing.py``), the reply's stream
(``streaming.py``) and the checks under the reply (``reply_checks.py``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec

from wisp.agent.types import ToolCall, ToolCallRequested, ToolSpec, Usage
from wisp.store import PendingEntry


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TurnState(msgspec.Struct):
    """The running turn's state; kept apart so a stopped turn can still be stored."""

    number: int
    started: float
    pending: list[PendingEntry] = msgspec.field(default_factory=list)
    usage: Usage | None = None
    calls: dict[str, ToolCall] = msgspec.field(default_factory=dict)
    answered: set[str] = msgspec.field(default_factory=set)
    unparsed: dict[str, str] = msgspec.field(default_factory=dict)
    """A failed call's arguments as written, by call id, when they did not parse: not run."""
    call_events: dict[str, str] = msgspec.field(default_factory=dict)
    """Each call's ``tool.call`` event id, as ``AuditedTools.run`` returned it."""
    cut: str | None = None
    """Why the reply was cut short (it kept repeating itself, or ran past its cap)."""
    looped: str | None = None
    """The tool the model called again with the same arguments, straight after the first call
    or a third time: no more tools this turn, and one request for the answer."""
    reminder: str | None = None
    """Sent (not stored) with the next request only: the model answered without looking, or
    after a refused edit (``ReplyChecks.reminder``)."""
    reminded: bool = False
    urged: bool = False
    """The model said what it would do and made no call, and was told to make it (once a turn:
    ``ReplyChecks.reminder``)."""
    offered: list[ToolSpec] = msgspec.field(default_factory=list)
    """The tools the turn's last request with tools offered: a request asked again keeps them
    in its prompt (``ChatRequest.kept_in_prompt``)."""
    last_call: str = ""
    """The last call made, as its tool and arguments: the next one repeats it in a row."""
    headroom: int | None = None
    """What the turn is expected to take besides its prompt, set at its first request."""
    condensed: bool = False
    overflowed: bool = False
    """A request of this turn overflowed the window once; a second overflow fails it."""
    floor_noted: bool = False
    schema: dict[str, Any] | None = None
    """The JSON Schema a reply is held to, on the requests that offer no tools."""


class Reply(msgspec.Struct):
    """What one request streamed back."""

    text: str = ""
    calls: list[ToolCallRequested] = msgspec.field(default_factory=list)
