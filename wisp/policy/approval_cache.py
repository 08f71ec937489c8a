"""Approvals kept in memory: for this turn (scope ``once``) and for this process (``session``).

Each cache keeps the highest level approved per key (see ``Segment``'s keys): an approval of a
moderate ``git push *`` covers the next moderate push, not a dangerous one.
"""

from __future__ import annotations

import threading
from pathlib import Path

from wisp.policy.segments import Segment
from wisp.policy.types import LEVEL_ORDER

__all__ = ["ApprovalCache", "SessionApprovals"]


class ApprovalCache:
    """The highest level approved per key, behind a lock: the session's cache is shared by every
    gate of the process, whatever thread or event loop it runs on."""

    def __init__(self) -> None:
        self._levels: dict[str, int] = {}
        self._lock = threading.Lock()

    def covers(self, segment: Segment, directory: Path) -> bool:
        needed = LEVEL_ORDER[segment.level]
        keys = (segment.exact_key(directory), segment.pattern_key(directory))
        with self._lock:
            return any(key is not None and self._levels.get(key, -1) >= needed for key in keys)

    def remember(self, segment: Segment, directory: Path) -> None:
        key = segment.remembered_key(directory)
        level = LEVEL_ORDER[segment.level]
        with self._lock:
            self._levels[key] = max(level, self._levels.get(key, -1))

    def clear(self) -> None:
        with self._lock:
            self._levels.clear()


class SessionApprovals(ApprovalCache):
    """Approvals with scope ``session``: one per process, passed to every gate it makes."""
