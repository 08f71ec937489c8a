"""Paging what ``memory`` recalls: the modifiers at a request's end, and one page within B.

Modifiers: ``from line N`` (also ``at line N``, ``starting at line N``,
``offset N``), ``matching TEXT`` (the matching lines with their numbers, and a count of the
rest), ``lines A-B``, ``head [K]``, ``tail [K]``. Line numbers are those of the whole recalled
text, so a page's ``[more: …]`` hint and the held-back marker's numbers agree.
"""

from __future__ import annotations

import re

import msgspec

from wisp.tools.output import cut_to_bytes

END = "[end of what recall found]"
NO_LINES = "(no lines in range)"
DEFAULT_COUNT = 20
"""``head`` and ``tail`` without a count."""
_TAIL_ROOM = 160
"""Bytes kept free of lines for the page's last lines (the count of the rest, the hint)."""

_POSITIONAL = (
    ("start", re.compile(r"\s+(?:from|at|starting\s+at)\s+line\s+(\d+)\s*$", re.IGNORECASE)),
    ("start", re.compile(r"\s+offset\s+(\d+)\s*$", re.IGNORECASE)),
    ("span", re.compile(r"\s+lines\s+(\d+)\s*[-–]\s*(\d+)\s*$", re.IGNORECASE)),
    ("head", re.compile(r"\s+head(?:\s+(\d+))?\s*$", re.IGNORECASE)),
    ("tail", re.compile(r"\s+tail(?:\s+(\d+))?\s*$", re.IGNORECASE)),
)
_MATCHING = re.compile(r"\s+matching\s+(.+?)\s*$", re.IGNORECASE)


class Modifiers(msgspec.Struct):
    start: int | None = None
    matching: str | None = None
    span: tuple[int, int] | None = None
    head: int | None = None
    tail: int | None = None


def split_modifiers(request: str) -> tuple[str, Modifiers]:
    """The request without its trailing modifiers, and the modifiers."""
    mods = Modifiers()
    text = request.strip()
    while True:
        # The positional ones first: ``matching`` takes all that follows it.
        for name, pattern in _POSITIONAL:
            if found := pattern.search(text):
                _set(mods, name, found)
                text = text[: found.start()]
                break
        else:
            if found := _MATCHING.search(text):
                mods.matching = found[1].strip("\"'`")
                text = text[: found.start()]
                continue
            return text.strip(), mods


def _set(mods: Modifiers, name: str, found: re.Match[str]) -> None:
    match name:
        case "start":
            mods.start = int(found[1])
        case "span":
            mods.span = (int(found[1]), int(found[2]))
        case "head":
            mods.head = int(found[1]) if found[1] else DEFAULT_COUNT
        case "tail":
            mods.tail = int(found[1]) if found[1] else DEFAULT_COUNT


class Page(msgspec.Struct):
    lines: list[str]
    first: int
    """The first line the page covers."""
    next_line: int | None
    """Where the next page starts; None when this one reached the end of what was asked."""
    stop: int | None = None
    """The last line asked for, with ``lines A-B``."""
    matching: str | None = None

    def more(self, target: str) -> str:
        """``[more: memory "recall <target> from line N"]``, keeping the page's filter."""
        if self.matching:
            what = f"{target} matching {self.matching} from line {self.next_line}"
        elif self.stop is not None:
            what = f"{target} lines {self.next_line}-{self.stop}"
        else:
            what = f"{target} from line {self.next_line}"
        return f'[more: memory "recall {what}"]'


def page_lines(lines: list[str], mods: Modifiers, room: int) -> Page:
    """The lines the modifiers ask for, as many as fit ``room`` bytes (at least one, cut)."""
    start, stop = _range(len(lines), mods)
    numbered = [(number, lines[number - 1]) for number in range(start, stop + 1)]
    if mods.matching:
        needle = mods.matching.casefold()
        numbered = [(n, f"{n}\t{line}") for n, line in numbered if needle in line.casefold()]
    room = max(room - _TAIL_ROOM, 64)
    shown: list[str] = []
    used = 0
    next_line = None
    for number, line in numbered:
        cost = len(line.encode()) + 1
        if used + cost > room:
            if shown:
                next_line = number
                break
            # One line longer than the page: show its start and say so.
            line = f"{cut_to_bytes(line, room - 64)} [line cut: {cost - 1} bytes]"
            next_line = number + 1 if number < stop else None
            shown.append(line)
            break
        shown.append(line)
        used += cost
    if next_line is not None and next_line > stop:
        next_line = None
    # A page that stops short of the end (lines A-B, head) hints at the rest of that range.
    limit = stop if mods.span or stop < len(lines) else None
    page = Page(shown or [NO_LINES], start, next_line, limit, mods.matching)
    if mods.matching:
        others = (stop - start + 1) - len(numbered)
        page.lines.append(f"({len(numbered)} matching, {max(others, 0)} other lines)")
    return page


def _range(total: int, mods: Modifiers) -> tuple[int, int]:
    start, stop = 1, total
    if mods.span:
        start, stop = mods.span[0], min(mods.span[1], total)
    if mods.head is not None:
        stop = min(start + mods.head - 1, stop)
    if mods.tail is not None:
        start = max(stop - mods.tail + 1, start)
    if mods.start is not None:
        start = mods.start
    return max(start, 1), stop
