"""The audit log: what wisp was asked, decided, ran and got back, one JSON line an event.

Kinds and their fields are registered in ``kinds`` (one Struct per kind; docs/logging.md);
``AuditLog`` stamps the envelope; ``FileSink`` appends under a lock and rotates; ``reader``
reads every file back, oldest first.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from wisp.audit import kinds  # noqa: F401  (registers every kind)
from wisp.audit.details import REGISTRY, Details, field_names, register
from wisp.audit.event import AuditEvent, Stamper, StoredEvent
from wisp.audit.file_sink import FileSink
from wisp.audit.log import AuditLog, new_session_id
from wisp.audit.sinks import AuditSink, MemorySink, NullSink


class AuditSettings(msgspec.Struct, frozen=True):
    """config.json's ``audit`` object, checked."""

    enabled: bool = True
    max_file_bytes: int = 10_485_760
    keep_files: int = 5


def open_sink(settings: AuditSettings, audit_file: Path) -> AuditSink:
    """The file sink the settings ask for, or a null sink when the log is disabled."""
    if not settings.enabled:
        return NullSink()
    return FileSink(
        audit_file, max_file_bytes=settings.max_file_bytes, keep_files=settings.keep_files
    )


__all__ = [
    "REGISTRY",
    "AuditEvent",
    "AuditLog",
    "AuditSettings",
    "AuditSink",
    "Details",
    "FileSink",
    "MemorySink",
    "NullSink",
    "Stamper",
    "StoredEvent",
    "field_names",
    "new_session_id",
    "open_sink",
    "register",
]
