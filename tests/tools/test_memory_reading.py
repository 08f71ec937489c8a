"""memory's summarise and condense read an entry or a stored output through a routed model call
(the real ``SideCalls`` over a ``script:`` model answering the routed tasks), in chunks for
condense; ``recall summary`` reads the running summary. Each is recorded as context.memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from msgspec import UNSET

from wisp.agent.distilling import RunningSummary, SummaryVersion
from wisp.agent.side_calls import SideCalls
from wisp.agent.types import ToolContext
from wisp.models.script import resolve
from wisp.store import ConversationStore, PendingEntry, Source, ToolOutputValue
from wisp.tools.memory import MemoryTool

LOG = "\n".join(f"{n:03} sync: crate {n} aboard" for n in range(1, 201))
"""An output of 200 lines (about 6 KB): two chunks of the 4 KiB budget."""
SESSION = "5fd0cf21a0b1c2d3"


def stored(conversation: Any) -> ConversationStore:
    store = ConversationStore()
    store.add(PendingEntry("instructions", "You are Wisp."), turn=None, origin="carried", time=None)
    source = (Source(session=SESSION, turn=1, event="c" * 16),)
    store.add_turn(
        [
            PendingEntry("prompt", "Run the sync."),
            PendingEntry("toolOutput", ToolOutputValue("3f2a9c1e", "run_command", LOG), source),
            PendingEntry("response", "The sync ran."),
        ],
        turn=1,
        time=None,
    )
    conversation.store = store
    return store


async def attach(conversation: Any, tmp_path: Path, routed: dict[str, list[Any]]) -> Any:
    """The conversation's model, a script answering the routed tasks, for memory's calls."""
    script = tmp_path / "routed.json"
    script.write_text(json.dumps({"responses": [], "routed": routed}))
    model = await resolve(str(script))
    conversation.side_calls = SideCalls(None, None, lambda: model)  # type: ignore[arg-type]
    return model.backend


async def memory(context: ToolContext, request: str) -> str:
    return await MemoryTool().run({"request": request}, context)


async def test_summarise_an_entry_gives_its_notable_lines(
    context: ToolContext, conversation: Any, tmp_path: Path, recorded: list[Any]
) -> None:
    stored(conversation)
    notable = "001 sync: crate 1 aboard (line 1) … all 200 crates aboard."
    parts = [{"text": "first part"}, {"text": "second part"}, {"text": notable}]
    await attach(conversation, tmp_path, {"summarise": parts})

    result = await memory(context, "summarise entry 3")

    assert result.startswith("summarise entry 3 (2 chunks read by script:")
    assert result.endswith(notable)
    record = recorded[-1]
    assert (record.action, record.target, record.entries, record.found) == (
        "summarise", "entry 3", [3], True,
    )  # fmt: skip
    assert record.summary == "notable" and record.bytes == len(result.encode())
    assert record.output is UNSET and record.chunks is UNSET and record.failure is UNSET


async def test_summarise_an_output_as_an_overview(
    context: ToolContext, conversation: Any, tmp_path: Path, recorded: list[Any]
) -> None:
    stored(conversation)
    answers = [{"text": "It counts crates."}] * 3
    backend = await attach(conversation, tmp_path, {"summarise": answers})

    result = await memory(context, "summarise output 3f2a9c1e overview")

    assert result.endswith("It counts crates.")
    record = recorded[-1]
    assert (record.target, record.output, record.summary) == (
        "output 3f2a9c1e", "3f2a9c1e", "overview",
    )  # fmt: skip
    assert record.entries is UNSET and backend.routed_requests == {"summarise": 3}


async def test_condense_answers_a_question_from_every_chunk_and_counts_those_that_failed(
    context: ToolContext, conversation: Any, tmp_path: Path, recorded: list[Any]
) -> None:
    stored(conversation)
    answers = [{"error": "the model went away"}, {"text": "Line 200: crate 200 is the last."}]
    await attach(conversation, tmp_path, {"condense": answers})

    result = await memory(context, "condense entry 3: which crate came last?")

    assert "Line 200: crate 200 is the last." in result
    assert "could not be read: 1 of 2 chunks failed]" in result
    record = recorded[-1]
    assert (record.action, record.target, record.found, record.chunks) == (
        "condense", "entry 3", True, 2,
    )  # fmt: skip
    assert record.failure == "1 of 2 chunks failed" and record.entries == [3]
    assert record.bytes == len(result.encode())


async def test_condense_whose_every_chunk_fails_says_so(
    context: ToolContext, conversation: Any, tmp_path: Path, recorded: list[Any]
) -> None:
    stored(conversation)
    await attach(conversation, tmp_path, {})  # the model answers no routed call

    result = await memory(context, "condense output 3f2a9c1e: which crate came last?")

    assert result.startswith("error: condense could not read output 3f2a9c1e: every chunk")
    assert recorded[-1].failure == "2 of 2 chunks failed" and recorded[-1].chunks == 2


@pytest.mark.parametrize(
    ("request_", "failure"),
    [
        ("condense entry 3", "shape"),
        ("condense entry 3:   ", "shape"),
        ("summarise", "shape"),
        ("condense entry 40: why?", "target"),
        ("summarise output 0badc0de", "target"),
        ("summarise entry 1", "target"),  # the instructions: every request has them whole
    ],
)
async def test_a_summarise_or_condense_that_cannot_run_says_why(
    context: ToolContext,
    conversation: Any,
    tmp_path: Path,
    recorded: list[Any],
    request_: str,
    failure: str,
) -> None:
    stored(conversation)
    await attach(conversation, tmp_path, {})

    result = await memory(context, request_)

    assert result.startswith("error: ")
    assert recorded[-1].failure == failure and recorded[-1].found is False


async def test_recall_summary_gives_the_versions_newest_first(
    context: ToolContext, conversation: Any, recorded: list[Any]
) -> None:
    stored(conversation)
    result = await memory(context, "recall summary")
    assert result.startswith("memory: there is no running summary")
    assert recorded[-1].found is False

    summary = RunningSummary(3)
    summary.written(SummaryVersion(1, "The sync ran.", (1, 2, 3), "a" * 16))
    summary.written(SummaryVersion(2, "The sync ran twice.", (1, 2, 3, 4, 5, 6), "b" * 16))
    conversation.summary = summary

    result = await memory(context, "recall the summary")

    lines = result.split("\n")
    assert lines[0] == "summary: 2 versions, newest first"
    assert lines[1:5] == [
        "[version 2, 6 turns: turns 1-6]", "The sync ran twice.",
        "[version 1, 3 turns: turns 1-3]", "The sync ran.",
    ]  # fmt: skip
    record = recorded[-1]
    assert (record.target, record.found, record.summaries) == ("summary", True, [2, 1])
    assert record.events == ["b" * 16, "a" * 16] and record.entries == []
    assert record.from_ is UNSET
