"""A scan as the faces run it (``wisp scan``, ``wisp redact``, ``wisp mcp``'s tools): the rules,
then the thorough pass when one was asked for, and the audit events that record it, which
carry counts and kinds, never a value (docs/scan.md, "What is logged")."""

from __future__ import annotations

from collections import Counter

import msgspec

from wisp.audit.kinds import Redaction, SecretsScan
from wisp.scan.finding import Finding, find
from wisp.scan.rules import PERSONAL_CLASSIFIER
from wisp.scan.thorough import Thorough


class Scanned(msgspec.Struct):
    """What a scan of one text found."""

    findings: list[Finding]
    thorough: bool = False
    """Whether a model read the text after the rules."""
    failed_chunks: int = 0
    """Chunks the model failed twice: the rules alone checked them."""

    def kinds(self) -> dict[str, int]:
        return dict(Counter(finding.kind for finding in self.findings))


class Scanner:
    """Scans texts for one session: the rules, then ``thorough``'s model when there is one."""

    def __init__(self, thorough: Thorough | None = None) -> None:
        self.thorough = thorough

    async def scan(self, text: str) -> Scanned:
        found = find(text)
        if self.thorough is None:
            return Scanned(found)
        read = await self.thorough.read(text, found)
        return Scanned(read.findings, thorough=True, failed_chunks=read.failed_chunks)


def scan_event(source: str, size: int, scanned: Scanned, *, diff: bool = False) -> SecretsScan:
    """The ``secrets.scan`` of one source: where it came from, its size and what was found."""
    return SecretsScan(
        source=source,
        bytes=size,
        diff=diff,
        thorough=scanned.thorough,
        findings=len(scanned.findings),
        kinds=scanned.kinds(),
        failed_chunks=scanned.failed_chunks,
        classifier=PERSONAL_CLASSIFIER,
    )


def redaction_event(
    source: str, size: int, scanned: Scanned, *, bytes_out: int, truncated: bool = False
) -> Redaction:
    """The ``redaction`` of one input: its size in and out and what was replaced."""
    return Redaction(
        source=source,
        bytes=size,
        bytes_out=bytes_out,
        truncated=truncated,
        thorough=scanned.thorough,
        replaced=scanned.kinds(),
        failed_chunks=scanned.failed_chunks,
    )
