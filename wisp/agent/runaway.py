"""Runaway replies: a reply that keeps repeating itself, or runs past its token cap, is cut.

Small models loop inside a reply too ("I'm a wizard, a wizard, a wizard…") and can stream for
minutes. The guard watches the reply's text as it streams and says why it must stop; the turn
keeps what came so far and tells the person the reply was cut, and why.
"""

from __future__ import annotations

import re

CHARACTERS_PER_TOKEN = 4
"""The estimate the cap counts with (the runtime's own count arrives only at the end)."""
AUTO_MIN_TOKENS, AUTO_MAX_TOKENS = 1024, 16_384
UNKNOWN_WINDOW_TOKENS = AUTO_MAX_TOKENS
"""An unknown window (a server that does not say) gets the largest automatic cap."""
TAIL = 4096
"""Characters of the reply's end the repetition check looks at."""
CHECK_EVERY = 256
"""Characters of new text between two repetition checks."""
PROBE = 16
"""Characters compared first, for each unit length."""
LONGEST_UNIT = 300
"""The longest repeated unit looked for: a line or a sentence."""
SHORTEST_SPAN = 400
"""A unit must fill at least this many characters (and four repeats) to count as a loop."""
COUNTING_SPAN, COUNTING_REPEATS = 3000, 40
"""A sentence repeated with only its numbers changing ("This is Python 3.1. This is Python
3.2. …", counting on to the cap) must fill far more: a list of like lines that differ by a
number can be a real answer, and one of sixty is not cut (within ``TAIL``)."""
_NUMBER = re.compile(r"[0-9]+")
_WORD = re.compile(r"[^\W\d_]{2,}")
REPEATING = "it kept repeating itself"
COUNTING = "it kept repeating itself, only its numbers changing"


def reply_cap(setting: int, window: int | None) -> int:
    """The reply's token cap: the setting, or when it is 0, half the window within bounds."""
    if setting > 0:
        return setting
    if not window:
        return UNKNOWN_WINDOW_TOKENS
    return max(AUTO_MIN_TOKENS, min(AUTO_MAX_TOKENS, window // 2))


class RunawayGuard:
    """Follows one reply's text; ``add`` says why it must stop, or None."""

    def __init__(self, cap_tokens: int) -> None:
        self.cap_tokens = cap_tokens
        self._size = 0
        self._tail = ""
        self._fresh: list[str] = []
        """Fragments since the last check: joined then, not on every fragment (a reply
        streams in thousands of pieces of a few characters)."""
        self._next_check = SHORTEST_SPAN + 1
        self._held = 0
        """Characters held back now (they are not in ``_size`` until shown)."""
        self._next_held_check = SHORTEST_SPAN + 1

    def add(self, fragment: str) -> str | None:
        """Text shown: why the reply must stop, or None."""
        self._size += len(fragment)
        self._fresh.append(fragment)
        if (why := self._past_cap()) is not None:
            return why
        if self._size >= self._next_check:
            self._next_check = self._size + CHECK_EVERY
            self._tail = (self._tail + "".join(self._fresh))[-TAIL:]
            self._fresh.clear()
            return loop_in(self._tail)
        return None

    def held(self, size: int, tail: str) -> str | None:
        """Text held back (it may still become a call): ``size`` characters now, ending in
        ``tail``. It counts toward the cap beside what was shown, and a held span that keeps
        repeating itself is a runaway the person would otherwise never see."""
        if size < self._held:  # shown or taken as a call: the next held span starts afresh
            self._next_held_check = SHORTEST_SPAN + 1
        self._held = size
        if (why := self._past_cap()) is not None:
            return why
        if size >= self._next_held_check:
            self._next_held_check = size + CHECK_EVERY
            return loop_in(tail)
        return None

    def _past_cap(self) -> str | None:
        if self._size + self._held > self.cap_tokens * CHARACTERS_PER_TOKEN:
            return f"it ran past {self.cap_tokens:,} tokens (agent.maxReplyTokens)"
        return None


def loop_in(text: str) -> str | None:
    """Why ``text`` ends in a loop: one unit repeated as it is, or a sentence repeated with only
    its numbers changing (counting up to the cap). None when it does not."""
    if repeats_itself(text):
        return REPEATING
    if counts_itself(text):
        return COUNTING
    return None


def counts_itself(text: str) -> bool:
    """Whether ``text`` ends in a unit with words in it repeated, once every number is read
    as one, over at least 3,000 characters and forty times. A unit of numbers alone ("1, 2, 3,
    …") is a count someone may ask for, and is never taken for a loop."""
    unit = _periodic_unit(_NUMBER.sub("0", text), COUNTING_SPAN, COUNTING_REPEATS)
    return unit is not None and _WORD.search(unit) is not None


def repeats_itself(text: str) -> bool:
    """Whether ``text`` ends in one unit (up to a line or a sentence long) repeated over at
    least 400 characters and four times: periodic, the same characters again and again."""
    return _periodic_unit(text, SHORTEST_SPAN, 4) is not None


def _periodic_unit(text: str, shortest_span: int, repeats: int) -> str | None:
    """The shortest unit (up to ``LONGEST_UNIT`` characters) that ``text`` ends in, repeated
    over at least ``shortest_span`` characters and ``repeats`` times; None when there is none."""
    size = len(text)
    if size <= shortest_span:
        return None
    end = text[-PROBE:]
    earliest = max(0, size - PROBE - LONGEST_UNIT)
    # Where the last characters occur again just before: each place is a unit to check, the
    # shortest first (found by the string search, not by trying every length).
    at = text.rfind(end, earliest, size - 1)
    while at >= 0:
        unit = size - PROBE - at
        span = max(shortest_span, repeats * unit)
        if size >= span + unit and text[-span:] == text[-span - unit : -unit]:
            return text[-unit:]
        at = text.rfind(end, earliest, at + PROBE - 1)
    return None
