"""The embedded model's reply goes through the reply parser, as every backend's does.

The engine here replays fixed pieces in place of llama.cpp, so the reply is known: the
parser's work in ``LocalBackend.stream`` is what is tested (SmolLM2-135M never writes a call).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from wisp.agent.types import (
    ChatRequest,
    HeldText,
    Message,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallRequested,
    ToolSpec,
    UsageReport,
)
from wisp.models.local import LocalBackend, LocalOptions
from wisp.models.local_engine import Generated, Prompt, Sampling

TOOLS = [ToolSpec("current_date", "Today's date.", {"type": "object", "properties": {}})]


class ReplayEngine:
    """Stands in for ``Engine``: renders nothing, and generates the pieces it was given."""

    def __init__(self, pieces: list[str], *, starts_thinking: bool = False) -> None:
        self.pieces = pieces
        self.starts_thinking = starts_thinking

    def render(self, messages: list[Message], tools: list[ToolSpec], *_: Any, **__: Any) -> Prompt:
        return Prompt([1, 2, 3], [], self.starts_thinking)

    def generate(self, prompt: Prompt, sampling: Sampling, emit: Any, stop: threading.Event):
        for piece in self.pieces:
            emit(piece)
        return Generated("stop", 0)

    def count(self, text: str) -> int:
        return len(text.split())

    def close(self) -> None:
        pass


async def stream(engine: ReplayEngine) -> list[StreamEvent]:
    options = LocalOptions("replay", 4096, 1, None, None, can_reason=True)
    backend = LocalBackend(Path("replay.gguf"), options)
    backend._engine = engine  # type: ignore[assignment]  # loaded already: no file to read
    request = ChatRequest([Message(role="user", content="What is today's date?")], TOOLS)
    # How much is held is the runaway guard's business, not what the person sees.
    return [event async for event in backend.stream(request) if not isinstance(event, HeldText)]


async def test_a_fenced_call_in_the_reply_is_a_call_and_the_text_before_it_streams() -> None:
    pieces = [
        "Let me ",
        "check.\n```js",
        'on\n{"name": "current_',
        'date", "arguments": {}}\n``',
        "`",
    ]
    events = await stream(ReplayEngine(pieces))
    assert events[:3] == [
        TextDelta("Let me"),
        TextDelta(" check."),
        ToolCallRequested("current_date", {}),
    ]
    assert isinstance(events[3], UsageReport)


async def test_a_template_that_opened_think_gives_thinking_then_the_answer() -> None:
    events = await stream(
        ReplayEngine(["so, the date...", "</think>\n\n", "Ask me."], starts_thinking=True)
    )
    assert events[:2] == [ThinkingDelta("so, the date..."), TextDelta("Ask me.")]
    usage = events[2]
    assert isinstance(usage, UsageReport) and usage.usage.reasoning == 3
