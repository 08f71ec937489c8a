"""The checks under a reply, over the real `script:` backend: a stored turn's calls linked to the
events that recorded them, its cited entries checked against the store, and ``ran:`` from the
turn's trail (wisp/agent/reply_checks.py)."""

from __future__ import annotations


async def test_entries_link_to_the_events_that_recorded_them(
    make_conversation, write_script, sink, events
):
    script = write_script(
        {"tool_calls": [{"name": "echo", "arguments": {"text": "x"}}]}, {"text": "done"}
    )
    conversation = await make_conversation(script)
    await conversation.run_turn("go")
    ids = {event.kind: event.id for event in sink.events}
    by_kind = {entry.kind: entry for entry in conversation.store}
    assert by_kind["prompt"].sources[0].event == ids["prompt"]
    assert by_kind["toolCalls"].sources[0].event == ids["tool.call"]
    assert by_kind["toolOutput"].sources[0].event == ids["tool.result"]
    assert by_kind["response"].sources[0].event == ids["response"]


async def test_cited_entries_are_checked_against_the_store(
    make_conversation, write_script, sink, events
):
    script = write_script(
        {"tool_calls": [{"name": "current_date", "arguments": {}}]},
        {"text": "Checked (entry 3); all steps logged in entries 3-9."},
    )
    conversation = await make_conversation(script)
    result = await conversation.run_turn("check")
    assert len(conversation.store) == 5
    assert result.unknown_entries == [6, 7, 8, 9]
    assert result.cited == "cited but not in this conversation: entries 6–9 (4)"


async def test_ran_no_tools_when_the_reply_names_a_tool_it_did_not_call(
    make_conversation, write_script, events
):
    conversation = await make_conversation(write_script({"text": "I ran current_date."}))
    result = await conversation.run_turn("date?")
    assert result.ran == "ran: no tools"
