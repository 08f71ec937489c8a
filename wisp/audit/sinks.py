"""Where audit events go: a file (``FileSink``, in ``file_sink``), memory (tests), or nowhere.

A face never reads them here: a conversation's recorder hands each event to the face and to
the sink, the same value to both."""

from __future__ import annotations

from typing import Protocol

from wisp.audit.event import AuditEvent


class AuditSink(Protocol):
    """Receives whole events; one call, one line."""

    def write(self, event: AuditEvent) -> None: ...

    def close(self) -> None: ...


class MemorySink:
    """Keeps events in a list, for tests to assert on."""

    def __init__(self) -> None:
        self.events: list[AuditEvent] = []

    def write(self, event: AuditEvent) -> None:
        self.events.append(event)

    def close(self) -> None:
        pass

    def kinds(self) -> list[str]:
        return [event.kind for event in self.events]


class NullSink:
    """Drops every event: the audit log is disabled (``audit.enabled`` false)."""

    def write(self, event: AuditEvent) -> None:
        pass

    def close(self) -> None:
        pass
