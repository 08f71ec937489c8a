"""Reasoning written in the reply's text, split out as thinking.

A reply may open with ``<think>``, ``<thinking>`` or ``<reasoning>`` and close it before the
answer; one whose template already opened ``<think>`` (``thinking=True``) starts inside the
thought; one that starts with ``</think>`` had an empty thought opened for it. A thought still
open at the end stays thinking: there was no answer.
"""

from __future__ import annotations

from wisp.agent.types import StreamEvent, TextDelta, ThinkingDelta

_TAGS = {"<think>": "</think>", "<thinking>": "</thinking>", "<reasoning>": "</reasoning>"}
_TEMPLATE_CLOSE = "</think>"


def partial_suffix(text: str, literal: str) -> int:
    """Length of the longest end of ``text`` that begins ``literal`` (held: it may grow)."""
    for size in range(min(len(literal) - 1, len(text)), 0, -1):
        if literal.startswith(text[-size:]):
            return size
    return 0


class ThinkSplitter:
    """Streamed text → thinking and reply text, holding only what may be a tag."""

    def __init__(self, *, thinking: bool = False) -> None:
        self._state = "opened" if thinking else "start"
        self._closer = _TEMPLATE_CLOSE
        self._held = ""
        self._after_thought = False
        """Space between the thought and the answer is dropped, whichever chunk brings it."""
        self._thought_begins = True
        """Newlines after the opening tag are dropped too."""

    def feed(self, text: str) -> list[StreamEvent]:
        self._held += text
        if self._state in ("start", "opened") and not self._open():
            return []
        if self._state == "thinking":
            return self._think()
        held, self._held = self._held, ""
        if self._after_thought:
            held = held.lstrip()
            self._after_thought = not held
        return [TextDelta(held)] if held else []

    def _open(self) -> bool:
        """Decides how the reply begins; False while its first characters may still be a tag."""
        stripped = self._held.lstrip()
        for opener, closer in _TAGS.items():
            if stripped.startswith(opener):
                self._state, self._closer = "thinking", closer
                self._held = stripped[len(opener) :]
                return True
        if stripped.startswith(_TEMPLATE_CLOSE) and self._state == "start":
            self._state, self._held = "text", stripped[len(_TEMPLATE_CLOSE) :]
            self._after_thought = True
            return True
        tags = [*_TAGS, _TEMPLATE_CLOSE]
        if not stripped or any(tag.startswith(stripped) for tag in tags):
            return False
        self._state = "thinking" if self._state == "opened" else "text"
        return True

    def _think(self) -> list[StreamEvent]:
        if self._thought_begins:
            self._held = self._held.lstrip("\n")
            self._thought_begins = not self._held
        end = self._held.find(self._closer)
        if end < 0:
            cut = len(self._held) - partial_suffix(self._held, self._closer)
            thought, self._held = self._held[:cut], self._held[cut:]
            return [ThinkingDelta(thought)] if thought else []
        thought, rest = self._held[:end], self._held[end + len(self._closer) :].lstrip()
        self._state, self._held, self._after_thought = "text", "", not rest
        events: list[StreamEvent] = [ThinkingDelta(thought)] if thought else []
        return events + ([TextDelta(rest)] if rest else [])

    def finish(self) -> list[StreamEvent]:
        held, self._held = self._held, ""
        if not held:
            return []
        if self._state in ("thinking", "opened"):
            return [ThinkingDelta(held)]
        return [TextDelta(held)]
