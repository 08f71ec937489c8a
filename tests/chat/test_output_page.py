"""The ``output`` object an ``event`` line carries: its first page and the whole text's
measures."""

from __future__ import annotations

from typing import Any

import pytest

from tests.recorded import typed
from wisp import protocol as p
from wisp.chat.output_page import event_output


def event_output_of(
    kind: str, details: dict[str, Any], event_id: str | None, **options: Any
) -> p.EventOutput | None:
    return event_output(typed(kind, **details), event_id, **options)


# -- event.output ----------------------------------------------------------------------------


def test_tool_result_carries_its_output():
    details = {"tool": "read_file", "output": "1\t# wisp\n2\tline\n", "bytes": 16, "seconds": 0.01}
    assert event_output_of("tool.result", details, "8a7b6c5d4e3f2a1b") == p.EventOutput(
        id="8a7b6c5d4e3f2a1b",
        text="1\t# wisp\n2\tline\n",
        lines=2,
        bytes=16,
        truncated=False,
        shown_lines=20,
    )


def test_an_empty_tool_result_still_carries_an_output():
    details = {"tool": "run_command", "output": "", "bytes": 0, "seconds": 0.1}
    assert event_output_of("tool.result", details, None) == p.EventOutput(
        id=None, text="", lines=0, bytes=0, truncated=False, shown_lines=20
    )


def test_output_counts_a_last_line_without_a_newline():
    page = event_output_of("tool.result", {"tool": "x", "output": "a\nb"}, None)
    assert page is not None
    assert page.lines == 2


def test_output_counts_utf8_bytes():
    page = event_output_of("tool.result", {"tool": "x", "output": "café ×"}, None)
    assert page is not None
    assert page.bytes == 8


def test_output_passes_on_the_shown_lines():
    page = event_output_of("tool.result", {"tool": "x", "output": "a"}, None, shown_lines=0)
    assert page is not None
    assert page.shown_lines == 0


def test_reasoning_end_carries_the_thinking():
    details = {"phase": "end", "text": "The user asks…\nSo.\nThen.", "tokens": 42, "seconds": 4.2}
    page = event_output_of("model.reasoning", details, "0b1c2d3e4f506172")
    assert page == p.EventOutput(
        id="0b1c2d3e4f506172",
        text="The user asks…\nSo.\nThen.",
        lines=3,
        bytes=len("The user asks…\nSo.\nThen.".encode()),
        truncated=False,
        shown_lines=20,
    )


def test_reasoning_start_carries_no_output():
    assert event_output_of("model.reasoning", {"phase": "start"}, "0b1c2d3e4f506172") is None


def test_command_typed_that_printed_something_carries_it():
    details = {"command": "ls", "output": "a\nb\n"}
    page = event_output_of("command.typed", details, "ab12cd34ef56ab78")
    assert page is not None
    assert (page.text, page.lines) == ("a\nb\n", 2)


def test_command_typed_that_printed_nothing_carries_no_output():
    assert event_output_of("command.typed", {"command": "true", "output": ""}, "ab12cd34") is None


@pytest.mark.parametrize("kind", ["command.outcome", "tool.call", "response"])
def test_other_events_carry_no_output(kind):
    assert event_output_of(kind, {"output": "x", "text": "y"}, "ab12cd34") is None


def test_a_large_output_carries_its_first_16_kib():
    output = "z" * 20_000
    page = event_output_of("tool.result", {"tool": "x", "output": output}, None)
    assert page is not None
    assert (page.text, page.bytes, page.truncated, page.lines) == ("z" * 16384, 20_000, True, 1)


def test_the_first_page_ends_on_a_character():
    output = "a" + "é" * 10_000  # 1 + 20 000 bytes: byte 16 384 falls inside an é
    page = event_output_of("tool.result", {"tool": "x", "output": output}, None)
    assert page is not None
    assert page.text == "a" + "é" * 8191
    assert len(page.text.encode()) == 16383
    assert page.truncated
