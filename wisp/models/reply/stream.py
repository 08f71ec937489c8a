"""``ReplyParser``: a streamed reply → thinking, text that is safe to show now, and calls."""

from __future__ import annotations

from collections.abc import Sequence

from wisp.agent.types import StreamEvent, TextDelta, ThinkingDelta, ToolSpec
from wisp.models.parsing import TextCallFilter, ThinkSplitter, complete_call


class ReplyParser:
    """Fed a reply's fragments as they stream; gives the events that may be shown now."""

    def __init__(self, tools: Sequence[ToolSpec], *, thinking: bool = False) -> None:
        self._tools = list(tools)
        self._splitter = ThinkSplitter(thinking=thinking)
        self._calls = TextCallFilter([tool.name for tool in tools])

    def text(self, text: str) -> list[StreamEvent]:
        return self._through(self._splitter.feed(text))

    def thinking(self, text: str) -> list[StreamEvent]:
        return [ThinkingDelta(text)] if text else []

    def finish(self) -> list[StreamEvent]:
        events = self._through(self._splitter.finish())
        shown, found = self._calls.finish()
        if shown:
            events.append(TextDelta(shown))
        events += [complete_call(call, self._tools) for call in found]
        return events

    def _through(self, events: list[StreamEvent]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for event in events:
            if isinstance(event, TextDelta):
                if shown := self._calls.feed(event.text):
                    out.append(TextDelta(shown))
            else:
                out.append(event)
        return out
