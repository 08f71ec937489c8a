"""The facts in force go with every request: the running turn's prompt leads with them, the
stored prompt never holds them, and the messages before it stay as a runtime's cache holds
them."""

from __future__ import annotations

from tests.agent.test_loop import recorded

FIRST, SECOND = {"text": "Noted."}, {"text": "It deploys from release."}


async def test_the_prompt_as_sent_leads_with_the_facts_in_force(
    make_conversation, write_script, sink, events
) -> None:
    conversation, recording = await recorded(make_conversation, write_script(FIRST, SECOND))
    await conversation.run_turn("Hello.")
    conversation.facts.record(
        conversation.facts.book.record(
            "deploy", "branch", "release", source="person", method="stated"
        )
    )
    await conversation.run_turn("Which branch do we deploy?")
    before, after = recording.requests
    assert after.messages[-1].content == (
        "Facts in force (the person's first):\n- deploy branch: release\n\n"
        "Which branch do we deploy?"
    )
    # What the first request sent is sent again unchanged: the cache keeps that prefix.
    assert after.messages[: len(before.messages)] == before.messages
    # The store keeps the prompt as the person wrote it.
    assert [e.value for e in conversation.store if e.kind == "prompt"][-1] == (
        "Which branch do we deploy?"
    )
    assert [e.kind for e in sink.events if e.kind.startswith("fact.")] == ["fact.recorded"]


async def test_with_no_fact_in_force_the_prompt_goes_as_written(
    make_conversation, write_script, sink, events
) -> None:
    conversation, recording = await recorded(make_conversation, write_script(FIRST))
    conversation.facts.record(
        conversation.facts.book.record(
            "deploy", "branch", "release", source="model", method="noted"
        )
    )
    conversation.facts.record(conversation.facts.book.delete("c1"))
    await conversation.run_turn("Hello.")
    assert recording.requests[0].messages[-1].content == "Hello."
    assert [e.kind for e in sink.events if e.kind.startswith("fact.")] == [
        "fact.recorded", "fact.deleted",
    ]  # fmt: skip


def test_a_small_budget_keeps_the_persons_facts_first_and_leaves_out_what_does_not_fit() -> None:
    from wisp.facts.book import FactBook, facts_block

    book = FactBook()
    book.record("model", "guess", "x" * 40, source="model", method="noted")
    book.record("deploy", "branch", "release", source="person", method="stated")
    book.record("tool", "found", "y" * 40, source="tool", method="extracted")
    block = facts_block(book.in_force(), budget=120)
    assert block.splitlines() == [
        "Facts in force (the person's first):",
        "- deploy branch: release",
        "- tool found: " + "y" * 40,  # the newest of the rest; the model's no longer fits
    ]


async def test_what_the_model_notes_is_kept_when_its_turn_ends_and_carried_after(
    make_conversation, write_script, sink, events
) -> None:
    from tests.agent.test_loop import RecordingBackend
    from wisp.tools.memory import MemoryTool

    note = {"tool_calls": [{"name": "memory", "arguments": {"request": "note db port = 5433"}}]}
    script = write_script(note, {"text": "Noted."}, {"text": "5433."})
    conversation = await make_conversation(script, [MemoryTool()], memory=True)
    recording = RecordingBackend(conversation.resolved.backend)
    conversation.resolved.backend = recording
    await conversation.run_turn("The database listens on 5433; remember that.")
    kinds = [e.kind for e in sink.events]
    assert kinds.index("fact.recorded") > kinds.index("response")  # when the turn ended
    (recorded,) = [e for e in sink.events if e.kind == "fact.recorded"]
    memory_event = next(e for e in sink.events if e.kind == "context.memory")
    assert (recorded.details.source, recorded.details.method) == ("model", "noted")
    assert recorded.details.sources == [memory_event.id]
    await conversation.run_turn("Which port?")
    assert recording.requests[-1].messages[-1].content == (
        "Facts in force (the person's first):\n- db port: 5433\n\nWhich port?"
    )


async def test_with_facts_off_nothing_is_noted_and_nothing_carried(
    make_conversation, write_script, sink, events
) -> None:
    conversation, recording = await recorded(make_conversation, write_script(FIRST))
    conversation.facts.enabled = False
    facts = conversation.facts
    facts.record(facts.book.record("deploy", "branch", "release", source="person", method="stated"))
    assert facts.note("db", "port", "5433", "dynamic") == "off"
    await conversation.run_turn("Hello.")
    assert recording.requests[0].messages[-1].content == "Hello."


async def test_the_assessment_records_the_facts_a_request_carries(
    make_conversation, write_script, sink, events
) -> None:
    conversation, _ = await recorded(make_conversation, write_script(FIRST))
    conversation.assessment = True
    facts = conversation.facts
    facts.record(facts.book.record("deploy", "branch", "release", source="person", method="stated"))
    await conversation.run_turn("What is today's date?")
    (assessed,) = [e.details for e in sink.events if e.kind == "context.assessment"]
    assert (assessed.facts, assessed.task_changed) == (["c1"], False)


async def test_the_request_for_the_answer_carries_the_facts_too(
    make_conversation, write_script, sink, events
) -> None:
    from tests.agent.test_loop import ECHO_AGAIN

    script = write_script(ECHO_AGAIN, ECHO_AGAIN, {"text": "5433."})
    conversation, recording = await recorded(make_conversation, script)
    facts = conversation.facts
    facts.record(facts.book.record("db", "port", "5433", source="person", method="stated"))
    await conversation.run_turn("Which port?")
    asked = recording.requests[-1].messages[-1].content  # the request that stands alone
    assert asked.startswith("Facts in force (the person's first):\n- db port: 5433\n\nQuestion:")
