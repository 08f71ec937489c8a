"""Searching a text for every rule at once, quickly, with the answer of one alternation.

The rules read as one alternation (``rule0|rule1|…``): from a position, the leftmost match
wins, and at one position the earlier rule. ``re`` runs such an alternation by trying every
rule at every position of the text, which costs each rule's start (a lookbehind, ``\\b``) at
every character. Here each rule is searched on its own, from where it can start, and
:meth:`Scan.next` takes the leftmost of their next matches, the earlier rule at a tie: the
same match the alternation finds, at a small part of the cost. How a rule is searched is
chosen once, from its pattern's tree (wisp/scan/pattern_tree.py):

- **moved**: the pattern rewritten to start with what it consumes, its starting checks
  moved after that (``(?<![\\d.-])\\d{4}…`` becomes ``\\d(?<![\\d.-]\\d)\\d{3}…``), so that
  ``re`` skips ahead to where that literal or class occurs instead of trying each position;
- **prefixed**: the literal texts a match starts with (``password``, ``token``: the keyword
  rules), found with one pattern of those texts, in a lowercase copy of the text when case
  does not count;
- **by line**: a literal every match holds (``@``, ``://``), the rule searched only on the
  lines holding it, when no match can cross a line;
- **as written**: the rule's own pattern, when none of those can be shown to be the same.

Each candidate is confirmed by the rule's own pattern at that position, so a rewrite can
narrow where a rule is tried but never what it finds.
"""

from __future__ import annotations

import abc
import bisect
import re
from collections.abc import Sequence
from typing import Protocol

import msgspec

from wisp.scan import pattern_tree
from wisp.scan.pattern_tree import Parsed, Unknown

Match = re.Match[str]

_FOLD_TRAPS = ("\u0130", "\u0131", "\u017f")
"""Characters ``(?i)`` takes for ASCII letters that ``str.lower`` does not turn into them
(dotted and dotless i, long s): a text holding one is searched without the lowercase copy."""


class Searcher(Protocol):
    rule: re.Pattern[str]

    def search(self, scan: Scan, position: int) -> Match | None:
        """The rule's leftmost match that starts at or after ``position``."""


class AsWritten:
    def __init__(self, rule: re.Pattern[str]) -> None:
        self.rule = rule

    def search(self, scan: Scan, position: int) -> Match | None:
        return self.rule.search(scan.text, position)


class Moved:
    """The rule rewritten to start with what it consumes (an equal pattern, confirmed)."""

    def __init__(self, rule: re.Pattern[str], moved: MovedPatterns) -> None:
        self.rule = rule
        self.moved = moved

    def search(self, scan: Scan, position: int) -> Match | None:
        text = scan.text
        moved = self.moved.ascii_text if scan.ascii else self.moved.any_text
        while (candidate := moved.search(text, position)) is not None:
            start = candidate.start()
            if (match := self.rule.match(text, start)) is not None:
                return match
            position = start + 1
        return None


class FromStarts(abc.ABC):
    """A rule tried at each of the places a search shared with other rules found (kept for
    the text in :meth:`Scan.starts`)."""

    rule: re.Pattern[str]
    key: object
    """Searchers with the same key share the places found."""

    def search(self, scan: Scan, position: int) -> Match | None:
        starts = scan.starts(self)
        text = scan.text
        rule_match = self.rule.match
        for index in range(bisect.bisect_left(starts, position), len(starts)):
            if (match := rule_match(text, starts[index])) is not None:
                return match
        return None

    @abc.abstractmethod
    def all_starts(self, scan: Scan) -> list[int]:
        """Every place in ``scan``'s text this rule may start, in order."""


class Prefixed(FromStarts):
    """The rule tried where one of the literal texts it starts with occurs."""

    def __init__(self, rule: re.Pattern[str], prefixes: pattern_tree.Prefixes) -> None:
        self.rule = rule
        self.texts = prefixes.texts
        self.folded = prefixes.folded
        self.key = (tuple(self.texts), self.folded)

    def all_starts(self, scan: Scan) -> list[int]:
        """Where one of the texts starts (``str.find``: far quicker than a pattern of them,
        which ``re`` tries at each of their first letters)."""
        text = scan.text
        if self.folded and (text := scan.lowered()) is None:
            folded = re.compile("|".join(map(re.escape, self.texts)), re.IGNORECASE)
            return _all_starts(scan.text, folded)
        starts: list[int] = []
        for literal in self.texts:
            found = text.find(literal)
            while found != -1:
                starts.append(found)
                found = text.find(literal, found + 1)
        return sorted(starts) if len(self.texts) > 1 else starts


