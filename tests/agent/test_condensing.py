"""Long conversations: condensing keeps every request within the budget of a known window, drops
whole turns without deleting them, and an overflow is condensed and asked once more
(wisp/agent/condensing.py, with the meter of wisp/agent/context.py).

The ``script:`` backend with a declared window counts each request it receives (its bytes ÷ 4),
reports that as the prompt's tokens and refuses a request over the window, as a server does: the
arithmetic under test is the real one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest

from wisp.agent.compose import compose
from wisp.agent.events import AgentEvent, ContextFill
from wisp.agent.loop import STILL_TOO_BIG, Conversation
from wisp.agent.types import Tool
from wisp.audit import MemorySink
from wisp.audit.kinds import ContextCondensation, ToolResult
from wisp.store import ConversationStore, PendingEntry, transcripts
from wisp.tools.memory import MemoryTool
from wisp.tools.read_file import ReadFileTool

WINDOW = 4096
BUDGET = 0.85 * WINDOW


def file_of(path: Path, size: int) -> Path:
    lines = [
        f"{n:04} harbour sync log: the ferry left on time, all {n} crates aboard"
        for n in range(200)
    ]
    path.write_text("\n".join(lines)[:size])
    return path


def reading_turns(first: int, last: int, path: Path, cite: dict[int, int] | None = None) -> list:
    """Each turn reads the file, then replies; ``cite`` names an entry a turn's reply cites."""
    responses: list[dict[str, Any]] = []
    for number in range(first, last + 1):
        responses.append({"tool_calls": [{"name": "read_file", "arguments": {"path": str(path)}}]})
        cited = (cite or {}).get(number)
        tail = f" As entry {cited} showed." if cited else ""
        responses.append({"text": f"Turn {number}: the log is read.{tail}"})
    return responses


@dataclass
class Session:
    """One conversation's opener over a script, and what it recorded (the fixtures' sink and
    the face's events)."""

    make: Callable[..., Awaitable[Conversation]]
    tmp_path: Path
    sink: MemorySink
    events: list[AgentEvent]
    tools: list[Tool]
    memory: bool = False

    async def open(
        self,
        responses: list,
        *,
        window: int | None = WINDOW,
        store: ConversationStore | None = None,
    ) -> Conversation:
        script = self.tmp_path / f"script-{len(self.sink.events)}.json"
        top: dict[str, Any] = {"responses": responses}
        if window is not None:
            top["contextSize"] = window
        script.write_text(json.dumps(top))
        return await self.make(script, self.tools, store, memory=self.memory, max_steps=25)

    def condensations(self) -> list[ContextCondensation]:
        return [e.details for e in self.sink.events if isinstance(e.details, ContextCondensation)]

    def fills(self) -> list[ContextFill]:
        return [event for event in self.events if isinstance(event, ContextFill)]


@pytest.fixture
def session(make_conversation, tmp_path: Path, sink: MemorySink, events: list) -> Session:
    return Session(make_conversation, tmp_path, sink, events, [ReadFileTool()])


async def run_turns(conversation: Conversation, first: int, last: int) -> None:
    # The face subscribed when the conversation was made: the recorder's events and the turn's.
    for number in range(first, last + 1):
        result = await conversation.run_turn(f"read the log again ({number})")
        assert result.outcome == "ok", (number, result.error)


async def test_three_hundred_turns_of_file_reads_fit_a_4096_window(
    tmp_path: Path, session: Session
) -> None:
    log = file_of(tmp_path / "harbour.log", 2048)
    session.tools, session.memory = [ReadFileTool(), MemoryTool()], True
    # Turn 300 cites entry 4: turn 1's output, dropped long before.
    first_half = reading_turns(1, 150, log)
    conversation = await session.open(first_half)
    await run_turns(conversation, 1, 150)

    # Saved and resumed in the middle: the marks go with the entries.
    transcripts.save(conversation.store, tmp_path / "transcripts", "long")
    dropped_before = [entry.id for entry in conversation.store if not entry.active]
    assert dropped_before, "150 turns of 2 KB reads must have been condensed"
    store = transcripts.load(tmp_path / "transcripts", "long").store
    assert [entry.id for entry in store if not entry.active] == dropped_before
    assert all(store.get(i).dropped_by and store.get(i).dropped_at == 0 for i in dropped_before)

    recall = {"tool_calls": [{"name": "memory", "arguments": {"request": "recall entry 4"}}]}
    second_half = [*reading_turns(151, 299, log), recall, {"text": "Entry 4 said the ferry left."}]
    conversation = await session.open(second_half, store=store)
    conversation.turn = 150
    await run_turns(conversation, 151, 299)
    last = await conversation.run_turn("what did entry 4 say?")

    assert last.outcome == "ok"
    assert last.cited is None and last.unknown_entries == []  # entry 4 exists, dropped
    recalled = [e.details for e in session.sink.events if isinstance(e.details, ToolResult)][-1]
    assert "0000 harbour sync log" in recalled.output
    entry_4 = conversation.store.get(4)
    assert entry_4 is not None and not entry_4.active

    condensations = session.condensations()
    assert len(condensations) >= 10
    for details in condensations:
        assert details.reason == "budget" and details.context_size == WINDOW
        assert details.fill_after < details.fill_before <= details.token_count
        assert details.target <= 0.65 * WINDOW and details.headroom > 0
        assert details.steps and details.steps[0].startswith("dropped ")
        assert details.turns_after < details.turns_before and details.floor is False
    # Every request the script received was under the budget, by its own count.
    fills = session.fills()
    assert len(fills) >= 600
    assert max(fill.tokens for fill in fills) < BUDGET
    # Dropped entries carry the event that dropped them and the turn.
    ids = {event.id for event in session.sink.events if event.kind == "context.condensation"}
    assert {entry.dropped_by for entry in conversation.store if not entry.active} <= ids


