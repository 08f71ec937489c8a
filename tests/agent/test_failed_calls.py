"""A call written as text that names no offered tool, or whose arguments do not parse, is a
failed call: its result names the tools offered (once a turn) and the model answers next,
never the object printed as the answer (docs/turn.md, "Failed calls"). An argument a tool
does not have is ignored, and its result says so."""

from __future__ import annotations

from wisp.agent.events import TextFragment
from wisp.audit import MemorySink
from wisp.audit.kinds import ToolCall, ToolResult

CHANGE_PORT = '{"name": "change_port", "arguments": {"port": "9090"}}'
"""Qwen2.5-Coder-0.5B-Instruct's recorded reply to "In config.ini, change the port from 8080 to
9090." (tests/agent/verification/labelled.toml, real-qwen-01)."""


def results(sink: MemorySink) -> list[str]:
    return [e.details.output for e in sink.events if isinstance(e.details, ToolResult)]


def shown(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, TextFragment))


async def test_a_recorded_call_of_no_offered_tool_fails_and_the_next_reply_answers(
    make_conversation, write_script, sink, events
):
    script = write_script({"text": CHANGE_PORT}, {"text": "I cannot change ports."})
    conversation = await make_conversation(script)
    result = await conversation.run_turn("In config.ini, change the port from 8080 to 9090.")
    assert (result.outcome, result.text) == ("ok", "I cannot change ports.")
    assert sink.kinds() == ["prompt", "tool.call", "tool.result", "response"]
    call = sink.events[1].details
    assert isinstance(call, ToolCall)
    assert (call.tool, call.arguments) == ("change_port", {"port": "9090"})
    assert results(sink) == [
        "error: there is no tool named change_port. The tools you have: current_date, echo. "
        "Call one of them, or answer in plain text."
    ]
    assert "change_port" not in shown(events)  # the object never reached the screen
    assert [e.kind for e in conversation.store][-3:] == ["toolCalls", "toolOutput", "response"]


async def test_the_tools_are_named_once_a_turn_and_pointed_to_after(
    make_conversation, write_script, sink, events
):
    wrong = {"text": '```json\n{"name": "hello", "arguments": {}}\n```'}
    script = write_script(wrong, {"text": CHANGE_PORT}, {"text": "Done."}, wrong, {"text": "Ok."})
    conversation = await make_conversation(script)
    await conversation.run_turn("first")
    await conversation.run_turn("second")
    named = ". The tools you have: current_date, echo. Call one of them, or answer in plain text."
    assert results(sink) == [
        "error: there is no tool named hello" + named,
        "error: there is no tool named change_port (the tools you have are named in an earlier "
        "result).",
        "error: there is no tool named hello" + named,  # a new turn names them again
    ]


async def test_arguments_that_do_not_parse_are_not_run_and_the_model_is_told(
    make_conversation, write_script, sink, events
):
    written = {"text": '{"name": "echo", "arguments": "say hello"}'}
    conversation = await make_conversation(write_script(written, {"text": "Sorry."}))
    result = await conversation.run_turn("echo hello")
    assert (result.outcome, result.text) == ("ok", "Sorry.")
    assert results(sink) == [
        "error: the call to echo was not run: its arguments must be a JSON object, and were "
        "say hello. The tools you have: current_date, echo. Call one of them, or answer in "
        "plain text."
    ]
    assert "say hello" not in shown(events)


async def test_prose_that_contains_json_is_the_answer(
    make_conversation, write_script, sink, events
):
    answer = 'Paris. For example {"name": "paris", "country": "France"}'
    conversation = await make_conversation(write_script({"text": answer}))
    result = await conversation.run_turn("What is the capital of France?")
    assert (result.outcome, result.text) == ("ok", answer)
    assert sink.kinds() == ["prompt", "response"]
    assert shown(events) == answer


async def test_an_unknown_argument_is_ignored_with_a_note_at_the_end_of_the_result(
    make_conversation, write_script, sink, events
):
    call = {"name": "current_date", "arguments": {"format": "iso", "city": "Paris"}}
    script = write_script({"tool_calls": [call]}, {"text": "It is today."})
    conversation = await make_conversation(script)
    result = await conversation.run_turn("What is the date?")
    assert (result.outcome, result.text) == ("ok", "It is today.")
    (output,) = results(sink)
    *lines, note = output.split("\n")
    assert note == "(ignored unknown arguments: format, city)"
    assert lines and not lines[0].startswith("error")  # the call ran


async def test_the_same_wrong_call_line_after_line_ends_the_tools_not_shown(
    make_conversation, write_script, sink, events
):
    # Qwen2.5-Coder-0.5B, told change_port does not exist, wrote it again line after line
    # (recorded: tests/models/text_calls/corpus.toml): failed calls, never the answer; the
    # second in a row withdraws the tools as any call repeated straight after itself does.
    again = {"text": "\n".join([CHANGE_PORT] * 4)}
    script = write_script({"text": CHANGE_PORT}, again, {"text": "I cannot change it."})
    conversation = await make_conversation(script)
    result = await conversation.run_turn("In config.ini, change the port from 8080 to 9090.")
    assert (result.outcome, result.text) == ("ok", "I cannot change it.")
    assert sink.kinds().count("tool.call") == 2
    assert sink.kinds().count("tools.withdrawn") == 1
    assert "change_port" not in shown(events)
