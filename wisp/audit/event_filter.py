"""Which stored events ``wisp logs`` (and ``inspect``) show: by session, kind or tool.

A filter is tested twice. First its needles are looked for in a line's raw bytes, so that only
lines that hold one (a kind's name, a session id's prefix) are decoded: over a large log most
lines never are. The decoded event is then checked for real, so the byte test only has to be
generous.
"""

from __future__ import annotations

from typing import Any

import msgspec

from wisp.audit.details import REGISTRY
from wisp.audit.event import StoredEvent, StoredHead

__all__ = ["EventFilter"]


class EventFilter(msgspec.Struct, frozen=True):
    """Which events ``wisp logs`` shows; an empty filter shows every one."""

    session: str | None = None
    """A session id or a prefix of one."""
    kinds: frozenset[str] = frozenset()
    tool: str | None = None
    """A tool's name: its tool.call, tool.result and output.kept, and the events of its work."""
    tool_kinds: frozenset[str] = frozenset()
    """Worked out from ``tool``: the kinds its work records."""

    def __post_init__(self) -> None:
        owned = {kind for kind, cls in REGISTRY.items() if cls.owner_tool == self.tool}
        msgspec.structs.force_setattr(
            self, "tool_kinds", frozenset(owned) if self.tool else frozenset()
        )

    def matches(self, event: StoredEvent | StoredHead) -> bool:
        if self.kinds and event.kind not in self.kinds:
            return False
        if self.session and not event.session.startswith(self.session):
            return False
        if self.tool:
            return event.kind in self.tool_kinds or _tool_of(event) == self.tool
        return True

    def select(self, events: list[Any]) -> list[bool]:
        """``matches`` for each event; a kind-only filter without a method call per event."""
        if self.session or self.tool:
            return [self.matches(event) for event in events]
        kinds = self.kinds
        if kinds:
            return [event.kind in kinds for event in events]
        return [True] * len(events)

    def needles(self) -> list[bytes]:
        """Byte strings one of which a matching line must hold (empty: no byte test)."""
        if self.kinds:
            return [_quoted(kind) for kind in sorted(self.kinds)]
        if self.tool:
            return [_quoted(self.tool)] + [_quoted(kind) for kind in sorted(self.tool_kinds)]
        if self.session:
            return [b'"' + self.session.encode()]
        return []


def _tool_of(event: StoredEvent | StoredHead) -> Any:
    details = event.details
    return details.get("tool") if isinstance(details, dict) else details.tool


def _quoted(word: str) -> bytes:
    return b'"' + word.encode() + b'"'