class Shared(FromStarts):
    """Rules rewritten to start with the same few characters (digits, ``+``, ``(``: card
    numbers, phones, addresses), searched as one pattern: one pass over the text for all of
    them, where each pass costs a test of every character."""

    def __init__(self, rule: re.Pattern[str], union: MovedPatterns) -> None:
        self.rule = rule
        self.union = union
        self.key = union.any_text.pattern

    def all_starts(self, scan: Scan) -> list[int]:
        pattern = self.union.ascii_text if scan.ascii else self.union.any_text
        return _all_starts(scan.text, pattern)


def _all_starts(text: str, pattern: re.Pattern[str]) -> list[int]:
    """Where ``pattern`` matches, overlapping matches too."""
    starts = []
    found = pattern.search(text)
    while found is not None:
        starts.append(found.start())
        found = pattern.search(text, found.start() + 1)
    return starts


class ByLine:
    """The rule searched on the lines holding a literal every match holds."""

    def __init__(self, rule: re.Pattern[str], literal: str) -> None:
        self.rule = rule
        self.literal = literal

    def search(self, scan: Scan, position: int) -> Match | None:
        text = scan.text
        found = text.find(self.literal, position)
        while found != -1:
            line_start = text.rfind("\n", 0, found) + 1
            line_end = text.find("\n", found)
            if line_end == -1:
                return self.rule.search(text, max(position, line_start))
            # Cut just after the line break, so a check ahead still sees it.
            if (
                match := self.rule.search(text, max(position, line_start), line_end + 1)
            ) is not None:
                return match
            found = text.find(self.literal, line_end + 1)
        return None


def searcher_for(pattern: str) -> Searcher:
    """The quickest way to search for ``pattern`` that finds what it finds."""
    rule = re.compile(pattern)
    try:
        parsed = pattern_tree.parse(pattern)
    except (re.error, RecursionError):  # pragma: no cover - compiled just above
        return AsWritten(rule)
    moved = _moved(parsed)
    try:
        prefixes = pattern_tree.prefixes(parsed)
    except Unknown:
        prefixes = None
    if prefixes is not None and (prefixes.folded or _few_and_long(prefixes.texts)):
        return Prefixed(rule, prefixes)
    if moved is not None and not moved.dense:
        return Moved(rule, moved)
    try:
        return _by_line(rule, parsed)
    except Unknown:
        pass
    if moved is not None:
        return Moved(rule, moved)
    return AsWritten(rule) if prefixes is None else Prefixed(rule, prefixes)


def searchers_for(patterns: Sequence[str]) -> tuple[Searcher, ...]:
    """A searcher for each pattern; those rewritten to start with the same few characters
    (no letter among them) share one search (:class:`Shared`)."""
    searchers = [searcher_for(pattern) for pattern in patterns]
    grouped = [
        index
        for index, searcher in enumerate(searchers)
        if isinstance(searcher, Moved)
        and not (searcher.moved.literal_heads or searcher.moved.dense)
        and searcher.moved.flags == 0
    ]
    if len(grouped) > 1:
        moved = [searchers[index].moved for index in grouped]  # type: ignore[attr-defined]
        union = _moved_patterns([one for each in moved for one in each.alternatives], 0)
        for index in grouped:
            searchers[index] = Shared(searchers[index].rule, union)
    return tuple(searchers)


def _few_and_long(texts: list[str]) -> bool:
    """Whether finding each of ``texts`` with ``str.find`` beats ``re`` looking for their
    first characters."""
    return len(texts) <= 4 and min(map(len, texts)) >= 3


def _by_line(rule: re.Pattern[str], parsed: Parsed) -> Searcher:
    if not pattern_tree.stays_on_its_line(parsed):
        raise Unknown("a match may cross a line")
    return ByLine(rule, pattern_tree.required_literal(parsed))


class MovedPatterns(msgspec.Struct, frozen=True):
    """A rule rewritten to start with what it consumes, for any text and for ASCII text."""

    any_text: re.Pattern[str]
    ascii_text: re.Pattern[str]
    dense: bool
    """Whether its first character may be a letter: tried nearly everywhere, so a literal
    to search by (``@``) is better."""
    literal_heads: bool
    """Whether every alternative starts with a literal, which ``re`` finds by itself."""
    alternatives: list[pattern_tree.Alternative]
    flags: int


