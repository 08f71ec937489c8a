"""Finding secrets and personal data in text, and taking them out."""

from __future__ import annotations

import re

import msgspec

from wisp.scan.rules import CONTEXT_KINDS, PERSONAL_KINDS, RULES, searchers
from wisp.scan.searching import Scan

MARKER = "[REDACTED:{kind}]"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Finding(msgspec.Struct, frozen=True):
    """One value found: its kind, where it is (character offsets into the text, end
    exclusive), and its line and column (1-based)."""

    kind: str
    start: int
    end: int
    line: int
    column: int


def find(text: str) -> list[Finding]:
    """Every secret and every piece of personal data in ``text``, in order, none overlapping."""
    findings: list[Finding] = []
    scan = Scan(text, searchers())
    position = 0
    line, counted = 1, 0
    while (hit := scan.next(position)) is not None:
        found, position = _judge(scan, *hit)
        if found is None:
            continue
        kind, start, end = found
        # Findings come in order: count the line breaks since the last one only.
        line += text.count("\n", counted, start)
        counted = start
        column = start - text.rfind("\n", 0, start)
        findings.append(Finding(kind, start, end, line, column))
    return findings


def _judge(scan: Scan, index: int, match: re.Match[str]) -> tuple[tuple[str, int, int] | None, int]:
    """What rule ``index``'s ``match`` found (its kind and span, or nothing), and where to
    search on from."""
    rule = RULES[index]
    start, end = _value_span(match)
    if rule.kind in CONTEXT_KINDS:
        # A precise shape where the value starts wins over its surroundings: `token=ghp_…`
        # is a GitHub token, and a rejected assignment may still hold one.
        precise = scan.first_at(start)
        if precise is not None and RULES[precise[0]].kind not in CONTEXT_KINDS | PERSONAL_KINDS:
            inner, after = _judge(scan, *precise)
            if inner is not None:
                return inner, after
        if not rule.check(scan.text[start:end]):
            return None, max(start, match.start() + 1)
        return (rule.kind, start, end), max(end, match.start() + 1)
    if not rule.check(scan.text[start:end]):
        return None, match.end()
    return (rule.kind, start, end), max(end, match.start() + 1)


def _value_span(match: re.Match[str]) -> tuple[int, int]:
    """The value's span: its group when the rule has one, without the quotes around it."""
    has_value = "v" in match.re.groupindex and match["v"] is not None
    start, end = match.span("v") if has_value else match.span()
    if (
        end - start > 2
        and match.string[start] in "\"'"
        and match.string[end - 1] == match.string[start]
    ):
        return start + 1, end - 1
    return start, end


def redact(text: str, findings: list[Finding] | None = None) -> str:
    """``text`` with each finding replaced by ``[REDACTED:KIND]``; every character outside a
    finding stays, and a value that spanned lines leaves its line breaks (``\\n``, ``\\r\\n``,
    as they were) after the marker, so the text keeps its line count."""
    if findings is None:
        findings = find(text)
    parts: list[str] = []
    position = 0
    for finding in findings:
        parts.append(text[position : finding.start])
        parts.append(MARKER.format(kind=finding.kind))
        parts.extend(_LINE_BREAK.findall(text, finding.start, finding.end))
        position = finding.end
    parts.append(text[position:])
    return "".join(parts)


def finding_at(text: str, kind: str, start: int, end: int) -> Finding:
    """A finding of ``kind`` at ``start:end`` of ``text``, its line and column counted: for a
    value found by other means than the rules (the thorough pass's model)."""
    line_start = text.rfind("\n", 0, start) + 1
    return Finding(kind, start, end, text.count("\n", 0, start) + 1, start - line_start + 1)
