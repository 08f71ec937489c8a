"""What every backend does to a reply: argument completion, overflow, text calls, thinking."""

from __future__ import annotations

import pytest

from wisp.agent.types import TextDelta, ThinkingDelta, ToolCallRequested, ToolSpec
from wisp.models.parsing import (
    MistralCallFilter,
    TextCallFilter,
    ThinkSplitter,
    complete_arguments,
    complete_call,
    is_overflow_message,
    parse_mistral_calls,
)

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "lines": {"type": "array", "items": {"type": "integer"}},
        "force": {"type": "boolean"},
        "limit": {"type": "integer"},
        "mode": {"type": "string", "enum": ["r", "w"]},
        "note": {"type": ["string", "null"]},
        "optional": {"type": "string"},
    },
    "required": ["path", "lines", "force", "limit", "mode", "note"],
}
NAMES = ["read_file", "run_command"]


def feed_all(
    filter_: MistralCallFilter | TextCallFilter, pieces: list[str]
) -> tuple[str, str, list]:
    """(text shown while streaming, text released at the end, calls)."""
    shown = "".join(filter_.feed(piece) for piece in pieces)
    rest, calls = filter_.finish()
    return shown, rest, calls


# -- argument completion --------------------------------------------------------------------


def test_missing_required_string_array_and_boolean_are_completed() -> None:
    completed = complete_arguments({}, SCHEMA)
    assert completed == {"path": "", "lines": [], "force": False, "note": ""}


def test_missing_number_and_enum_stay_missing() -> None:
    completed = complete_arguments({}, SCHEMA)
    assert "limit" not in completed and "mode" not in completed


def test_present_and_optional_arguments_are_left_alone() -> None:
    completed = complete_arguments({"path": "a.txt"}, SCHEMA)
    assert completed["path"] == "a.txt" and "optional" not in completed


def test_completion_never_changes_the_callers_dict() -> None:
    arguments: dict = {}
    complete_arguments(arguments, SCHEMA)
    assert arguments == {}


def test_a_call_is_completed_only_from_an_offered_tool_of_its_name() -> None:
    tools = [ToolSpec("read_file", "Reads.", SCHEMA)]
    assert complete_call(ToolCallRequested("read_file", {}), tools).arguments["path"] == ""
    assert complete_call(ToolCallRequested("other", {}), tools).arguments == {}


# -- overflow -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        "the request exceeds the available context size, try increasing it",
        "the prompt is larger than the context window",
        "prompt is too long for the context window",
        "Provided 9,000 tokens, but the maximum allowed is 8,192",
        "context_length overflow",
    ],
)
def test_overflow_messages_are_recognised(message: str) -> None:
    assert is_overflow_message(message)


def test_overflow_error_type_is_recognised_whatever_the_message() -> None:
    assert is_overflow_message("nope", "exceed_context_size_error")


@pytest.mark.parametrize(
    "message", ["model not found", "context length must be set", "the reply is too long"]
)
def test_other_messages_are_not_overflow(message: str) -> None:
    assert not is_overflow_message(message)


# -- Mistral text calls ---------------------------------------------------------------------


def test_a_reply_made_of_mistral_calls_becomes_those_calls_in_order() -> None:
    text = '[TOOL_CALLS]read_file[ARGS]{"path": "a"} run_command[ARGS]{"command": "ls"}'
    assert parse_mistral_calls(text, NAMES) == [
        ToolCallRequested("read_file", {"path": "a"}),
        ToolCallRequested("run_command", {"command": "ls"}),
    ]


def test_mistral_calls_need_no_marker() -> None:
    assert parse_mistral_calls('  read_file[ARGS]{"path": "a"}\n', NAMES) == [
        ToolCallRequested("read_file", {"path": "a"})
    ]


@pytest.mark.parametrize(
    "text",
    [
        'write_file[ARGS]{"path": "a"}',  # not an offered tool
        'read_file[ARGS]{"path": "a"} and then some words',
        'Sure: read_file[ARGS]{"path": "a"}',
        'read_file[ARGS]{"path": ',
        "read_file[ARGS][1, 2]",
    ],
)
def test_anything_but_calls_stays_text(text: str) -> None:
    assert parse_mistral_calls(text, NAMES) is None


