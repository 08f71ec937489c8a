"""The audit event envelope (seed: "Event envelope"), for writing and for reading.

``AuditEvent`` is what wisp writes: every envelope field in the seed's order on every line,
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


class StoredEvent(msgspec.Struct, kw_only=True):
    """One line of the audit log, as read: details stay an open mapping (any kind, any release)."""

    schema: int | UnsetType = UNSET
    id: str | UnsetType = UNSET
    time: str = ""
    version: str = ""
    pid: int | UnsetType = UNSET
    session: str = ""
    turn: int | None = None
    call: str | None = None
    kind: str = ""
    details: dict[str, Any] = msgspec.field(default_factory=dict)


class Stamper:
    """Makes each event's ``id`` (16 random lowercase hex) and ``time`` (ISO 8601 UTC, ms, ``Z``).

    Both are on the writer's hot path, so random bytes are drawn from the kernel in blocks and
    the formatted second is reused until the clock moves on. A forked child starts a block of
    its own (``reset_after_fork``), so ids never repeat across processes.
    """

    _BLOCK_IDS = 256

    def __init__(self) -> None:
        self._random = b""
        self._offset = 0
        self._pid = 0
        self._second = -1
        self._second_text = ""
        reset_after_fork(self)

    @property
    def pid(self) -> int:
        if not self._pid:
            self._pid = os.getpid()
        return self._pid

    def new_id(self) -> str:
        if self._offset >= len(self._random):
            self._refill()
        start = self._offset
        self._offset = start + 8
        return self._random[start : start + 8].hex()

    def now(self) -> str:
        return self.format_time(time.time_ns())

    def format_time(self, ns: int) -> str:
        second, rest = divmod(ns, 1_000_000_000)
        if second != self._second:
            self._second = second
            self._second_text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self._second_text}.{rest // 1_000_000:03d}Z"

    def after_fork(self) -> None:
        """Forget what the parent drew; the child draws its own."""
        self._random = b""
        self._offset = 0
        self._pid = 0

    def _refill(self) -> None:
        self._random = os.urandom(8 * self._BLOCK_IDS)
        self._offset = 0

