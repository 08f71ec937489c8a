"""The conversation's recorder: each fact stamped once, then handed to the face subscribed.

Everything a session records (the agent's prompt and reply, the tools' ``tool.call`` and
``file.write``, the gate's verdicts, the session's own ``session.start``) goes through
``Recorder.record``. The stamped event, a typed ``AuditEvent`` holding the registry's Details
Struct, goes to the audit log's writer and to the face, the same value to both: the face never
reads the audit log. The turn's reply fragments and window fill reach the same face through
``show``: one stream, one subscriber (docs/design.md, "From a turn to its face"). The turn's
trail of the kinds the checks need is kept in memory, typed, for the lines under the reply.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Iterator
from typing import Protocol

from wisp.agent.events import AgentEvent, Emit
from wisp.audit.details import Details
from wisp.audit.event import AuditEvent

TRAIL_KINDS = frozenset(
    {"tool.call", "tool.result", "policy.decision", "command.outcome", "error", "model.reasoning"}
)
TRAIL_CAPACITY = 512


class AuditWriter(Protocol):
    """What the recorder needs of ``wisp.audit.AuditLog``: stamping, writing, the session."""

    session: str
    turn: int | None

    def stamp(self, details: Details, *, call: str | None = None) -> AuditEvent: ...

    def write(self, event: AuditEvent) -> None: ...


def _nobody(event: AgentEvent) -> None:
    """The face before one subscribes: the event is recorded, and shown nowhere."""


class Recorder:
    """Records into an audit writer (passed in), hands each event to the subscribed face, and
    remembers the trail kinds by turn."""

    def __init__(self, audit: AuditWriter, emit: Emit = _nobody) -> None:
        self.audit = audit
        self._face: Emit = emit
        """The face's half of the stream; a face sets it only through ``subscribe``."""
        self._trail: deque[AuditEvent] = deque(maxlen=TRAIL_CAPACITY)

    @property
    def session(self) -> str:
        return self.audit.session

    @property
    def turn(self) -> int | None:
        return self.audit.turn

    @contextlib.contextmanager
    def subscribe(self, emit: Emit) -> Iterator[None]:
        """While the block runs, every event recorded and every fragment shown goes to
        ``emit``; the face before it has them again after."""
        previous, self._face = self._face, emit
        try:
            yield
        finally:
            self._face = previous

    def show(self, event: AgentEvent) -> None:
        """Hand one event to the face: a fragment of the reply, the window's fill, or a
        recorded event."""
        self._face(event)

    def record(self, details: Details, *, call: str | None = None) -> str:
        """Record one event: written, kept in the trail if the checks need it, then shown;
        returns its id."""
        event = self.audit.stamp(details, call=call)
        self.audit.write(event)
        if event.kind in TRAIL_KINDS:
            self._trail.append(event)
        self._face(event)
        return event.id

    def take_turn(self, turn: int) -> list[AuditEvent]:
        """The turn's trail events, oldest first; the trail forgets them."""
        taken = [event for event in self._trail if event.turn == turn]
        kept = [event for event in self._trail if event.turn != turn]
        self._trail.clear()
        self._trail.extend(kept)
        return taken
