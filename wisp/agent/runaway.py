"""Runaway replies: a reply that keeps repeating itself, or runs past its token cap, is cut.

Small models loop inside a reply too ("I'm a wizard, a wizard, a wizard…") and can stream for
minutes. The guard watches the reply's text as it streams and says why it must stop; the turn
keeps what came so far and tells the person the reply was cut, and why.
"""

from __future__ import annotations

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
            if repeats_itself(self._tail):
                return "it kept repeating itself"
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
            if repeats_itself(tail):
                return "it kept repeating itself"
        return None

    def _past_cap(self) -> str | None:
        if self._size + self._held > self.cap_tokens * CHARACTERS_PER_TOKEN:
            return f"it ran past {self.cap_tokens:,} tokens (agent.maxReplyTokens)"
        return None


def repeats_itself(text: str) -> bool:
    """Whether ``text`` ends in one unit (up to a line or a sentence long) repeated over at
    least 400 characters and four times: periodic, the same characters again and again."""
    size = len(text)
    if size <= SHORTEST_SPAN:
        return False
    end = text[-PROBE:]
    earliest = max(0, size - PROBE - LONGEST_UNIT)
    # Where the last characters occur again just before: each place is a unit to check, the
    # shortest first (found by the string search, not by trying every length).
    at = text.rfind(end, earliest, size - 1)
    while at >= 0:
        unit = size - PROBE - at
        span = max(SHORTEST_SPAN, 4 * unit)
        if size >= span + unit and text[-span:] == text[-span - unit : -unit]:
            return True
        at = text.rfind(end, earliest, at + PROBE - 1)
    return False
