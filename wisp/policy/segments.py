"""What the approval gate clears: a segment (one part of a line, or the whole line) and its keys.

A line's parts become segments, one per distinct part and verdict, so a part repeated word for word
is rated, recorded and cleared once. A segment's keys say which approvals cover it: its exact text
in its directory always, and its pattern (``git push *``) too unless it is dangerous or runs
outside the sandbox, which only an approval of that exact text may cover.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from pathlib import Path

import msgspec

from wisp.policy.types import LEVEL_ORDER, Assessment, Level, SimpleCommand

__all__ = ["Segment", "combined", "distinct_segments"]


class Segment(msgspec.Struct, frozen=True):
    """A part of the line (or the whole line) on its way through the gate."""

    command: str
    pattern: str
    """As shown and audited: the exact text when dangerous or outside the sandbox."""
    legacy_pattern: str | None
    assessment: Assessment
    line: str | None
    """The whole line, when this is one part of a longer one."""
    outside_sandbox: bool = False
    is_unreadable: bool = False
    """What runs is only known when the line runs: ``--yes`` never approves it."""

    @classmethod
    def of_part(cls, part: SimpleCommand, assessment: Assessment, line: str | None) -> Segment:
        is_dangerous = assessment.level == "dangerous"
        return cls(
            command=part.text,
            pattern=part.text if is_dangerous else part.pattern,
            legacy_pattern=part.legacy_pattern,
            assessment=assessment,
            line=line,
            is_unreadable=not part.readable,
        )

    @property
    def level(self) -> Level:
        return self.assessment.level

    def exact_key(self, directory: Path) -> str:
        # "directory \0 mark text": a run outside the sandbox has its own mark, so only an
        # approval given for running outside covers it.
        mark = "\x02" if self.outside_sandbox else "\x01"
        return f"{directory}\0{mark}{self.command}"

    def pattern_key(self, directory: Path) -> str | None:
        if self.outside_sandbox or self.level == "dangerous":
            return None
        return f"{directory}\0{self.pattern}"

    def remembered_key(self, directory: Path) -> str:
        return self.pattern_key(directory) or self.exact_key(directory)


def distinct_segments(
    parts: Sequence[SimpleCommand],
    assessments: Sequence[Assessment],
    seconds: Sequence[float] | None,
    line: str | None,
) -> tuple[list[Segment], list[float]]:
    """One segment per distinct part and verdict, in the order they first appear, with the
    first one's time: a repeated part adds no verdict, no question and no decision."""
    seen: dict[Hashable, int] = {}
    segments: list[Segment] = []
    timings: list[float] = []
    for index, (part, assessment) in enumerate(zip(parts, assessments, strict=True)):
        key = (part, _assessment_key(assessment))
        if key in seen:
            continue
        seen[key] = len(segments)
        segments.append(Segment.of_part(part, assessment, line))
        timings.append(seconds[index] if seconds else 0.0)
    return segments, timings


def combined(assessments: list[Assessment]) -> Assessment:
    """One verdict for several: the higher level wins; reasons, sources and metadata merge."""
    level = max((a.level for a in assessments), key=LEVEL_ORDER.__getitem__, default="safe")
    reasons = list(dict.fromkeys(r for a in assessments for r in a.reasons))
    sources = list(dict.fromkeys(s for a in assessments for s in a.sources))
    metadata = {k: v for a in assessments for k, v in a.metadata.items()}
    return Assessment(level=level, reasons=reasons, sources=sources, metadata=metadata)


def _assessment_key(assessment: Assessment) -> Hashable:
    # metadata is open (a classifier's own keys), so its values are compared by repr.
    metadata = tuple(sorted((key, repr(value)) for key, value in assessment.metadata.items()))
    return (assessment.level, tuple(assessment.reasons), tuple(assessment.sources), metadata)
