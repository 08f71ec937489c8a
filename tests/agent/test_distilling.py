"""What a condensation keeps of the turns it drops: facts distilled and the running summary,
each by a routed call of its own that never enters the conversation (wisp/agent/distilling.py;
docs/turn.md, "Distillation" and "The running summary").

The conversation runs on the real ``script:`` backend with a declared window of 4,096 tokens;
each turn's prompt is about 1.4 KB, so the first condensation comes at turn 10 and drops turns
1-4 (the fourth for the room a summary takes), and later ones four turns each. The routed
calls are answered from the script's ``routed`` replies, per task.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from msgspec import UNSET

from tests.agent.test_loop import RecordingBackend
from wisp.agent.distilling import SUMMARY_HEADER
from wisp.agent.loop import Conversation
from wisp.agent.types import message_bytes
from wisp.audit import MemorySink
from wisp.audit.kinds import (
    ContextCondensation,
    ContextDistillation,
    ContextSummary,
    FactRecorded,
)  # fmt: skip

WINDOW = 4096
FACTS = {
    "facts": [
        {"subject": "entity", "name": "ferry crates", "value": "199"},
        {"subject": "decision", "name": "harbour", "value": "keep the night shift"},
        {"subject": "weather", "name": "today", "value": "windy"},  # not a distiller's subject
    ]
}
SUMMARY = "The person reported the ferry's crossings; all crates arrived."


def prompt(number: int) -> str:
    return f"turn {number}: " + "the ferry left on time with all its crates aboard. " * 27


async def opened(
    make_conversation, tmp_path: Path, routed: dict[str, list[dict[str, Any]]], turns: int = 16
) -> tuple[Conversation, RecordingBackend]:
    script = tmp_path / "script.json"
    responses = [{"text": f"Turn {number}: noted."} for number in range(1, turns + 1)]
    script.write_text(json.dumps({"contextSize": WINDOW, "responses": responses, "routed": routed}))
    conversation = await make_conversation(script, [], max_steps=5)
    recording = RecordingBackend(conversation.resolved.backend)
    conversation.resolved.backend = recording
    return conversation, recording


async def run(conversation: Conversation, first: int, last: int) -> None:
    for number in range(first, last + 1):
        result = await conversation.run_turn(prompt(number))
        assert result.outcome == "ok" and result.text == f"Turn {number}: noted.", number


def of_kind(sink: MemorySink, kind: type) -> list[Any]:
    return [event.details for event in sink.events if isinstance(event.details, kind)]


def entry_ids(conversation: Conversation, turns: list[int], kinds: set[str]) -> list[int]:
    return [e.id for e in conversation.store if e.turn in turns and e.kind in kinds]


async def test_one_call_may_distil_the_dropped_turns_and_write_the_summary(
    make_conversation, tmp_path: Path, sink: MemorySink
) -> None:
    routed = {"distill": [{"text": json.dumps({**FACTS, "summary": SUMMARY})}]}
    conversation, recording = await opened(make_conversation, tmp_path, routed, turns=11)
    conversation.distiller.combine = True

    await run(conversation, 1, 11)

    kinds = [e.kind for e in sink.events if e.turn == 10]
    order = ["context.distillation", "fact.recorded", "context.summary", "context.condensation"]
    assert [kind for kind in kinds if kind in order] == [order[0], order[1], *order[1:]]
    (distillation,) = of_kind(sink, ContextDistillation)
    turns = [1, 2, 3, 4]  # the fourth too: room is kept for the summary this writes
    read = entry_ids(conversation, turns, {"prompt", "response"})
    assert distillation.turns == turns and distillation.entries == read
    assert distillation.facts == ["c1", "c2"]  # the weather is no distiller's subject
    assert distillation.seconds >= 0
    assert distillation.model == conversation.model and distillation.think is False
    assert distillation.failure is UNSET
    recorded = of_kind(sink, FactRecorded)
    assert [(f.subject, f.name, f.value) for f in recorded] == [
        ("entity", "ferry crates", "199"), ("decision", "harbour", "keep the night shift"),
    ]  # fmt: skip
    events = [s.event for i in read for s in conversation.store.get(i).sources]
    for fact in recorded:
        assert (fact.source, fact.method, fact.class_) == ("model", "distilled", "dynamic")
        assert fact.entries == read and fact.sources == events
    (summary,) = of_kind(sink, ContextSummary)
    assert (summary.version, summary.turns, summary.covered, summary.combined) == (
        1, turns, 4, True,
    )  # fmt: skip
    assert summary.entries == entry_ids(conversation, turns, {"prompt", "response", "toolCalls"})
    assert summary.summary_bytes == len(SUMMARY) and summary.bytes == distillation.bytes
    assert (summary.seconds, summary.model) == (distillation.seconds, distillation.model)
    assert summary.think is False
    (condensation,) = of_kind(sink, ContextCondensation)
    assert condensation.steps == ["distilled 4 turns", "dropped 4 turns"]
    # One call did both; it never entered the conversation's requests.
    side = [r for r in recording.requests if r.task is not None]
    assert [r.task for r in side] == ["distill"] and side[0].think is False
    assert side[0].schema is not None and "summary" in side[0].schema["properties"]
    assert distillation.bytes == sum(message_bytes(m) for m in side[0].messages)
    read_text = side[0].messages[1].content  # each turn's prompt cut to 1 KiB, and its reply
    assert prompt(1)[:900] in read_text and prompt(1) not in read_text
    assert "The assistant: Turn 4: noted." in read_text
    own = [r for r in recording.requests if r.task is None]
    assert all("Answer with JSON only" not in m.content for r in own for m in r.messages)
    # The next request carries the summary where turns 1-4 were, and the facts with the prompt.
    last = own[-1].messages
    assert last[1].content.startswith(SUMMARY_HEADER.format(turns=4) + "\n" + SUMMARY)
    assert last[1].content.endswith(prompt(5))
    assert "- entity ferry crates: 199" in last[-1].content
    assert all(prompt(n) not in m.content for n in turns for m in last)


async def test_the_summary_alone_waits_for_a_batch_and_keeps_its_turns_when_a_call_fails(
    make_conversation, tmp_path: Path, sink: MemorySink
) -> None:
    routed = {
        "summary": [
            {"error": "the model went away"},
            {"text": "Version one: the ferry's crossings, turns 1-6."},
            {"text": "  "},
        ]
    }
    conversation, recording = await opened(make_conversation, tmp_path, routed, turns=20)
    conversation.facts.enabled = False  # a conversation that keeps no facts distils none

    await run(conversation, 1, 20)

    assert of_kind(sink, ContextDistillation) == []
    failed, first, empty = of_kind(sink, ContextSummary)
    assert failed.failure == "the call failed: the model went away"
    assert (failed.version, failed.turns, failed.covered, failed.summary_bytes) == (
        UNSET, [1, 2, 3, 4], 0, 0,
    )  # fmt: skip
    assert failed.combined is False and failed.think is False and failed.model
    # The turns waited for the next batch: the next version takes them in, the newest first
    # when they are more than one call may read (turn 1 is left out whole).
    assert (first.version, first.turns, first.covered) == (1, [2, 3, 4, 5, 6, 7, 8], 7)
    assert first.summary_bytes == len("Version one: the ferry's crossings, turns 1-6.")
    assert first.failure is UNSET
    assert empty.failure == "the answer was empty" and empty.version is UNSET
    assert empty.turns == [9, 10, 11, 12] and empty.covered == 7  # still version 1's
    steps = [c.steps for c in of_kind(sink, ContextCondensation)]
    assert all(step[0].startswith("dropped ") for step in steps)
    side = [r for r in recording.requests if r.task is not None]
    assert [r.task for r in side] == ["summary"] * 3 and side[0].schema is None
    assert "The summary so far:\nVersion one" in side[2].messages[1].content
    # Requests after version 1 carry it; the summary's own requests never reach the turns'.
    own = [r for r in recording.requests if r.task is None]
    assert "Version one" in own[-1].messages[1].content
    assert conversation.distiller.summary.newest.version == 1


async def test_a_distiller_that_answers_garbage_records_why_and_loses_no_turn(
    make_conversation, tmp_path: Path, sink: MemorySink
) -> None:
    routed = {"distill": [{"text": "Sure! The facts are: none."}, {"text": '{"facts": "many"}'}]}
    conversation, _ = await opened(make_conversation, tmp_path, routed, turns=16)
    conversation.distiller.summary.batch = 0  # no summary: the distillation alone

    await run(conversation, 1, 16)  # every turn answered

    prose, shaped, unanswered = of_kind(sink, ContextDistillation)
    assert prose.failure == "the answer was not a JSON object: 'Sure! The facts are: none.'"
    assert shaped.failure.startswith("the answer did not fit (")
    assert unanswered.failure.startswith("the call failed: ")
    assert [d.facts for d in (prose, shaped, unanswered)] == [[], [], []]
    assert of_kind(sink, FactRecorded) == [] and of_kind(sink, ContextSummary) == []
    condensations = of_kind(sink, ContextCondensation)
    assert [c.steps for c in condensations] == [[f"dropped {len(d.turns)} turns"] for d in (
        prose, shaped, unanswered)]  # fmt: skip
    # The turns went as planned all the same.
    dropped = {e.turn for e in conversation.store if not e.active and e.turn}
    assert dropped == {*prose.turns, *shaped.turns, *unanswered.turns}
    assert conversation.distiller.summary.waiting == []  # no summary kept: nothing waits


async def test_turns_waiting_after_a_failed_call_are_read_again_with_the_next_batch(
    make_conversation, tmp_path: Path, sink: MemorySink
) -> None:
    both = {"text": json.dumps({"summary": SUMMARY, **FACTS})}
    routed = {"distill": [{"text": "no"}, both, both]}
    conversation, _ = await opened(make_conversation, tmp_path, routed, turns=16)
    conversation.distiller.combine = True

    await run(conversation, 1, 16)

    failed, again, *_ = of_kind(sink, ContextDistillation)
    first, second, *_ = of_kind(sink, ContextCondensation)
    assert failed.turns == [1, 2, 3, 4] and first.steps == ["dropped 4 turns"]
    (dropped,) = second.steps[1:]
    # The second call reads the turns that waited again with the turns now dropped (the newest
    # first, within what one call may read: turn 1 is left out); the step counts these.
    assert again.turns[:3] == [2, 3, 4] and again.failure is UNSET
    assert second.steps[0] == dropped.replace("dropped", "distilled")
    summaries = of_kind(sink, ContextSummary)
    assert summaries[0].failure == failed.failure and summaries[1].version == 1
    assert summaries[1].turns == again.turns and summaries[1].covered == len(again.turns)


async def test_by_default_two_calls_distil_and_summarise(
    make_conversation, tmp_path: Path, sink: MemorySink
) -> None:
    routed = {"distill": [{"text": json.dumps(FACTS)}], "summary": [{"text": SUMMARY}]}
    conversation, recording = await opened(make_conversation, tmp_path, routed, turns=11)

    await run(conversation, 1, 11)

    (distillation,) = of_kind(sink, ContextDistillation)
    (summary,) = of_kind(sink, ContextSummary)
    assert distillation.facts == ["c1", "c2"] and distillation.failure is UNSET
    assert (summary.version, summary.combined, summary.turns) == (1, False, [1, 2, 3, 4])
    side = [r for r in recording.requests if r.task is not None]
    assert [r.task for r in side] == ["distill", "summary"]
    assert "summary" not in side[0].schema["properties"] and side[1].schema is None
    # Each reads the prompts and replies (the summary, the calls too).
    assert summary.entries == distillation.entries  # no tool calls in these turns
