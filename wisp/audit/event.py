"""The audit event envelope (docs/logging.md, "Event envelope"), for writing and for reading.

``AuditEvent`` is what wisp writes: every envelope field in that order on every line,
``turn`` and ``call`` null where they do not apply (before the first prompt; outside a tool
call), ``details`` one registered ``Details`` Struct.
``StoredEvent`` is what a reader gets back: every field lenient, because a line may come from
another release (no ``id`` before ids were added, a kind this build does not know).
"""

from __future__ import annotations

import os
import time
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from wisp.audit.details import Details
from wisp.audit.forking import reset_after_fork

SCHEMA_VERSION = 1


class AuditEvent(msgspec.Struct, kw_only=True):
    """One line of the audit log, as written."""

    schema: int = SCHEMA_VERSION
    id: str
    time: str
    version: str
    pid: int
    session: str
    turn: int | None = None
    call: str | None = None
    kind: str
    details: Details


class _StoredEnvelope(msgspec.Struct, kw_only=True):
    """The envelope as read: every field lenient, because a line may come from another release
    (no ``id`` before ids were added, a kind this build does not know)."""

    schema: int | UnsetType = UNSET
    id: str | UnsetType = UNSET
    time: str = ""
    version: str = ""
    pid: int | UnsetType = UNSET
    session: str = ""
    turn: int | None = None
    call: str | None = None
    kind: str = ""


class StoredEvent(_StoredEnvelope, kw_only=True):
    """One line of the audit log, as read: details stay an open mapping (any kind, any release)."""

    details: dict[str, Any] = msgspec.field(default_factory=dict)


class StoredDetailsHead(msgspec.Struct):
    """Of a stored event's details, only what a filter reads (``tool``); the rest is skipped."""

    tool: Any = None


class StoredHead(_StoredEnvelope, kw_only=True):
    """A stored line's envelope, for filtering without building its details (``wisp logs --json``).

    It shares ``StoredEvent``'s envelope, so a line decodes as one where it decodes as the other,
    save that the details' contents are only checked to be well-formed JSON in an object, not
    turned into Python values (so, say, invalid UTF-8 inside a detail's string goes unnoticed).
    """

    details: StoredDetailsHead = msgspec.field(default_factory=StoredDetailsHead)


class Stamper:
    """Makes each event's ``id`` (16 random lowercase hex) and ``time`` (ISO 8601 UTC, ms, ``Z``).

    Both are on the writer's hot path (bench/audit_append.py), so random bytes are drawn from the
    kernel in blocks and turned to hex a block at a time, the formatted second is reused until
    the clock moves on, and the milliseconds come from a table rather than a format spec
    (an f-string with ``:03d`` cost more than the rest of the stamp). A forked child starts a
    block of its own and learns its pid (``reset_after_fork``), so ids never repeat across
    processes.
    """

    _BLOCK_IDS = 256

    def __init__(self) -> None:
        self._hex = ""
        self._offset = 0
        self.pid = os.getpid()
        """The writing process's id; a forked child's own (``after_fork``)."""
        self._second = -1
        self._second_text = ""
        reset_after_fork(self)

    def new_id(self) -> str:
        start = self._offset
        if start >= len(self._hex):
            self._refill()
            start = 0
        self._offset = start + 16
        return self._hex[start : start + 16]

    def now(self) -> str:
        return self.format_time(time.time_ns())

    def format_time(self, ns: int) -> str:
        second, rest = divmod(ns, 1_000_000_000)
        if second != self._second:
            self._second = second
            self._second_text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return self._second_text + _MILLISECONDS[rest // 1_000_000]

    def after_fork(self) -> None:
        """Forget what the parent drew; the child draws its own."""
        self._hex = ""
        self._offset = 0
        self.pid = os.getpid()

    def _refill(self) -> None:
        self._hex = os.urandom(8 * self._BLOCK_IDS).hex()
        self._offset = 0


_MILLISECONDS = tuple(f".{ms:03d}Z" for ms in range(1000))
"""``.000Z`` … ``.999Z``: a time's end, by its millisecond."""
