"""``ollama:`` against a loopback server speaking Ollama's wire format (docs/models.md,
"Backends")."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.hang import HANG
from wisp.agent.types import (
    ChatRequest,
    ContextOverflow,
    HeldText,
    Message,
    ModelError,
    ModelUnavailable,
    ResolvedModel,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolCallRequested,
    ToolSpec,
    Usage,
    UsageReport,
)
from wisp.config import Config
from wisp.models.ollama import resolve as resolve_ollama
from wisp.models.ollama_window import (
    Memory,
    Shape,
    memory_from_meminfo,
    memory_from_nvidia_smi,
    probe_memory,
    shape_from,
    size_window,
)

GIB = 1 << 30

QWEN_INFO: dict[str, Any] = {
    "general.architecture": "qwen3",
    "qwen3.context_length": 131072,
    "qwen3.block_count": 32,
    "qwen3.attention.head_count": 32,
    "qwen3.attention.head_count_kv": 8,
    "qwen3.embedding_length": 4096,
    "qwen3.attention.key_length": 128,
    "qwen3.attention.value_length": 128,
}
"""128 KiB of cache per token: 32 layers × 8 heads × (128 + 128) × 2 bytes."""

TINY_INFO: dict[str, Any] = {
    "general.architecture": "llama",
    "llama.context_length": 16384,
    "llama.block_count": 2,
    "llama.attention.head_count": 2,
    "llama.attention.head_count_kv": 1,
    "llama.embedding_length": 128,
}

WEATHER = ToolSpec(
    "weather",
    "Today's weather in a city.",
    {
        "type": "object",
        "properties": {"city": {"type": "string"}, "units": {"type": "string"}},
        "required": ["city", "units"],
    },
)

Resolve = Callable[..., Any]
FakeOllama = Any  # conftest's FakeOllama, reached through the ``ollama`` fixture


@pytest.fixture
def resolve(
    ollama: FakeOllama, make_config: Callable[[dict[str, Any]], Config], http_client
) -> Resolve:
    """Resolve ``name`` against the fake, with ``settings`` under ``ollama`` in config.json."""

    async def run(name: str, memory: Memory | None = None, **settings: Any) -> ResolvedModel:
        config = make_config({"ollama": {"baseURL": ollama.base_url, **settings}})
        return await resolve_ollama(name, config.settings.ollama, {}, http_client, memory=memory)

    return run


async def collect(resolved: ResolvedModel, request: ChatRequest) -> list[StreamEvent]:
    # How much is held is the runaway guard's business, not what the person sees.
    events = resolved.backend.stream(request)
    return [event async for event in events if not isinstance(event, HeldText)]


def ask(text: str = "Hello", **fields: Any) -> ChatRequest:
    return ChatRequest([Message(role="user", content=text)], **fields)


# -- resolution --------------------------------------------------------------------------------


async def test_resolve_maps_reported_capabilities(ollama: FakeOllama, resolve: Resolve) -> None:
    ollama.install("qwen3:8b", capabilities=["completion", "tools", "thinking"])
    resolved = await resolve("qwen3:8b")
    assert resolved.selection == "ollama:qwen3:8b"
    assert resolved.capabilities == ["guidedGeneration", "toolCalling", "reasoning"]
    assert resolved.capability_source == "runtime"
    assert resolved.asset == f"{ollama.base_url} qwen3:8b"


async def test_an_untagged_name_finds_latest(ollama: FakeOllama, resolve: Resolve) -> None:
    ollama.install("qwen3:latest")
    assert (await resolve("qwen3")).selection == "ollama:qwen3:latest"


async def test_an_unknown_model_names_what_is_installed(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest")
    ollama.install("gemma3:4b")
    with pytest.raises(ModelUnavailable) as caught:
        await resolve("llama3")
    assert str(caught.value) == "Ollama has no model 'llama3'; installed: qwen3:latest, gemma3:4b"


async def test_an_embedding_model_is_refused(ollama: FakeOllama, resolve: Resolve) -> None:
    ollama.install("nomic-embed-text:latest", capabilities=["embedding"])
    with pytest.raises(ModelUnavailable) as caught:
        await resolve("nomic-embed-text")
    assert str(caught.value) == (
        "Ollama reports it cannot hold a conversation (capabilities: embedding)"
    )


async def test_no_server_is_named_with_its_address(
    refused_url: str, make_config: Callable[[dict[str, Any]], Config], http_client
) -> None:
    config = make_config({"ollama": {"baseURL": refused_url}})
    with pytest.raises(ModelUnavailable) as caught:
        await resolve_ollama("qwen3", config.settings.ollama, {}, http_client)
    message = str(caught.value)
    assert message.startswith(f"no Ollama server at {refused_url}: ")
    assert "connection refused" in message.lower()
    assert message.endswith("start it with ollama serve, or set ollama.baseURL")


# -- the window --------------------------------------------------------------------------------


async def test_num_ctx_comes_from_the_models_own_setting(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest", model_info=QWEN_INFO)
    ollama.reply_with(ollama.done())
    resolved = await resolve(
        "qwen3", contextLength=16384, models={"qwen3": {"contextLength": 20480}}
    )
    assert resolved.context_size == 20480
    assert resolved.context_note == "set for this model (ollama.models.qwen3.contextLength)"
    await collect(resolved, ask())
    assert ollama.chat_bodies()[0]["options"] == {"num_ctx": 20480}


async def test_a_window_set_for_a_dotted_name_is_noted_with_the_name_quoted(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen2.5-coder:1.5b", model_info=QWEN_INFO)
    models = {"qwen2.5-coder:1.5b": {"contextLength": 20480}}
    resolved = await resolve("qwen2.5-coder:1.5b", models=models)
    assert resolved.context_note == (
        'set for this model (ollama.models."qwen2.5-coder:1.5b".contextLength)'
    )


async def test_num_ctx_comes_from_ollama_context_length(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest", model_info=QWEN_INFO)
    resolved = await resolve("qwen3", contextLength=16384)
    assert (resolved.context_size, resolved.context_note) == (
        16384,
        "configured (ollama.contextLength)",
    )


async def test_num_ctx_is_sized_to_fit_memory(ollama: FakeOllama, resolve: Resolve) -> None:
    # Budget min(½ × 16, ¾ × 32) = 8 GiB; less 4 GiB of weights and 512 MiB leaves 3.5 GiB,
    # which holds 28,672 tokens at 128 KiB each.
    ollama.install("qwen3:latest", size=4 * GIB, model_info=QWEN_INFO)
    resolved = await resolve("qwen3", memory=Memory(16 * GIB, 32 * GIB))
    assert resolved.context_size == 28672
    assert resolved.context_note == "28,672 of 131,072: 8.0 GiB of a 8.0 GiB budget"
    await collect(resolved, ask())
    assert ollama.chat_bodies()[0]["options"]["num_ctx"] == 28672


async def test_a_model_too_big_for_memory_gets_the_floor(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest", size=4 * GIB, model_info=QWEN_INFO)
    resolved = await resolve("qwen3", memory=Memory(8 * GIB, 16 * GIB))
    assert resolved.context_size == 8192
    assert resolved.context_note.startswith("8,192 of 131,072, the floor: ")


async def test_a_small_model_gets_its_whole_window_from_this_machine(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("tiny:latest", size=10_000_000, model_info=TINY_INFO)
    resolved = await resolve("tiny")  # this machine's /proc/meminfo
    assert resolved.context_size == 16384


async def test_no_shape_means_the_default_window(ollama: FakeOllama, resolve: Resolve) -> None:
    ollama.install("qwen3:latest", model_info={})
    resolved = await resolve("qwen3")
    assert resolved.context_size == 8192
    assert resolved.context_note == "the default: Ollama reported no model shape to size from"


@pytest.mark.parametrize(
    "settings",
    [{"contextLength": 32768}, {"models": {"tiny": {"contextLength": 32768}}}],
)
async def test_a_configured_window_is_capped_at_the_models_trained_maximum(
    ollama: FakeOllama, resolve: Resolve, settings: dict[str, Any]
) -> None:
    ollama.install("tiny:latest", model_info=TINY_INFO)
    resolved = await resolve("tiny", **settings)
    assert resolved.context_size == 16384
    assert resolved.context_note.endswith(", capped at the 16,384 the model was trained for")
    await collect(resolved, ask())
    assert ollama.chat_bodies()[0]["options"]["num_ctx"] == 16384


def test_sliding_layers_cost_a_fixed_amount() -> None:
    info = {
        "general.architecture": "gemma3",
        "gemma3.context_length": 131072,
        "gemma3.block_count": 6,
        "gemma3.attention.head_count": 8,
        "gemma3.attention.head_count_kv": 4,
        "gemma3.embedding_length": 2560,
        "gemma3.attention.key_length": 256,
        "gemma3.attention.value_length": 256,
        "gemma3.attention.sliding_window": 1024,
        "gemma3.attention.sliding_window_pattern": [True, True, True, True, True, False],
    }
    shape = shape_from(info)
    assert shape is not None
    layer = 4 * (256 + 256) * 2
    assert shape.per_token == layer  # one global layer
    assert shape.sliding == [(layer, 1024)] * 5


def test_only_attention_layers_of_a_hybrid_model_keep_a_cache() -> None:
    info = {
        "general.architecture": "qwen3next",
        "qwen3next.context_length": 262144,
        "qwen3next.block_count": 8,
        "qwen3next.attention.head_count": 16,
        "qwen3next.attention.head_count_kv": 2,
        "qwen3next.embedding_length": 2048,
        "qwen3next.attention.key_length": 256,
        "qwen3next.attention.value_length": 256,
        "qwen3next.full_attention_interval": 4,
        "qwen3next.ssm.conv_kernel": 4,
        "qwen3next.ssm.inner_size": 4096,
        "qwen3next.ssm.group_count": 16,
        "qwen3next.ssm.state_size": 128,
    }
    shape = shape_from(info)
    assert shape is not None
    assert shape.per_token == 2 * 2 * (256 + 256) * 2  # layers 4 and 8
    per_recurrent_layer = (3 * (4096 + 2 * 16 * 128) + 128 * 4096) * 4
    assert shape.fixed == 6 * per_recurrent_layer


def test_the_window_is_capped_at_the_models_maximum() -> None:
    shape = Shape(maximum=40960, per_token=1024)
    assert size_window(shape, weights=GIB, budget=100 * GIB)[0] == 40960


def test_memory_is_read_from_proc_meminfo() -> None:
    text = "MemTotal:       16000000 kB\nMemFree:  1 kB\nMemAvailable:    8000000 kB\n"
    assert memory_from_meminfo(text) == Memory(8000000 * 1024, 16000000 * 1024)


def test_gpu_memory_is_read_from_nvidia_smi() -> None:
    memory = memory_from_nvidia_smi("20000, 24576\n1000, 8192\n")
    assert memory == Memory((20000 + 1000) << 20, (24576 + 8192) << 20, is_gpu=True)


# -- a chat ------------------------------------------------------------------------------------


async def test_text_streams_with_usage(ollama: FakeOllama, resolve: Resolve) -> None:
    ollama.install("qwen3:latest")
    ollama.reply_with(ollama.line("Hel"), ollama.line("lo!"), ollama.done(26, 5))
    events = await collect(await resolve("qwen3", contextLength=4096), ask())
    assert events == [TextDelta("Hel"), TextDelta("lo!"), UsageReport(Usage(26, 5, 0, 0))]
    body = ollama.chat_bodies()[0]
    assert body == {
        "model": "qwen3:latest",
        "messages": [{"role": "user", "content": "Hello"}],
        "options": {"num_ctx": 4096},
        "stream": True,
        "truncate": False,  # refuse, rather than drop the front of, a prompt past num_ctx
    }


async def test_sampling_options_are_sent_when_asked(ollama: FakeOllama, resolve: Resolve) -> None:
    ollama.install("qwen3:latest")
    await collect(await resolve("qwen3", contextLength=4096), ask(temperature=0, max_tokens=9))
    assert ollama.chat_bodies()[0]["options"] == {
        "num_ctx": 4096,
        "temperature": 0,
        "num_predict": 9,
    }


async def test_a_schema_goes_as_format(ollama: FakeOllama, resolve: Resolve) -> None:
    ollama.install("qwen3:latest")
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    await collect(await resolve("qwen3", contextLength=4096), ask(schema=schema))
    await collect(await resolve("qwen3", contextLength=4096), ask())
    held, free = ollama.chat_bodies()
    assert held["format"] == schema
    assert "format" not in free


async def test_thinking_chunks_are_thinking_and_count_as_reasoning(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest", capabilities=["completion", "thinking"])
    ollama.reply_with(
        ollama.line(thinking="Let me"),
        ollama.line(thinking=" think."),
        ollama.line("Yes."),
        ollama.done(10, 1),
    )
    events = await collect(await resolve("qwen3"), ask())
    assert events == [
        ThinkingDelta("Let me"),
        ThinkingDelta(" think."),
        TextDelta("Yes."),
        UsageReport(Usage(input=10, output=2, cached=0, reasoning=2)),
    ]


async def test_think_tags_in_the_content_are_thinking(ollama: FakeOllama, resolve: Resolve) -> None:
    ollama.install("qwen3:latest", capabilities=["completion"])
    ollama.reply_with(ollama.line("<think>Let me"), ollama.line("</think>Yes."), ollama.done(10, 1))
    events = await collect(await resolve("qwen3"), ask())
    assert events[:2] == [ThinkingDelta("Let me"), TextDelta("Yes.")]


async def test_a_call_written_in_the_content_is_a_call(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest")
    ollama.reply_with(
        ollama.line('<tool_call>\n{"name": "weather", '),
        ollama.line('"arguments": {"city": "Oslo"}}\n</tool_call>'),
        ollama.done(30, 12),
    )
    events = await collect(await resolve("qwen3"), ask(tools=[WEATHER]))
    assert [e for e in events if not isinstance(e, UsageReport)] == [
        ToolCallRequested("weather", {"city": "Oslo", "units": ""})
    ]


async def test_think_is_sent_only_to_a_model_that_can_think(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest", capabilities=["completion", "thinking"])
    ollama.install("gemma3:latest", capabilities=["completion"])
    await collect(await resolve("qwen3", think="high"), ask())
    await collect(await resolve("qwen3", think="high"), ask(think=False))
    await collect(await resolve("gemma3", think="high"), ask(think=True))
    await collect(await resolve("qwen3"), ask())
    sent = [body.get("think", "absent") for body in ollama.chat_bodies()]
    assert sent == ["high", False, "absent", "absent"]


async def test_tool_calls_come_back_whole_after_done(ollama: FakeOllama, resolve: Resolve) -> None:
    ollama.install("qwen3:latest")
    ollama.reply_with(
        ollama.line(tool_calls=[{"name": "weather", "arguments": {"city": "Oslo"}}]),
        ollama.done(30, 12),
    )
    events = await collect(await resolve("qwen3"), ask(tools=[WEATHER]))
    # The missing required string is completed from the schema (docs/models.md, "Backends").
    assert events == [
        ToolCallRequested("weather", {"city": "Oslo", "units": ""}),
        UsageReport(Usage(30, 12, 0, 0)),
    ]


async def test_tools_and_a_calls_history_go_out_in_ollamas_shape(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest")
    history = [
        Message(role="system", content="Be brief."),
        Message(role="user", content="Weather in Oslo?"),
        Message(
            role="assistant",
            tool_calls=[ToolCall("0a1b2c3d", "weather", {"city": "Oslo", "units": "C"})],
        ),
        Message(role="tool", content="4 C", tool_call_id="0a1b2c3d", tool_name="weather"),
    ]
    await collect(await resolve("qwen3"), ChatRequest(history, tools=[WEATHER]))
    body = ollama.chat_bodies()[0]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "weather",
                "description": "Today's weather in a city.",
                "parameters": WEATHER.parameters,
            },
        }
    ]
    assert body["messages"][2:] == [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"function": {"name": "weather", "arguments": {"city": "Oslo", "units": "C"}}}
            ],
        },
        {"role": "tool", "content": "4 C", "tool_name": "weather"},
    ]


async def test_a_stream_without_done_is_an_interruption(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest")
    ollama.reply_with(
        ollama.line("Half a rep"),
        ollama.line(tool_calls=[{"name": "weather", "arguments": {"city": "Oslo"}}]),
    )
    resolved = await resolve("qwen3")
    seen: list[StreamEvent] = []
    with pytest.raises(ModelError) as caught:
        async for event in resolved.backend.stream(ask(tools=[WEATHER])):
            seen.append(event)
    assert str(caught.value) == (
        "Ollama stopped before the reply was done (the stream ended without done: true); "
        "nothing of it was kept"
    )
    assert not any(isinstance(event, ToolCallRequested) for event in seen)


async def test_a_dropped_connection_is_an_interruption(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest")
    ollama.reply_with(ollama.line("Hi"), then="drop")
    with pytest.raises(ModelError) as caught:
        await collect(await resolve("qwen3"), ask())
    message = str(caught.value)
    assert message.startswith("Ollama stopped before the reply was done (")
    assert message.endswith("); nothing of it was kept")


async def test_an_error_line_aborts(ollama: FakeOllama, resolve: Resolve) -> None:
    ollama.install("qwen3:latest")
    ollama.reply_with(ollama.line("Hi"), '{"error": "an error was encountered while running"}')
    with pytest.raises(ModelError) as caught:
        await collect(await resolve("qwen3"), ask())
    assert str(caught.value) == (
        "Ollama stopped before the reply was done (an error was encountered while running); "
        "nothing of it was kept"
    )


async def test_an_http_error_gives_status_and_message(ollama: FakeOllama, resolve: Resolve) -> None:
    ollama.install("qwen3:latest")
    resolved = await resolve("qwen3")
    ollama.reply_with('{"error": "model \\"qwen3\\" not found, try pulling it first"}', status=404)
    with pytest.raises(ModelError) as caught:
        await collect(resolved, ask())
    assert str(caught.value) == (
        'Ollama returned HTTP 404: model "qwen3" not found, try pulling it first'
    )


async def test_a_server_gone_quiet_is_abandoned_after_the_idle_limit(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest")
    ollama.reply_with(ollama.line("Hi"), then="hang")
    resolved = await resolve("qwen3", timeoutSeconds=1)
    with pytest.raises(ModelError) as caught:
        await collect(resolved, ask())
    assert str(caught.value) == (
        "Ollama sent nothing for 1 s (ollama.timeoutSeconds); the request was abandoned"
    )


async def test_cancelling_the_consumer_closes_the_request(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest")
    ollama.reply_with(ollama.line("Hi"), then="hang")
    resolved = await resolve("qwen3")
    first = asyncio.Event()

    async def consume() -> None:
        async for _ in resolved.backend.stream(ask()):
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), HANG)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(ollama.server.hung_up.wait(), HANG)


async def test_a_request_to_a_server_gone_away_says_no_server(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest")
    resolved = await resolve("qwen3")
    await ollama.server.stop()
    with pytest.raises(ModelUnavailable, match=f"^no Ollama server at {ollama.base_url}: "):
        await collect(resolved, ask())


async def test_nvidia_smi_planted_first_on_path_is_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An activated .venv/bin in the working directory: a confined command could write there.
    planted = tmp_path / ".venv" / "bin"
    planted.mkdir(parents=True)
    marker = tmp_path / "planted-ran"
    program = planted / "nvidia-smi"
    program.write_text(f"#!/bin/sh\ntouch {marker}\necho '1, 2'\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{planted}:{os.environ.get('PATH', os.defpath)}")
    await probe_memory()
    assert not marker.exists()


# -- the window's end --------------------------------------------------------------------------

RUNNER_OVERFLOW = {
    "error": {
        "code": 400,
        "message": "request (8889 tokens) exceeds the available context size (4096 tokens), "
        "try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 8889,
        "n_ctx": 4096,
    }
}
"""What Ollama's runner says of a prompt past num_ctx when ``truncate`` is false; Ollama passes
it on as a string inside its own error object."""


async def test_ollamas_refusal_of_a_prompt_past_num_ctx_is_an_overflow_with_its_counts(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest")
    resolved = await resolve("qwen3", contextLength=4096)
    ollama.reply_with(json.dumps({"error": json.dumps(RUNNER_OVERFLOW)}), status=400)
    with pytest.raises(ContextOverflow) as caught:
        await collect(resolved, ask())
    assert (caught.value.tokens, caught.value.window) == (8889, 4096)
    assert str(caught.value) == (
        "the conversation no longer fits Ollama's window: request (8889 tokens) exceeds the "
        "available context size (4096 tokens), try increasing it"
    )
    assert ollama.chat_bodies()[0]["truncate"] is False


async def test_an_overflow_in_an_error_line_is_an_overflow(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest")
    resolved = await resolve("qwen3", contextLength=4096)
    ollama.reply_with(json.dumps({"error": json.dumps(RUNNER_OVERFLOW)}))
    with pytest.raises(ContextOverflow) as caught:
        await collect(resolved, ask())
    assert (caught.value.tokens, caught.value.window) == (8889, 4096)


async def test_a_request_that_plainly_outgrows_num_ctx_is_not_sent(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    # An Ollama older than truncate would drop its front without a word: wisp does not send it.
    ollama.install("qwen3:latest")
    resolved = await resolve("qwen3", contextLength=1024)
    big = "é" * 2100  # 4,200 bytes of content
    history = [
        Message(role="user", content=big),
        Message(role="assistant", tool_calls=[ToolCall("0a1b2c3d", "weather", {"city": "x"})]),
    ]
    with pytest.raises(ContextOverflow) as caught:
        await collect(resolved, ChatRequest(history, tools=[WEATHER]))
    assert caught.value.window == 1024
    assert caught.value.tokens is not None and caught.value.tokens > 1050
    assert "not sent, as Ollama would drop its front" in str(caught.value)
    assert ollama.chat_bodies() == []


async def test_a_request_that_may_fit_is_sent(ollama: FakeOllama, resolve: Resolve) -> None:
    ollama.install("qwen3:latest")
    ollama.reply_with(ollama.line("Hi"), ollama.done(900, 1))
    resolved = await resolve("qwen3", contextLength=1024)
    events = await collect(resolved, ask("word " * 800))  # 4,000 bytes: about 1,000 tokens
    assert TextDelta("Hi") in events


async def test_a_reply_of_calls_that_filled_num_ctx_is_an_overflow(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    # Prompt and reply reached num_ctx: Ollama dropped the front of the context to go on, so
    # calls made after it are not run.
    ollama.install("qwen3:latest")
    ollama.reply_with(
        ollama.line(tool_calls=[{"name": "weather", "arguments": {"city": "Oslo"}}]),
        ollama.done(3900, 300),
    )
    resolved = await resolve("qwen3", contextLength=4096)
    with pytest.raises(ContextOverflow) as caught:
        await collect(resolved, ask(tools=[WEATHER]))
    assert (caught.value.tokens, caught.value.window) == (4200, 4096)
    assert "Ollama dropped the front to go on" in str(caught.value)


async def test_a_shown_reply_that_filled_num_ctx_is_kept(
    ollama: FakeOllama, resolve: Resolve
) -> None:
    ollama.install("qwen3:latest")
    ollama.reply_with(ollama.line("Hi"), ollama.done(3900, 300))
    events = await collect(await resolve("qwen3", contextLength=4096), ask())
    assert events == [TextDelta("Hi"), UsageReport(Usage(3900, 300, 0, 0))]
