"""The audit events the approval gate records: a verdict per segment, a question, a decision.

A part's events carry at most ``EVENT_LINE_CHARS`` of the line it belongs to; the whole line is
recorded once per call in ``policy.decision`` (by the command runner), so a line of thousands of
parts writes a log linear in its length, not in its length times its parts.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from msgspec import UNSET, UnsetType

from wisp.audit.kinds import ApprovalDecided, ApprovalRequested, ClassifierVerdict
from wisp.policy.segments import Segment
from wisp.policy.types import Scope

__all__ = ["EVENT_LINE_CHARS", "Decision", "GateEvent", "GateRecorder", "Record"]

GateEvent = ClassifierVerdict | ApprovalRequested | ApprovalDecided
Record = Callable[[GateEvent], str]
"""Writes one audit event and returns its id (the conversation's recorder)."""

EVENT_LINE_CHARS = 240
"""How much of a long line each of its parts' events carries (docs/logging.md): as much as
``wisp logs`` shows of a value."""


class Decision(msgspec.Struct):
    """An ``approval.decided`` event's variable fields."""

    decision: str
    scope: Scope | UnsetType = UNSET
    reason: str | None = None
    approval_id: str | None = None
    expires_at: str | None = None
    downgraded_from: str | UnsetType = UNSET
    persist_error: str | UnsetType = UNSET


class GateRecorder:
    """Turns what the gate does to a segment into the events ``record`` writes."""

    def __init__(self, record: Record) -> None:
        self._record = record

    def verdict(self, segment: Segment, seconds: float) -> None:
        assessment = segment.assessment
        self._record(
            ClassifierVerdict(
                command=segment.command,
                pattern=segment.pattern,
                line=event_line(segment.line) if segment.line is not None else UNSET,
                level=assessment.level,
                reasons=list(assessment.reasons),
                sources=list(assessment.sources),
                seconds=seconds,
                metadata=dict(assessment.metadata) if assessment.metadata else UNSET,
            )
        )

    def requested(self, segment: Segment) -> None:
        self._record(
            ApprovalRequested(
                command=segment.command,
                pattern=segment.pattern,
                line=event_line(segment.line) if segment.line else segment.command,
                level=segment.level,
                outside_sandbox=True if segment.outside_sandbox else UNSET,
            )
        )

    def decided(self, segment: Segment, decision: Decision) -> None:
        self._record(
            ApprovalDecided(
                command=segment.command,
                pattern=segment.pattern,
                line=event_line(segment.line) if segment.line is not None else UNSET,
                decision=decision.decision,
                scope=decision.scope,
                reason=decision.reason,
                approval_id=decision.approval_id,
                expires_at=decision.expires_at,
                downgraded_from=decision.downgraded_from,
                persist_error=decision.persist_error,
                outside_sandbox=True if segment.outside_sandbox else UNSET,
            )
        )


def event_line(line: str) -> str:
    """The line as a part's event carries it: whole up to ``EVENT_LINE_CHARS``, else its start
    and a mark pointing to the call's ``policy.decision``, which records it whole."""
    if len(line) <= EVENT_LINE_CHARS:
        return line
    rest = len(line) - EVENT_LINE_CHARS
    return f"{line[:EVENT_LINE_CHARS]}… [{rest:,} more characters: see policy.decision]"
