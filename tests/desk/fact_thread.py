"""A ``wisp mcp`` thread's side of a fact to keep, in this process: a real ``FactKeeper`` filing
a caller's proposal, with the answers it applies and the events it records kept for the test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wisp.audit import AuditLog
from wisp.audit.sinks import MemorySink
from wisp.desk.fact import FactKeeper
from wisp.facts.book import FactBook


class FactThread:
    """Thread ``git`` of client ``zed``, proposing ``release codename = BLUE HERON`` (c1)."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.sink = MemorySink()
        log = AuditLog(self.sink)
        self.applied: list[tuple[str, str]] = []
        self.keeper = FactKeeper(
            home, apply=self._apply, record=lambda d: log.record(d).id, thread="git",
            client="zed",
        )  # fmt: skip
        self.book = FactBook()
        self.book.record(
            "release", "codename", "BLUE HERON", source="caller", method="stated",
            fact_class="permanent",
        )  # fmt: skip

    def propose(self) -> None:
        self.keeper.propose(self.book.get("c1"))

    def settled(self) -> Any:
        return next(e.details for e in self.sink.events if e.kind == "approval.settled")

    def _apply(self, fact_id: str, decision: str) -> str:
        self.applied.append((fact_id, decision))
        return "p1"
