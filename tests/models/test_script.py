"""The replay backend, script:PATH (docs/models.md, "The replay backend")."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.hang import HANG
from wisp.agent.types import (
    ChatRequest,
    ContextOverflow,
    Message,
    ModelError,
    ModelUnavailable,
    ResolvedModel,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallRequested,
    ToolSpec,
    Usage,
    UsageReport,
)
from wisp.models import script

REQUEST = ChatRequest([Message(role="user", content="hello")])


def write(tmp_path: Path, content: Any, name: str = "replies.json") -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


async def resolve(path: Path) -> ResolvedModel:
    return await script.resolve(str(path))


async def collect(model: ResolvedModel, request: ChatRequest = REQUEST) -> list[StreamEvent]:
    return [event async for event in model.backend.stream(request)]


async def test_thinking_then_text_in_four_character_chunks_then_calls_then_usage(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        {
            "responses": [
                {
                    "thinking": "hmm, ok",
                    "text": "Hello there",
                    "tool_calls": [{"name": "read_file", "arguments": {"path": "a"}}],
                    "usage": {"input": 10, "output": 5},
                }
            ]
        },
    )
    events = await collect(await resolve(path))
    assert events == [
        ThinkingDelta("hmm,"),
        ThinkingDelta(" ok"),
        TextDelta("Hell"),
        TextDelta("o th"),
        TextDelta("ere"),
        ToolCallRequested("read_file", {"path": "a"}),
        UsageReport(Usage(input=10, output=5, cached=0, reasoning=0)),
    ]


async def test_every_field_is_optional(tmp_path: Path) -> None:
    model = await resolve(write(tmp_path, {"responses": [{}]}))
    assert await collect(model) == []


async def test_one_response_per_request_in_order(tmp_path: Path) -> None:
    model = await resolve(write(tmp_path, {"responses": [{"text": "one"}, {"text": "two"}]}))
    assert await collect(model) == [TextDelta("one")]
    assert await collect(model) == [TextDelta("two")]


async def test_running_out_of_responses_names_the_request_and_the_count(tmp_path: Path) -> None:
    path = write(tmp_path, {"responses": [{"text": "one"}]})
    model = await resolve(path)
    await collect(model)
    with pytest.raises(ModelError) as caught:
        await collect(model)
    assert str(caught.value) == f"script {path}: no response left for request 2 (it holds 1)"


async def test_delay_ms_pauses_between_chunks(tmp_path: Path) -> None:
    model = await resolve(
        write(tmp_path, {"responses": [{"text": "abcdefghijkl", "delay_ms": 30}]})
    )
    started = time.monotonic()
    await collect(model)
    assert time.monotonic() - started >= 0.06  # three chunks, two pauses


async def test_wait_for_file_holds_the_rest_until_the_file_exists(tmp_path: Path) -> None:
    go_on = tmp_path / "go-on"
    model = await resolve(
        write(tmp_path, {"responses": [{"text": "abcdefgh", "wait_for_file": str(go_on)}]})
    )
    stream = model.backend.stream(REQUEST)
    assert await anext(stream) == TextDelta("abcd")
    rest = asyncio.ensure_future(anext(stream))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not rest.done()  # however long this took, the file is not there yet
    go_on.touch()
    assert await asyncio.wait_for(rest, HANG) == TextDelta("efgh")


async def test_an_error_response_fails_the_request_with_its_message(tmp_path: Path) -> None:
    model = await resolve(write(tmp_path, {"responses": [{"error": "the server fell over"}]}))
    with pytest.raises(ModelError, match=r"^the server fell over$") as caught:
        await collect(model)
    assert not isinstance(caught.value, ContextOverflow)


@pytest.mark.parametrize(
    "message",
    [
        "Provided 9,000 tokens, but the maximum allowed is 8,192",
        "the request exceeds the available context size",
    ],
)
async def test_an_overflow_shaped_error_is_an_overflow(tmp_path: Path, message: str) -> None:
    model = await resolve(write(tmp_path, {"responses": [{"error": message}]}))
    with pytest.raises(ContextOverflow, match=message):
        await collect(model)


async def test_missing_required_arguments_are_completed_from_the_offered_tool(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, {"responses": [{"tool_calls": [{"name": "run_command"}]}]})
    tool = ToolSpec(
        "run_command",
        "Runs.",
        {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    )
    events = await collect(await resolve(path), ChatRequest(REQUEST.messages, tools=[tool]))
    assert events == [ToolCallRequested("run_command", {"command": ""})]


async def test_resolved_model_describes_the_file(tmp_path: Path) -> None:
    real = write(tmp_path, {"contextSize": 4096, "responses": []})
    os.symlink(real, tmp_path / "link.json")
    model = await resolve(tmp_path / "link.json")
    assert model.selection == f"script:{real}"
    assert model.asset == str(real)
    assert model.backend_name == "script"
    assert model.capabilities == ["toolCalling", "guidedGeneration", "reasoning"]
    assert model.capability_source == "runtime"
    assert model.context_size == 4096


async def test_without_context_size_the_window_is_unknown(tmp_path: Path) -> None:
    model = await resolve(write(tmp_path, {"responses": []}))
    assert model.context_size is None


async def test_malformed_json_names_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, '{"responses": [\n  {"text": "a"},\n  {"text" "b"}\n]}')
    with pytest.raises(ModelUnavailable, match=rf"^{path}:3:11: not valid JSON"):
        await resolve(path)


async def test_a_value_of_the_wrong_type_names_its_line_and_column(tmp_path: Path) -> None:
    path = write(
        tmp_path, '{"responses": [\n  {"text": "a"},\n  {"text": "b", "delay_ms": "soon"}\n]}'
    )
    with pytest.raises(ModelUnavailable) as caught:
        await resolve(path)
    assert str(caught.value) == (f"{path}:3:29: expected int, got str at $.responses[1].delay_ms")


async def test_a_missing_file_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="cannot read it"):
        await resolve(tmp_path / "nope.json")


async def test_an_interrupt_stops_it_between_chunks(tmp_path: Path) -> None:
    model = await resolve(write(tmp_path, {"responses": [{"text": "x" * 400, "delay_ms": 20}]}))
    seen: list[StreamEvent] = []
    first = asyncio.Event()

    async def consume() -> None:
        async for event in model.backend.stream(REQUEST):
            seen.append(event)
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), HANG)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert 1 <= len(seen) < 100  # of the reply's 100 chunks
