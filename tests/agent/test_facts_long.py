"""Facts outlive the window: a 60-turn conversation on a 4,096-token window, three facts the
person stated in turns 1-3 and one the model noted in turn 4. Long after condensing dropped
those turns, every request still carries all four, and ``memory`` recalls them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agent.test_condensing import WINDOW, file_of, reading_turns
from tests.agent.test_loop import RecordingBackend
from wisp.tools.memory import MemoryTool
from wisp.tools.read_file import ReadFileTool

STATED = [("deploy", "branch", "release"), ("db", "port", "5433"), ("owner", "name", "Ana")]
NOTE = {"name": "memory", "arguments": {"request": "note ci status = green"}}
RECALL = {"name": "memory", "arguments": {"request": "recall facts"}}
LINES = [
    "- deploy branch: release", "- db port: 5433", "- owner name: Ana", "- ci status: green",
]  # fmt: skip


async def test_sixty_turns_keep_every_fact_in_every_request(
    make_conversation, tmp_path: Path, sink, events
) -> None:
    log = file_of(tmp_path / "harbour.log", 2048)
    responses = reading_turns(1, 3, log)
    responses += [{"tool_calls": [NOTE]}, {"text": "Noted: CI is green."}]
    responses += reading_turns(5, 59, log)
    responses += [{"tool_calls": [RECALL]}, {"text": "Four facts."}]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"contextSize": WINDOW, "responses": responses}))
    conversation = await make_conversation(
        script, [ReadFileTool(), MemoryTool()], memory=True, max_steps=25
    )
    recording = RecordingBackend(conversation.resolved.backend)
    conversation.resolved.backend = recording
    facts = conversation.facts

    for number in range(1, 61):
        if number <= 3:  # the person's /fact, between turns
            subject, name, value = STATED[number - 1]
            facts.record(facts.book.record(subject, name, value, source="person", method="stated"))
        before = len(recording.requests)
        result = await conversation.run_turn(f"turn {number}: read the log again")
        assert result.outcome == "ok", (number, result.error)
        if number >= 5:  # every request of the turn carries the four facts
            for request in recording.requests[before:]:
                if request.task is not None:
                    continue  # a side call (distillation), not one of the conversation's
                prompt = next(
                    m
                    for m in request.messages
                    if m.content.endswith(f"({number})")
                    or m.content.endswith(f"turn {number}: read the log again")
                )
                assert all(line in prompt.content for line in LINES), number

    # Condensing dropped turns 1-10, facts and all, from what requests carry.
    kept_turns = {e.turn for e in conversation.store if e.dropped_at is None and e.turn}
    assert min(kept_turns) > 10
    assert [e.kind for e in sink.events].count("context.condensation") >= 2
    # The model recalls them.
    recalled = next(
        e.details
        for e in sink.events
        if e.kind == "context.memory" and e.details.action == "recall"
    )
    assert recalled.facts == ["c1", "c2", "c3", "c4"] and recalled.found
    kinds = [e.kind for e in sink.events if e.kind.startswith("fact.")]
    assert kinds == ["fact.recorded"] * 4
