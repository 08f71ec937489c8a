"""The conversation's audit recorder: writes each event and keeps the turn's trail.

Tools write their own events (``tool.call``, ``file.write``…), so the conversation's audit
stream is teed into a bounded in-memory trail of the kinds the checks and the store's links
need (agent.md §2.4). At turn end the agent takes that turn's events.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from wisp.agent.checks import TrailEvent, trail_event

TRAIL_KINDS = frozenset(
    {"tool.call", "tool.result", "policy.decision", "command.outcome", "error", "model.reasoning"}
)
TRAIL_CAPACITY = 512


class Recorder:
    """Records into an ``AuditLog`` (passed in) and remembers the trail kinds by turn."""

    def __init__(self, audit: Any) -> None:
        self.audit = audit
        self._trail: deque[tuple[int | None, str, TrailEvent]] = deque(maxlen=TRAIL_CAPACITY)

    @property
    def session(self) -> str:
        return self.audit.session

    @property
    def turn(self) -> int | None:
        return self.audit.turn

    def record(self, details: Any, *, call: str | None = None) -> str:
        """Write one event; return its id."""
        event = self.audit.record(details, call=call)
        if event.kind in TRAIL_KINDS:
            self._trail.append((event.turn, event.id, trail_event(event.kind, call, details)))
        return event.id

    def take_turn(self, turn: int) -> list[tuple[str, TrailEvent]]:
        """The turn's trail events with their ids, oldest first; the trail forgets them."""
        taken = [(event_id, event) for t, event_id, event in self._trail if t == turn]
        kept = [item for item in self._trail if item[0] != turn]
        self._trail.clear()
        self._trail.extend(kept)
        return taken
