"""``AuditLog``: records one session's events into a sink, stamping the envelope."""

from __future__ import annotations

import os

from wisp import __version__
from wisp.audit.details import Details
from wisp.audit.event import AuditEvent, Stamper
from wisp.audit.sinks import AuditSink


def new_session_id() -> str:
    """A session id: 16 random lowercase hex characters, like an event's."""
    return os.urandom(8).hex()


class AuditLog:
    """Records events for one session; the agent sets ``turn`` when a turn begins."""

    def __init__(
        self,
        sink: AuditSink,
        *,
        session: str | None = None,
        version: str = __version__,
        stamper: Stamper | None = None,
    ) -> None:
        self.sink = sink
        self.session = session or new_session_id()
        self.version = version
        self.turn: int | None = None
        """The 1-based turn, from the first prompt on; None (written as null) before it."""
        self._stamper = stamper or Stamper()

    def record(self, details: Details, *, call: str | None = None) -> AuditEvent:
        """Write one event of ``details``' kind and return it (its ``id`` links store entries)."""
        event = self.stamp(details, call=call)
        self.write(event)
        return event

    def stamp(self, details: Details, *, call: str | None = None) -> AuditEvent:
        """The event of ``details``' kind with its envelope (id, time, session, turn), not yet
        written: a conversation's recorder hands it to the face and to :meth:`write`."""
        stamper = self._stamper
        return AuditEvent(
            id=stamper.new_id(),
            time=stamper.now(),
            version=self.version,
            pid=stamper.pid,
            session=self.session,
            turn=self.turn,
            call=call,
            kind=details.kind,
            details=details,
        )

    def write(self, event: AuditEvent) -> None:
        """Append one stamped event to the sink (nowhere when the audit log is off)."""
        self.sink.write(event)

    def for_session(self, session: str) -> AuditLog:
        """A sibling log for another session that shares this one's sink."""
        return AuditLog(self.sink, session=session, version=self.version, stamper=self._stamper)

    def close(self) -> None:
        self.sink.close()