def _moved(parsed: Parsed) -> MovedPatterns | None:
    try:
        return _moved_patterns(pattern_tree.alternatives(parsed.items), parsed.flags)
    except Unknown:
        return None


def _moved_patterns(alternatives: list[pattern_tree.Alternative], flags: int) -> MovedPatterns:
    any_text, dense = _moved_pattern(alternatives, ascii_text=False)
    ascii_text, _ = _moved_pattern(alternatives, ascii_text=True)
    literal_heads = all(
        alternative.head[0][0] is pattern_tree.sre.LITERAL for alternative in alternatives
    )
    return MovedPatterns(
        re.compile(any_text, flags), re.compile(ascii_text, flags), dense, literal_heads,
        alternatives, flags,
    )  # fmt: skip


def _moved_pattern(
    alternatives: list[pattern_tree.Alternative], ascii_text: bool
) -> tuple[str, bool]:
    """The alternatives as one pattern that starts with a literal or a class, so that ``re``
    skips to where one occurs; and whether that class holds letters."""
    heads = [pattern_tree.write(alternative.head, ascii_text) for alternative in alternatives]
    afters = [
        pattern_tree.moved_checks(alternative, ascii_text)
        + pattern_tree.write(alternative.rest, ascii_text)
        for alternative in alternatives
    ]
    if all(alternative.head[0][0] is pattern_tree.sre.LITERAL for alternative in alternatives):
        return "|".join(head + after for head, after in zip(heads, afters, strict=True)), False
    # One class for every first character, then each alternative checks it was its own.
    firsts = [
        pattern_tree.first_class(alternative.head, ascii_text) for alternative in alternatives
    ]
    tails = [pattern_tree.write(alternative.head[1:], ascii_text) for alternative in alternatives]
    union = "".join(firsts)
    if len(alternatives) == 1:
        return f"[{union}]{tails[0]}{afters[0]}", pattern_tree.has_letters(union)
    checked = "|".join(
        f"(?<=[{first}]){tail}{after}"
        for first, tail, after in zip(firsts, tails, afters, strict=True)
    )
    return f"[{union}](?:{checked})", pattern_tree.has_letters(union)


class Scan:
    """One text being searched: each rule's next match, kept until the search passes it."""

    def __init__(self, text: str, searchers: Sequence[Searcher]) -> None:
        self.text = text
        self.ascii = text.isascii()
        self.searchers = searchers
        self.next_matches: list[Match | None] = [None] * len(searchers)
        """Each rule's leftmost match from where it was last searched (None: none left)."""
        self.searched = [False] * len(searchers)
        self._lowered: str | bool | None = True
        self._starts: dict[tuple[tuple[str, ...], bool], list[int]] = {}

    def next(self, position: int) -> tuple[int, Match] | None:
        """The rule whose match starts leftmost at or after ``position`` (the earlier rule at
        a tie), and that match: what the alternation of all rules would find."""
        best: Match | None = None
        best_index = -1
        matches, searched = self.next_matches, self.searched
        for index, searcher in enumerate(self.searchers):
            match = matches[index]
            if not searched[index] or (match is not None and match.start() < position):
                match = matches[index] = searcher.search(self, position)
                searched[index] = True
            if match is not None and (best is None or match.start() < best.start()):
                best, best_index = match, index
        return None if best is None else (best_index, best)

    def first_at(self, position: int) -> tuple[int, Match] | None:
        """The first rule, in order, that matches at exactly ``position``."""
        for index, searcher in enumerate(self.searchers):
            if (match := searcher.rule.match(self.text, position)) is not None:
                return index, match
        return None

    def lowered(self) -> str | None:
        """The text in lowercase, character for character, or None where that copy would not
        find what ``(?i)`` finds."""
        if self._lowered is True:
            lowered = self.text.lower()
            same = len(lowered) == len(self.text) and (
                self.text.isascii() or not any(trap in self.text for trap in _FOLD_TRAPS)
            )
            self._lowered = lowered if same else None
        return self._lowered  # type: ignore[return-value]

    def starts(self, searcher: Prefixed) -> list[int]:
        key = searcher.key
        if (found := self._starts.get(key)) is None:
            found = self._starts[key] = searcher.all_starts(self)
        return found
