"""One request's stream, read for a turn: the reply's text shown as it comes, its thinking
recorded at both edges, its tool calls collected, a runaway reply cut (``runaway.py``) and its
usage added up (docs/turn.md, "Steps")."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from wisp.agent.events import TextFragment
from wisp.agent.recorder import Recorder
from wisp.agent.runaway import RunawayGuard, reply_cap
from wisp.agent.turn_state import Reply, TurnState, utc_now
from wisp.agent.types import (
    ChatRequest,
    HeldText,
    TextDelta,
    ThinkingDelta,
    ToolCallRequested,
    UsageReport,
)
from wisp.audit.kinds import ModelReasoning
from wisp.store import PendingEntry, Source

if TYPE_CHECKING:
    from wisp.agent.events import Emit
    from wisp.agent.loop import Conversation


async def stream_reply(
    conversation: Conversation,
    turn: TurnState,
    request: ChatRequest,
    emit: Emit,
    source: Callable[[str], Source],
) -> Reply:
    """Send ``request`` to the conversation's model and read its reply to the end (or to a
    runaway's cut); the context meter then moves by the runtime's count."""
    reply = Reply()
    thinking = _Thinking(conversation.recorder, turn, source)
    cap = reply_cap(conversation.max_reply_tokens, conversation.resolved.context_size)
    guard = RunawayGuard(cap)
    text: list[str] = []
    reported: int | None = None
    async with contextlib.aclosing(conversation.resolved.backend.stream(request)) as stream:
        async for event in stream:
            match event:
                case ThinkingDelta(text=fragment):
                    thinking.add(fragment)
                case TextDelta(text=fragment):
                    thinking.end()
                    text.append(fragment)
                    emit(TextFragment(fragment))
                    if (why := guard.add(fragment)) is not None:
                        turn.cut = why  # the request is closed: the model stops here
                        break
                case HeldText(size=size, tail=tail):
                    if (why := guard.held(size, tail)) is not None:
                        turn.cut = why
                        break
                case ToolCallRequested():
                    thinking.end()
                    reply.calls.append(event)
                case UsageReport(usage=usage):
                    reported = usage.input or reported
                    turn.usage = usage if turn.usage is None else turn.usage + usage
                    thinking.reported_tokens = usage.reasoning or None
    thinking.end()
    reply.text = "".join(text)
    conversation.planner.measured(request, reported, emit)
    return reply


class _Thinking:
    """One request's thinking stretch: ``model.reasoning`` start at the first chunk, end at the
    first reply or tool-call chunk (or the stream's end), and a ``reasoning`` entry."""

    def __init__(
        self, recorder: Recorder, turn: TurnState, source: Callable[[str], Source]
    ) -> None:
        self.recorder = recorder
        self.turn = turn
        self.source = source
        self.parts: list[str] = []
        self.started: float | None = None
        self.reported_tokens: int | None = None

    def add(self, fragment: str) -> None:
        if self.started is None:
            self.started = time.monotonic()
            self.recorder.record(ModelReasoning(phase="start"))
        self.parts.append(fragment)

    def end(self) -> None:
        if self.started is None:
            return
        text = "".join(self.parts)
        seconds = time.monotonic() - self.started
        tokens = self.reported_tokens or len(self.parts)  # one a chunk when none is reported
        event_id = self.recorder.record(
            ModelReasoning(
                phase="end",
                text=text,
                bytes=len(text.encode()),
                tokens=tokens,
                seconds=round(seconds, 3),
            )
        )
        source = (self.source(event_id),)
        self.turn.pending.append(PendingEntry("reasoning", text, source, utc_now()))
        self.started = None
        self.parts = []
