"""Where audit events go: a file (``FileSink``, in ``file_sink``), memory (tests), nowhere, or
another sink and a listener (``TeeSink``)."""

from __future__ import annotations

from collections.abc import Callable
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


class TeeSink:
    """Writes to ``inner`` and then tells ``listener``: how a face sees every audit event of
    its conversation as it is recorded (the headless chat's ``event`` lines)."""

    def __init__(self, inner: AuditSink, listener: Callable[[AuditEvent], None]) -> None:
        self.inner = inner
        self.listener = listener

    def write(self, event: AuditEvent) -> None:
        self.inner.write(event)
        self.listener(event)

    def close(self) -> None:
        self.inner.close()