def test_filter_holds_a_call_split_across_fragments() -> None:
    pieces = ["[TOOL_", "CALLS]read", "_file[AR", 'GS]{"path": "a}b', '"}']
    shown, rest, calls = feed_all(MistralCallFilter(NAMES), pieces)
    assert (shown, rest) == ("", "")
    assert calls == [ToolCallRequested("read_file", {"path": "a}b"})]


def test_filter_releases_text_once_it_clearly_is_not_calls() -> None:
    filter_ = MistralCallFilter(NAMES)
    assert filter_.feed("rea") == ""
    assert filter_.feed("dy when you are") == "ready when you are"
    assert filter_.feed(".") == "."
    assert filter_.finish() == ("", [])


def test_filter_passes_everything_when_no_tools_are_offered() -> None:
    assert feed_all(MistralCallFilter([]), ['read_file[ARGS]{"a": 1}']) == (
        'read_file[ARGS]{"a": 1}',
        "",
        [],
    )


def test_filter_releases_an_unfinished_call_as_text_at_the_end() -> None:
    shown, rest, calls = feed_all(MistralCallFilter(NAMES), ['read_file[ARGS]{"path": '])
    assert (shown, rest, calls) == ("", 'read_file[ARGS]{"path": ', [])


# -- calls in the embedded model's text ---------------------------------------------------


def test_tool_call_block_becomes_a_call_and_the_text_before_it_streams() -> None:
    pieces = [
        "Let me look.",
        " <tool_",
        'call>{"name": "read_file", ',
        '"arguments": {"path": "a"}}</tool_call>',
    ]
    shown, rest, calls = feed_all(TextCallFilter(NAMES), pieces)
    assert shown == "Let me look. "
    assert rest == ""
    assert calls == [ToolCallRequested("read_file", {"path": "a"})]


def test_a_reply_that_is_one_json_object_naming_a_tool_is_a_call() -> None:
    pieces = ['{"name": "run_command",', ' "arguments": {"command": "ls"}}']
    assert feed_all(TextCallFilter(NAMES), pieces) == (
        "",
        "",
        [ToolCallRequested("run_command", {"command": "ls"})],
    )


def test_json_that_names_no_offered_tool_is_text() -> None:
    text = '{"name": "Paris", "arguments": {}}'
    assert feed_all(TextCallFilter(NAMES), [text]) == ("", text, [])


def test_a_malformed_tool_call_block_stays_text() -> None:
    text = "ok <tool_call>{not json}</tool_call>"
    shown, rest, calls = feed_all(TextCallFilter(NAMES), [text])
    assert (shown + rest, calls) == (text, [])


def test_ordinary_text_streams_at_once() -> None:
    filter_ = TextCallFilter(NAMES)
    assert filter_.feed("The capital") == "The capital"
    assert filter_.feed(" is Paris.") == " is Paris."


def test_mistral_calls_are_read_from_the_embedded_models_text_too() -> None:
    assert feed_all(TextCallFilter(NAMES), ['read_file[ARGS]{"path": "a"}']) == (
        "",
        "",
        [ToolCallRequested("read_file", {"path": "a"})],
    )


# -- thinking -----------------------------------------------------------------------------


def split(pieces: list[str], *, thinking: bool = False) -> list:
    splitter = ThinkSplitter(thinking=thinking)
    events = [event for piece in pieces for event in splitter.feed(piece)]
    return events + splitter.finish()


def joined(events: list) -> tuple[str, str]:
    thought = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    return thought, "".join(e.text for e in events if isinstance(e, TextDelta))


def test_leading_think_block_is_thinking() -> None:
    assert joined(split(["<thi", "nk>\nhm", "m</th", "ink>\n\nParis"])) == ("hmm", "Paris")


def test_text_without_think_tags_is_all_text() -> None:
    assert joined(split(["Paris", " <think>no</think>"])) == ("", "Paris <think>no</think>")


def test_a_template_that_opened_think_starts_in_thinking() -> None:
    assert joined(split(["so", "...</think>Paris"], thinking=True)) == ("so...", "Paris")


def test_an_unclosed_thought_stays_thinking() -> None:
    assert joined(split(["<think>still going"])) == ("still going", "")
