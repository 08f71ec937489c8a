"""What the approval gate clears: a segment (one part of a line, or the whole line) and its keys.

A line's parts become segments, one per distinct part and verdict, so a part repeated word for word
is rated, recorded and cleared once. A segment's keys say which approvals cover it: its exact text
in its directory always, and its pattern (``git push *``) too unless it is dangerous or runs
outside the sandbox, which only an approval of that exact text may cover. A part that would run
with the network (docs/policy.md, "The network mark") carries the mark in both keys and in its
pattern (``curl * (network)``), so only an approval given for the network covers it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from pathlib import Path

import msgspec

from wisp.policy.types import ASKED_EACH_TIME, LEVEL_ORDER, Assessment, Level, SimpleCommand

__all__ = ["NETWORK_MARK", "Segment", "combined", "distinct_segments"]

NETWORK_MARK = " (network)"
"""Ends the pattern of a part approved with the network, as shown, audited and stored."""


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
    network: bool = False
    """Approved, it runs with the network: asked whatever its level, keyed apart."""

    @classmethod
    def of_part(
        cls, part: SimpleCommand, assessment: Assessment, line: str | None, *, network: bool = False
    ) -> Segment:
        is_dangerous = assessment.level == "dangerous"
        pattern = part.text if is_dangerous else part.pattern
        return cls(
            command=part.text,
            pattern=pattern + NETWORK_MARK if network else pattern,
            # An approval stored before verbs never covered the network.
            legacy_pattern=None if network else part.legacy_pattern,
            assessment=assessment,
            line=line,
            is_unreadable=not part.readable,
            network=network,
        )

    @property
    def level(self) -> Level:
        return self.assessment.level

    @property
    def is_asked_each_time(self) -> bool:
        """Asked whatever the threshold, never remembered, approved once at most
        (``ASKED_EACH_TIME``)."""
        return ASKED_EACH_TIME in self.assessment.metadata

    @property
    def is_once_only(self) -> bool:
        """An approval of it covers this request alone."""
        return self.outside_sandbox or self.is_asked_each_time

    def exact_key(self, directory: Path) -> str:
        # "directory \0 mark text": a run outside the sandbox has its own mark, so only an
        # approval given for running outside covers it.
        mark = "\x02" if self.outside_sandbox else "\x03" if self.network else "\x01"
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
    network: Sequence[bool] | None = None,
) -> tuple[list[Segment], list[float]]:
    """One segment per distinct part and verdict, in the order they first appear, with the
    first one's time: a repeated part adds no verdict, no question and no decision.
    ``network`` says of each part whether it would run with the network once approved."""
    seen: dict[Hashable, int] = {}
    segments: list[Segment] = []
    timings: list[float] = []
    for index, (part, assessment) in enumerate(zip(parts, assessments, strict=True)):
        needs_network = bool(network and network[index])
        key = (part, _assessment_key(assessment), needs_network)
        if key in seen:
            continue
        seen[key] = len(segments)
        segments.append(Segment.of_part(part, assessment, line, network=needs_network))
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
