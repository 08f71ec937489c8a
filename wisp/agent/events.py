"""What a turn tells its face (plain chat, one-shot, the headless protocol) as it happens.

Data only: each face maps them to its own output (D3: the headless one turns them into
protocol lines).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from wisp.agent.types import ToolCall, Usage


@dataclass(frozen=True, slots=True)
class TextFragment:
    """A piece of the reply, as it streams."""

    text: str


@dataclass(frozen=True, slots=True)
class ThinkingStarted:
    """The model began to think (the first thinking chunk arrived)."""


@dataclass(frozen=True, slots=True)
class ThinkingEnded:
    """The model's thinking, whole, once its reply or a tool call began."""

    text: str
    seconds: float
    tokens: int
    event_id: str


@dataclass(frozen=True, slots=True)
class ToolStarted:
    call: ToolCall


@dataclass(frozen=True, slots=True)
class ToolFinished:
    call: ToolCall
    output: str
    seconds: float
    event_id: str
    """The tool.result event's id (``/show`` takes its first 8 characters)."""


@dataclass(frozen=True, slots=True)
class Note:
    """Something the person should know that is not the reply (tools off, a retry…)."""

    text: str


AgentEvent = TextFragment | ThinkingStarted | ThinkingEnded | ToolStarted | ToolFinished | Note

Outcome = Literal["ok", "error", "stopped"]


@dataclass(slots=True)
class TurnResult:
    """How a turn ended, and the lines under its reply (agent.md §8)."""

    turn: int
    outcome: Outcome
    text: str = ""
    error: str | None = None
    seconds: float = 0.0
    usage: Usage | None = None
    ran: str | None = None
    cited: str | None = None
    unknown_entries: list[int] = field(default_factory=list)
    thoughts: list[ThinkingEnded] = field(default_factory=list)
    killed: bool = False
    """A stopped turn whose work a second stop killed at once (D8)."""