async def test_an_unknown_window_is_never_condensed_ahead(tmp_path: Path, session: Session) -> None:
    log = file_of(tmp_path / "harbour.log", 2048)
    conversation = await session.open(reading_turns(1, 12, log), window=None)
    await run_turns(conversation, 1, 12)
    assert session.condensations() == []
    assert all(entry.active for entry in conversation.store)


async def test_an_overflow_is_condensed_from_its_count_and_asked_once_more(
    tmp_path: Path, session: Session
) -> None:
    log = file_of(tmp_path / "harbour.log", 2048)
    refusal = {"error": "the request exceeds the context window: context length exceeded"}
    responses = [*reading_turns(1, 4, log), refusal, {"text": "Fits now."}]
    conversation = await session.open(responses, window=None)
    await run_turns(conversation, 1, 4)

    result = await conversation.run_turn("and now?")

    assert result.outcome == "ok" and result.text == "Fits now."
    (details,) = session.condensations()
    assert details.reason == "overflow"
    # Nothing said the window: all but the last whole turn went.
    assert (details.turns_before, details.turns_after) == (4, 1)
    assert details.steps == ["dropped 3 turns"]
    assert [entry.turn for entry in conversation.store.live()][:4] == [4, 4, 4, 4]


async def test_a_second_overflow_fails_the_turn_saying_what_to_do(
    tmp_path: Path, session: Session
) -> None:
    log = file_of(tmp_path / "harbour.log", 2048)
    refusal = {"error": "the request exceeds the context window: context length exceeded"}
    conversation = await session.open([*reading_turns(1, 3, log), refusal, refusal], window=None)
    await run_turns(conversation, 1, 3)

    result = await conversation.run_turn("and now?")

    assert result.outcome == "error"
    assert result.error is not None and result.error.startswith(STILL_TOO_BIG.split("(")[0])
    assert "/new" in result.error and "larger context" in result.error


async def test_the_floor_is_reported_when_the_last_turn_alone_is_too_big(
    tmp_path: Path, session: Session
) -> None:
    big = file_of(tmp_path / "big.log", 16_000)
    read_page = {"tool_calls": [{"name": "read_file", "arguments": {"path": str(big)}}]}
    # A long reply of words that do not repeat (a repeating one is cut as a runaway).
    long_reply = {"text": " ".join(hashlib.sha256(b"%d" % n).hexdigest()[:7] for n in range(450))}
    conversation = await session.open([read_page, long_reply, {"text": "ok"}], window=2048)
    await run_turns(conversation, 1, 1)
    result = await conversation.run_turn("more?")

    assert result.outcome == "ok"
    (details,) = session.condensations()
    assert details.floor is True and details.steps == []
    assert all(entry.active for entry in conversation.store)  # nothing was dropped


async def test_the_window_an_overflow_names_is_learnt_for_the_session(
    tmp_path: Path, session: Session
) -> None:
    log = file_of(tmp_path / "harbour.log", 2048)
    refusal = {
        "error": "This model's maximum context length is 2048 tokens. However, you requested "
        "2600 tokens (2600 in the messages, 0 in the completion)."
    }
    responses = [*reading_turns(1, 6, log), refusal, {"text": "Fits now."}]
    conversation = await session.open([*responses, *reading_turns(8, 12, log)], window=None)
    await run_turns(conversation, 1, 6)
    assert session.condensations() == []  # no window known: nothing ahead of time

    result = await conversation.run_turn("and now?")
    await run_turns(conversation, 8, 12)

    assert result.outcome == "ok" and conversation.resolved.context_size == 2048
    first, *later = session.condensations()
    assert (first.reason, first.context_size, first.token_count) == ("overflow", 2048, 2600)
    # Measured from the runtime's count (2,600, well above wisp's estimate): all but the last
    # turn go, and the estimates are scaled to the runtime's count from now on.
    assert (first.turns_before, first.turns_after, first.steps) == (6, 1, ["dropped 5 turns"])
    assert conversation.meter.ratio > 1
    # From then on the learnt window is condensed against before sending.
    assert later and all(d.reason == "budget" and d.context_size == 2048 for d in later)


async def test_the_kept_stored_part_is_what_composing_afresh_gives(
    tmp_path: Path, session: Session
) -> None:
    """The live entries are kept as messages between requests (appended, a reference replaced
    in place, rebuilt after a drop); at every turn they equal a composition made afresh."""
    log = file_of(tmp_path / "harbour.log", 2048)
    conversation = await session.open(reading_turns(1, 40, log))
    for number in range(1, 41):
        await run_turns(conversation, number, number)
        pending = [PendingEntry("prompt", "next?")]
        afresh = compose(
            conversation.instructions, conversation.store.live(), pending, memory=False
        )
        kept = conversation.messages(pending)
        assert msgspec.json.encode(kept) == msgspec.json.encode(afresh), number
        meter = conversation.meter
        assert meter.stored().tokens == sum(map(meter.entry_tokens, conversation.store.live()))
    assert session.condensations()  # the rebuild after a drop was exercised
