"""What every backend does to a call and an error: argument completion, overflow.

The reply's text (calls written in it, thinking) is tested in test_reply.py and test_text_calls.py.
"""

from __future__ import annotations

import pytest

from wisp.agent.types import ToolCallRequested, ToolSpec
from wisp.models.parsing import (
    complete_arguments,
    complete_call,
    is_overflow_message,
    overflow_counts,
    overflow_error,
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
        # Ollama's, with shift off
        "the prompt is longer than the context length currently available to the model",
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


@pytest.mark.parametrize(
    ("message", "counts"),
    [
        (  # llama-server, and Ollama with truncate off
            "request (8889 tokens) exceeds the available context size (4096 tokens), try "
            "increasing it",
            (8889, 4096),
        ),
        (
            "the request exceeds the available context size "
            "(5,000 prompt tokens, a window of 4,096)",
            (5000, 4096),
        ),
        ("Requested tokens (2631) exceed context window of 2048", (2631, 2048)),
        ("Provided 9,000 tokens, but the maximum allowed is 8,192", (9000, 8192)),
        (
            "This model's maximum context length is 2048 tokens. However, you requested 2632 "
            "tokens (2631 in the messages, 1 in the completion).",
            (2631, 2048),
        ),
        (
            "This model's maximum context length is 2048 tokens. "
            "However, you requested 2632 tokens",
            (2632, 2048),
        ),
        (  # LM Studio, mid-reply
            "Reached context length of 4096 tokens with model (arch: qwen3vlmoe) that does not "
            "currently support mid-generation context overflow",
            (None, 4096),
        ),
        (
            "local: the prompt takes 9,000 tokens of the 8,192-token window, leaving fewer than "
            "256 for the reply",
            (9000, 8192),
        ),
        ("prompt is too long for the context window", (None, None)),
    ],
)
def test_overflow_counts_are_read_from_each_runtimes_words(
    message: str, counts: tuple[int | None, int | None]
) -> None:
    assert overflow_counts(message) == counts
    assert is_overflow_message(message)
    error = overflow_error(message)
    assert (error.tokens, error.window, str(error)) == (*counts, message)
