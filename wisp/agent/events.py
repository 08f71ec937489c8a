"""What a turn tells its face (plain chat, one-shot, the headless protocol) as it happens.

Data only: each face maps the values to its own output (the headless one to protocol lines,
encoded once at its edge).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import msgspec

from wisp.agent.types import Usage
from wisp.audit.event import AuditEvent
from wisp.facts.book import Fact


class TextFragment(msgspec.Struct, frozen=True):
    """A piece of the reply, as it streams."""

    text: str


class ContextFill(msgspec.Struct, frozen=True):
    """How full the window is: after each request (its prompt tokens, reported or estimated)
    and after a condensation (what the next request will carry)."""

    tokens: int
    window: int | None

    @property
    def used(self) -> float | None:
        """The share of the window, 0..1, or None when the window is unknown."""
        if not self.window:
            return None
        return round(min(self.tokens / self.window, 1.0), 3)


AgentEvent = TextFragment | ContextFill | AuditEvent
"""The stream a face reads: the reply's fragments as they come, how full the window is, and
every event the conversation records (the registry's Details Struct in its envelope), as it is
recorded."""

Emit = Callable[[AgentEvent], None]
"""A face's one subscription to a conversation: it is handed every ``AgentEvent``."""

Outcome = Literal["ok", "error", "stopped"]


class TurnResult(msgspec.Struct):
    """How a turn ended, and the lines under its reply (``ran:``, ``cited but not in this
    conversation:``, ``claimed but not done:``), computed from what was recorded."""

    turn: int
    outcome: Outcome
    text: str = ""
    error: str | None = None
    seconds: float = 0.0
    usage: Usage | None = None
    ran: str | None = None
    cited: str | None = None
    unknown_entries: list[int] = msgspec.field(default_factory=list)
    verification: str | None = None
    """``claimed but not done: ran the tests (no command ran)``: the reply's claims of actions
    no call of the turn did; None when it claims none, or every claim holds."""
    cut: str | None = None
    """Why the reply was cut short, for the note under it (it kept repeating itself, or ran
    past its token cap); None when it ended on its own."""
    killed: bool = False
    """A stopped turn whose work a second stop killed at once."""
    facts: list[Fact] = msgspec.field(default_factory=list)
    """The facts the turn recorded (what the model noted), for the end line and its note."""


def cut_note(why: str) -> str:
    """The note under a reply cut short: ``(the reply was cut: it kept repeating itself)``."""
    return f"(the reply was cut: {why})"
