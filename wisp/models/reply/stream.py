"""``ReplyParser``: a streamed reply → thinking, text safe to show now, and calls.

Text streams as it comes, except from a point where a call could begin (``read_at`` in
``calls`` says where): from there it is held until it is a call or cannot become one, so no text
is ever shown and then taken back. Calls are handed out at the end, with the runtime's own,
so a reply that broke off runs none.
"""

from __future__ import annotations

from collections.abc import Sequence

from wisp.agent.types import (
    HeldText,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallRequested,
    ToolSpec,
)
from wisp.models.parsing import complete_call
from wisp.models.reply.calls import FENCE, may_begin, read_at
from wisp.models.reply.think import ThinkSplitter
from wisp.models.reply.values import Offered
from wisp.models.reply.verdict import MORE, Reading, Taken, Text

HELD_TAIL = 4096
"""Characters of held text's end passed on with its size, for the runaway guard's repetition
check (wisp/agent/runaway.py looks at no more than this)."""


class CallScanner:
    """Reply text (thinking already split out) → text to show now, and the calls in it."""

    def __init__(self, offered: Offered) -> None:
        self._offered = offered
        self._buffer = ""
        """Undecided text: it begins where a call may begin."""
        self._line_start = True
        """Whether the buffer begins a line (or follows calls)."""
        self._in_code = False
        """Inside a code fence: nothing begins a call until it closes."""
        self._space = ""
        """Space at the end of what was shown, held: if a call follows, it goes with it."""
        self._shown = False
        self._after_call = False
        self._recheck_at = 0
        """Held text is read again once the buffer is this long."""
        self.calls: list[ToolCallRequested] = []

    def feed(self, text: str) -> str:
        if not self._offered:
            return text
        self._buffer += text
        if len(self._buffer) < self._recheck_at:
            return ""
        shown = self._scan(final=False)
        # A long held span (a call writing a whole file) is read again only after it grows by
        # an eighth: linear work in all, where reading it on every piece would be quadratic.
        self._recheck_at = len(self._buffer) + len(self._buffer) // 8
        return shown

    @property
    def held(self) -> int:
        """Characters held now: text that may still become a call."""
        return len(self._buffer)

    def held_tail(self, characters: int) -> str:
        return self._buffer[-characters:]

    def finish(self) -> str:
        """What was held, at the reply's end (the calls are in ``calls``)."""
        shown = self._scan(final=True) if self._offered else ""
        if not self.calls:
            shown += self._space
        self._space = ""
        return shown

    def _scan(self, *, final: bool) -> str:
        buffer, out = self._buffer, []
        index, start, line_start = 0, 0, self._line_start
        while index < len(buffer):
            char = buffer[index]
            if self._in_code:
                if line_start and char == "`":
                    rest = buffer[index : index + len(FENCE)]
                    if rest == FENCE:
                        self._in_code = False
                    elif FENCE.startswith(rest) and not final:
                        break  # "``" at a line's start: maybe the fence's end
            elif may_begin(char, line_start):
                alone = not (self._shown or buffer[start:index].strip())  # calls only so far
                reading = Reading(self._offered, final, line_start, alone)
                verdict = read_at(buffer, index, reading)
                if verdict is MORE and not final:
                    break
                if isinstance(verdict, Taken):
                    out.append(self._emit(buffer[start:index]))
                    self.calls += verdict.calls
                    self._after_call = True
                    index = start = verdict.end
                    line_start = True
                    continue
                end = verdict.end if isinstance(verdict, Text) else index + 1
                line_start = _line_start_after(buffer[index:end], line_start)
                self._in_code = isinstance(verdict, Text) and verdict.opens_code
                index = end
                continue
            line_start = _line_start_after(char, line_start)
            index += 1
        out.append(self._emit(buffer[start:index]))
        self._buffer, self._line_start = buffer[index:], line_start
        return "".join(out)

    def _emit(self, text: str) -> str:
        """``text`` as it may be shown: trailing space held, space around calls kept once."""
        if self._after_call:
            text = text.lstrip()
            if not text:
                return ""
            self._after_call = False
            if not self._shown:
                self._space = ""
        text = self._space + text
        shown = text.rstrip()
        self._space = text[len(shown) :]
        self._shown = self._shown or bool(shown)
        return shown


def _line_start_after(text: str, line_start: bool) -> bool:
    """Is the position after ``text`` at a line's start (only blanks since a newline)?"""
    newline = text.rfind("\n")
    if newline >= 0:
        line_start, text = True, text[newline + 1 :]
    return line_start and not text.strip(" \t")


class ReplyParser:
    """Every backend's reply, fed as it streams: thinking, text to show now, then the calls."""

    def __init__(self, tools: Sequence[ToolSpec], *, thinking: bool = False) -> None:
        self._tools = list(tools)
        self._splitter = ThinkSplitter(thinking=thinking)
        self._calls = CallScanner({tool.name: tool for tool in tools})
        self._held_size = 0

    def text(self, text: str) -> list[StreamEvent]:
        """Reply text as the runtime sent it (thinking tags and calls may be in it)."""
        return self._through(self._splitter.feed(text)) if text else []

    def thinking(self, text: str) -> list[StreamEvent]:
        """Reasoning the runtime sent apart (``reasoning_content``, ``thinking``)."""
        return [ThinkingDelta(text)] if text else []

    def finish(self) -> list[StreamEvent]:
        """What was held, then the calls written in the text, completed from their schemas."""
        events = self._through(self._splitter.finish())
        if rest := self._calls.finish():
            events.append(TextDelta(rest))
        events += [
            call if call.unparsed is not None else complete_call(call, self._tools)
            for call in self._calls.calls
        ]
        return events

    def _through(self, events: list[StreamEvent]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for event in events:
            if not isinstance(event, TextDelta):
                out.append(event)
            elif shown := self._calls.feed(event.text):
                out.append(TextDelta(shown))
        if (held := self._calls.held) != self._held_size:
            self._held_size = held
            out.append(HeldText(held, self._calls.held_tail(HELD_TAIL)))
        return out
