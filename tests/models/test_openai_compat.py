"""``llamacpp:``, ``lmstudio:`` and ``openai:`` (docs/models.md, "Backends").

The first tests talk to a real OpenAI-compatible server: llama-cpp-python's, running the
SmolLM2 GGUF on 127.0.0.1. The rest feed recorded wire shapes through ``httpx.MockTransport``
to pin the parsing: SSE events, tool-call fragments, usage, refusals, listings.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec
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
from wisp.errors import ConfigValueError
from wisp.models.http import ApiKey, Server, api_key, declared_capabilities
from wisp.models.openai_compat import (
    LLAMACPP,
    LMSTUDIO,
    OPENAI,
    Dialect,
    OpenAICompatBackend,
    resolve_llamacpp,
    resolve_lmstudio,
    resolve_openai,
)
from wisp.models.openai_listing import Served, settle_window

LlamaServer = Any  # conftest's LlamaServer, reached through the ``llama_server`` fixture
MakeConfig = Callable[[dict[str, Any]], Config]

SMOLLM2 = "SmolLM2-135M-Instruct.Q4_1"

WEATHER = ToolSpec(
    "weather",
    "Today's weather in a city.",
    {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "array"}},
        "required": ["city", "days"],
    },
)


def ask(text: str = "Hello", **fields: Any) -> ChatRequest:
    return ChatRequest([Message(role="user", content=text)], **fields)


async def collect(backend: Any, request: ChatRequest) -> list[StreamEvent]:
    # How much is held is the runaway guard's business, not what the person sees.
    return [event async for event in backend.stream(request) if not isinstance(event, HeldText)]


def text_of(events: list[StreamEvent]) -> str:
    return "".join(event.text for event in events if isinstance(event, TextDelta))


# -- against llama-cpp-python's server ---------------------------------------------------------


@pytest.fixture
def llamacpp(llama_server: LlamaServer, make_config: MakeConfig, http_client: httpx.AsyncClient):
    """Resolve ``name`` on the real server, with the key in the environment unless told."""

    async def run(name: str, environ: dict[str, str] | None = None) -> ResolvedModel:
        config = make_config({"llamacpp": {"baseURL": llama_server.base_url}})
        if environ is None:
            environ = {"WISP_LLAMACPP_API_KEY": llama_server.key}
        return await resolve_llamacpp(name, config.settings.llamacpp, environ, http_client)

    return run


async def test_llamacpp_resolves_a_served_model_by_its_file_name(
    llamacpp: Callable[..., Any], llama_server: LlamaServer
) -> None:
    resolved = await llamacpp(SMOLLM2)
    assert resolved.selection == f"llamacpp:{SMOLLM2}"
    assert resolved.backend_name == "llamacpp"
    assert resolved.asset == f"{llama_server.base_url} {llama_server.model_id}"
    # llama-cpp-python's server has no /props: the window is unknown (not a guess), saying
    # why and what to set.
    assert resolved.context_size is None
    assert resolved.context_note == (
        "unknown: llama.cpp has no /props (HTTP 404); set llamacpp.contextLength (or "
        f'llamacpp.models."{SMOLLM2}".contextLength) to the server\'s window'
    )
    assert (resolved.capabilities, resolved.capability_source) == (
        ["guidedGeneration"],
        "undeclared",
    )


ANSWER = {
    "type": "object",
    "properties": {"answer": {"type": "string", "maxLength": 16}},  # it ends within max_tokens
    "required": ["answer"],
}


async def test_a_reply_held_to_a_schema_by_llama_cpp_pythons_server_fits_it(
    llamacpp: Callable[..., Any],
) -> None:
    from jsonschema import validate

    resolved = await llamacpp(SMOLLM2)
    request = ask("What colour is the sky? One word.", temperature=0, max_tokens=32, schema=ANSWER)
    text = text_of(await collect(resolved.backend, request))
    validate(json.loads(text), ANSWER)


async def test_each_dialect_carries_a_schema_as_its_runtime_takes_it() -> None:
    def body(dialect: Dialect, request: ChatRequest) -> dict[str, Any]:
        made = backend_for(lambda _: httpx.Response(500), dialect)
        return msgspec.to_builtins(made.body_for(request))

    def held(dialect: Dialect) -> Any:
        return body(dialect, ask(schema=ANSWER))["response_format"]

    # llama-cpp-python's server refuses json_schema; llama.cpp's takes both.
    assert held(LLAMACPP) == {"type": "json_object", "schema": ANSWER}
    as_openai = {"type": "json_schema", "json_schema": {"name": "reply", "schema": ANSWER}}
    assert held(LMSTUDIO) == held(OPENAI) == as_openai
    assert "response_format" not in body(LLAMACPP, ask())


async def test_llamacpp_resolves_the_full_path_id_too(
    llamacpp: Callable[..., Any], llama_server: LlamaServer
) -> None:
    resolved = await llamacpp(llama_server.model_id)
    assert resolved.selection == f"llamacpp:{SMOLLM2}"


async def test_a_model_the_server_lacks_is_named_with_what_it_serves(
    llamacpp: Callable[..., Any],
) -> None:
    with pytest.raises(ModelUnavailable) as caught:
        await llamacpp("qwen3-8b")
    assert str(caught.value) == f"llama.cpp serves no model 'qwen3-8b'; it serves: {SMOLLM2}"


async def test_a_greedy_reply_streams_as_text(llamacpp: Callable[..., Any]) -> None:
    resolved = await llamacpp(SMOLLM2)
    events = await collect(resolved.backend, ask("Name a colour.", temperature=0, max_tokens=12))
    assert len([e for e in events if isinstance(e, TextDelta)]) > 1  # streamed, not in one piece
    assert text_of(events).strip()
    # llama-cpp-python sends no usage in a stream; a server that does gets it reported.
    for event in events:
        assert isinstance(event, TextDelta | UsageReport)
        if isinstance(event, UsageReport):
            assert event.usage.input > 0


async def test_a_server_that_wants_a_key_says_which_setting_gives_it(
    llamacpp: Callable[..., Any], llama_server: LlamaServer
) -> None:
    with pytest.raises(ModelUnavailable) as caught:
        await llamacpp(SMOLLM2, environ={})
    assert str(caught.value) == (
        f"llama.cpp at {llama_server.base_url} refused the request (HTTP 401): it wants an API "
        "key; set WISP_LLAMACPP_API_KEY, or llamacpp.apiKey in config.json"
    )


async def test_a_wrong_key_is_refused_without_showing_it(
    llamacpp: Callable[..., Any], llama_server: LlamaServer
) -> None:
    resolved = await llamacpp(SMOLLM2)
    resolved.backend.key = ApiKey("not-the-right-secret", "WISP_LLAMACPP_API_KEY")
    with pytest.raises(ModelError) as caught:
        await collect(resolved.backend, ask(max_tokens=4))
    message = str(caught.value)
    assert "the API key wisp sent is not one it accepts" in message
    assert "not-the-right-secret" not in message
    assert "not-the-right-secret" not in repr(resolved.backend)


async def test_a_prompt_longer_than_the_servers_window_is_an_overflow_with_its_counts(
    llamacpp: Callable[..., Any],
) -> None:
    # llama-cpp-python streams nothing (a 200 with an empty body) for a prompt longer than its
    # --n_ctx 2048: wisp asks again unstreamed to hear why, not "the stream ended without ...".
    resolved = await llamacpp(SMOLLM2)
    with pytest.raises(ContextOverflow) as caught:
        await collect(resolved.backend, ask("word " * 2600))
    assert caught.value.window == 2048
    assert caught.value.tokens is not None and 2048 < caught.value.tokens < 3000
    assert "maximum context length is 2048 tokens" in str(caught.value)
    # The server still answers after it (the connection it dropped is not reused).
    assert text_of(await collect(resolved.backend, ask("Hi", temperature=0, max_tokens=4)))


async def test_cancelling_a_reply_from_the_server_propagates(
    llamacpp: Callable[..., Any],
) -> None:
    resolved = await llamacpp(SMOLLM2)
    first = asyncio.Event()

    async def consume() -> None:
        async for _ in resolved.backend.stream(ask("Tell a long story.", max_tokens=400)):
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), HANG)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_openai_takes_a_base_url_ending_in_v1(
    llama_server: LlamaServer, make_config: MakeConfig, http_client: httpx.AsyncClient
) -> None:
    config = make_config({"openai": {"baseURL": f"{llama_server.base_url}/v1/"}})
    environ = {"WISP_OPENAI_API_KEY": llama_server.key}
    section = config.settings.openai
    resolved = await resolve_openai(llama_server.model_id, section, environ, http_client)
    assert resolved.selection == f"openai:{SMOLLM2}"
    assert resolved.asset == f"{llama_server.base_url} {llama_server.model_id}"
    assert resolved.context_size is None
    assert resolved.context_note == (
        "unknown: the server reported no window; set openai.contextLength (or "
        f'openai.models."{SMOLLM2}".contextLength) to the server\'s window'
    )
    assert (resolved.capabilities, resolved.capability_source) == ([], "undeclared")
    events = await collect(resolved.backend, ask("Hi", temperature=0, max_tokens=4))
    assert text_of(events)


# -- the wire, through a MockTransport ---------------------------------------------------------


def sse(*events: dict[str, Any] | str) -> bytes:
    """Server-sent events as llama-server writes them."""
    lines = [
        f"data: {event if isinstance(event, str) else json.dumps(event)}\n\n" for event in events
    ]
    return "".join(lines).encode()


def chunk(finish_reason: str | None = None, usage: dict[str, Any] | None = None, **delta: Any):
    """One ``chat.completion.chunk``; ``delta`` holds content, reasoning_content, tool_calls …"""
    event: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
    if usage is not None:
        event["usage"] = usage
    return event


def fragment(index: int | None, id: str | None = None, name: str | None = None, args: str = ""):
    """One tool-call fragment of a delta."""
    function: dict[str, Any] = {"arguments": args}
    if name is not None:
        function["name"] = name
    piece: dict[str, Any] = {"function": function, "type": "function"}
    if index is not None:
        piece["index"] = index
    if id is not None:
        piece["id"] = id
    return piece


class Recorder:
    """A MockTransport handler answering with one canned response, keeping each request."""

    def __init__(self, body: bytes = b"", status: int = 200, routes: dict[str, Any] | None = None):
        self.body = body
        self.status = status
        self.routes = routes or {}
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path in self.routes:
            answer = self.routes[request.url.path]
            status, payload = answer if isinstance(answer, tuple) else (200, answer)
            return httpx.Response(status, json=payload)
        return httpx.Response(self.status, content=self.body)

    def sent_body(self) -> dict[str, Any]:
        return json.loads(self.requests[-1].content)


def backend_for(
    recorder: Recorder,
    dialect: Dialect = LLAMACPP,
    key: ApiKey | None = None,
    default_think: bool | None = None,
) -> OpenAICompatBackend:
    server = Server(dialect.runtime, dialect.scheme, "http://127.0.0.1:9", dialect.start_hint, 5)
    client = httpx.AsyncClient(transport=httpx.MockTransport(recorder))
    return OpenAICompatBackend(client, dialect, server, "model-id", key, default_think)


async def stream(body: bytes, request: ChatRequest | None = None, **options: Any):
    return await collect(backend_for(Recorder(body), **options), request or ask())


async def test_text_and_usage_are_streamed() -> None:
    usage = {
        "prompt_tokens": 12,
        "completion_tokens": 3,
        "prompt_tokens_details": {"cached_tokens": 8},
    }
    body = sse(
        chunk(role="assistant"),
        chunk(content="Hel"),
        chunk(content="lo"),
        chunk("stop"),
        {"choices": [], "usage": usage},
        "[DONE]",
    )
    assert await stream(body) == [
        TextDelta("Hel"),
        TextDelta("lo"),
        UsageReport(Usage(input=12, output=3, cached=8, reasoning=0)),
    ]


async def test_reasoning_content_and_reasoning_are_thinking() -> None:
    body = sse(
        chunk(reasoning_content="Hmm"),
        chunk(reasoning=" so"),
        chunk(content="Yes"),
        chunk("stop", usage={"prompt_tokens": 5, "completion_tokens": 1}),
        "[DONE]",
    )
    assert await stream(body) == [
        ThinkingDelta("Hmm"),
        ThinkingDelta(" so"),
        TextDelta("Yes"),
        # No reasoning_tokens reported: each thinking chunk counts one.
        UsageReport(Usage(input=5, output=2, cached=0, reasoning=2)),
    ]


async def test_a_thinking_field_and_think_tags_in_the_content_are_thinking_too() -> None:
    body = sse(
        chunk(thinking="Hmm"),
        chunk(content="<think>so</think>"),
        chunk(content="Yes"),
        chunk("stop"),
        "[DONE]",
    )
    assert await stream(body) == [ThinkingDelta("Hmm"), ThinkingDelta("so"), TextDelta("Yes")]


async def test_a_call_written_in_the_content_is_a_call_after_the_text_before_it() -> None:
    body = sse(
        chunk(content="Checking.\n```json\n"),
        chunk(content='{"name": "weather", "arguments": {"city": "Oslo"}}\n```'),
        chunk("stop"),
        "[DONE]",
    )
    assert await stream(body, ask(tools=[WEATHER])) == [
        TextDelta("Checking."),
        ToolCallRequested("weather", {"city": "Oslo", "days": []}),
    ]


async def test_reported_reasoning_tokens_are_used() -> None:
    usage = {
        "prompt_tokens": 5,
        "completion_tokens": 40,
        "completion_tokens_details": {"reasoning_tokens": 30},
    }
    body = sse(chunk(reasoning_content="Hmm"), chunk("stop", usage=usage), "[DONE]")
    assert (await stream(body))[-1] == UsageReport(Usage(5, 40, 0, 30))


async def test_tool_call_fragments_are_gathered_by_index() -> None:
    body = sse(
        chunk(tool_calls=[fragment(0, "a", "weather", '{"ci')]),
        chunk(tool_calls=[fragment(1, "b", "weather", "")]),
        chunk(tool_calls=[fragment(0, args='ty": "Oslo"}')]),
        chunk(tool_calls=[fragment(1, args='{"city": "Rome", "days": [1]}')]),
        chunk("tool_calls"),
        "[DONE]",
    )
    assert await stream(body, ask(tools=[WEATHER])) == [
        ToolCallRequested("weather", {"city": "Oslo", "days": []}),  # completed from the schema
        ToolCallRequested("weather", {"city": "Rome", "days": [1]}),
    ]


async def test_fragments_without_an_index_split_on_a_new_id() -> None:
    body = sse(
        chunk(tool_calls=[fragment(None, "a", "weather", '{"city": "Oslo", ')]),
        chunk(tool_calls=[fragment(None, args='"days": []}')]),
        chunk(tool_calls=[fragment(None, "b", "weather", '{"city": "Rome", "days": []}')]),
        chunk("tool_calls"),
        "[DONE]",
    )
    calls = [event for event in await stream(body) if isinstance(event, ToolCallRequested)]
    assert [call.arguments["city"] for call in calls] == ["Oslo", "Rome"]


async def test_a_late_empty_name_does_not_rename_a_call() -> None:
    body = sse(
        chunk(tool_calls=[fragment(0, "a", "weather", "")]),
        chunk(tool_calls=[fragment(0, name="", args="{}")]),
        chunk("tool_calls"),
        "[DONE]",
    )
    assert await stream(body) == [ToolCallRequested("weather", {})]


async def test_arguments_that_are_not_json_are_a_bad_reply() -> None:
    body = sse(chunk(tool_calls=[fragment(0, "a", "weather", "{city: Oslo")]), chunk("stop"))
    with pytest.raises(ModelError, match=r"^llama\.cpp sent a call to weather whose arguments"):
        await stream(body)


async def test_mistral_calls_written_as_text_become_calls() -> None:
    body = sse(
        chunk(content="[TOOL_CALLS]weather[ARGS]"),
        chunk(content='{"city": "Oslo", "days": []}'),
        chunk("stop"),
        "[DONE]",
    )
    assert await stream(body, ask(tools=[WEATHER])) == [
        ToolCallRequested("weather", {"city": "Oslo", "days": []})
    ]


async def test_a_stream_without_finish_reason_or_done_is_an_interruption() -> None:
    body = sse(chunk(content="Half"), chunk(tool_calls=[fragment(0, "a", "weather", "{}")]))
    with pytest.raises(ModelError) as caught:
        await stream(body)
    assert str(caught.value) == (
        "llama.cpp stopped before the reply was done (the stream ended without finish_reason "
        "or [DONE]); nothing of it was kept"
    )


async def test_an_empty_stream_that_fits_when_asked_again_is_a_broken_stream() -> None:
    recorder = Recorder(b"")
    with pytest.raises(ModelError) as caught:
        await collect(backend_for(recorder), ask())
    assert not isinstance(caught.value, ContextOverflow)
    assert "the stream ended before any event, though the request fits" in str(caught.value)
    probe = recorder.sent_body()
    assert (probe["stream"], probe["max_tokens"], "stream_options" in probe) == (False, 1, False)


async def test_a_finish_reason_without_done_is_a_whole_reply() -> None:
    assert await stream(sse(chunk(content="Hi"), chunk("stop"))) == [TextDelta("Hi")]


async def test_a_reply_cut_off_with_no_limit_asked_is_an_overflow() -> None:
    with pytest.raises(ContextOverflow):
        await stream(sse(chunk(content="Hi"), chunk("length"), "[DONE]"))


async def test_a_reply_cut_off_at_the_windows_end_counts_prompt_and_reply() -> None:
    usage = {"prompt_tokens": 3000, "completion_tokens": 1096}
    with pytest.raises(ContextOverflow) as caught:
        await stream(sse(chunk(content="Hi"), chunk("length", usage), "[DONE]"))
    assert (caught.value.tokens, caught.value.window) == (4096, None)


async def test_a_blank_reply_to_a_prompt_that_filled_the_window_is_an_overflow() -> None:
    # LM Studio's llama.cpp engine answers a prompt past its loaded window so: a whole stream,
    # with usage, and nothing in it.
    usage = {"prompt_tokens": 36000, "completion_tokens": 0}
    body = sse(chunk(role="assistant"), chunk("stop", usage), "[DONE]")
    backend = backend_for(Recorder(body), LMSTUDIO)
    backend.window = 32768
    with pytest.raises(ContextOverflow) as caught:
        await collect(backend, ask())
    assert (caught.value.tokens, caught.value.window) == (36000, 32768)
    backend.window = 65536  # within the window: a model with nothing to say
    assert await collect(backend, ask()) == [UsageReport(Usage(36000, 0, 0, 0))]


async def test_a_reply_cut_off_at_the_asked_limit_is_whole() -> None:
    body = sse(chunk(content="Hi"), chunk("length"), "[DONE]")
    assert await stream(body, ask(max_tokens=1)) == [TextDelta("Hi")]


async def test_llama_servers_exceed_context_error_is_an_overflow() -> None:
    error = {
        "error": {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 5000,
            "n_ctx": 4096,
        }
    }
    backend = backend_for(Recorder(json.dumps(error).encode(), status=400))
    with pytest.raises(ContextOverflow) as caught:
        await collect(backend, ask())
    assert "5,000 prompt tokens, a window of 4,096" in str(caught.value)
    assert (caught.value.tokens, caught.value.window) == (5000, 4096)


@pytest.mark.parametrize(
    ("message", "tokens", "window"),
    [
        (  # LM Studio
            "Trying to keep the first 10136 tokens when context the overflows. However, the "
            "model is loaded with context length of only 7866 tokens, which is not enough. Try "
            "to load the model with a larger context length, or provide a shorter input",
            10136,
            7866,
        ),
        (  # vLLM and OpenAI
            "This model's maximum context length is 4096 tokens. However, you requested 5000 "
            "tokens (4488 in the messages, 512 in the completion). Please reduce the length of "
            "the messages or completion.",
            4488,
            4096,
        ),
        (  # vLLM, later
            "This model's maximum context length is 2048 tokens. However, your request has "
            "3000 input tokens. Please reduce the length of the input messages.",
            3000,
            2048,
        ),
    ],
)
async def test_each_servers_overflow_carries_its_counts(
    message: str, tokens: int, window: int
) -> None:
    body = {"error": {"message": message, "type": "invalid_request_error"}}
    backend = backend_for(Recorder(json.dumps(body).encode(), status=400))
    with pytest.raises(ContextOverflow) as caught:
        await collect(backend, ask())
    assert (caught.value.tokens, caught.value.window) == (tokens, window)


@pytest.mark.parametrize(
    "message",
    [
        "Trying to keep the first 5000 tokens when context length is only 4096 (exceeded)",
        "prompt is too long for the context window",
    ],
)
async def test_an_error_naming_the_window_is_an_overflow(message: str) -> None:
    backend = backend_for(Recorder(json.dumps({"error": message}).encode(), status=400))
    with pytest.raises(ContextOverflow):
        await collect(backend, ask())


async def test_another_http_error_gives_its_status_and_message() -> None:
    body = json.dumps({"error": {"message": "the model crashed", "type": "server_error"}})
    backend = backend_for(Recorder(body.encode(), status=500))
    with pytest.raises(ModelError) as caught:
        await collect(backend, ask())
    assert str(caught.value) == "llama.cpp returned HTTP 500: the model crashed"
    assert not isinstance(caught.value, ContextOverflow)


async def test_an_error_event_midstream_stops_the_reply() -> None:
    body = sse(chunk(content="Hi"), {"error": {"message": "slot failed", "type": "server_error"}})
    with pytest.raises(ModelError, match=r"stopped before the reply was done \(slot failed\)"):
        await stream(body)


async def test_a_bare_error_object_in_the_stream_is_read_too() -> None:
    body = b'{"error": {"message": "prompt exceeds the context size (2048 tokens)"}}\n'
    with pytest.raises(ContextOverflow):
        await stream(body)


async def test_a_key_is_sent_as_a_bearer_token_and_named_on_refusal() -> None:
    recorder = Recorder(b'{"error": {"message": "Invalid API key"}}', status=401)
    backend = backend_for(recorder, LMSTUDIO, key=ApiKey("sk-secret-1", "WISP_LMSTUDIO_API_KEY"))
    with pytest.raises(ModelError) as caught:
        await collect(backend, ask())
    assert recorder.requests[0].headers["Authorization"] == "Bearer sk-secret-1"
    assert str(caught.value) == (
        "LM Studio at http://127.0.0.1:9 refused the request (HTTP 401): the API key wisp sent "
        "is not one it accepts; set WISP_LMSTUDIO_API_KEY, or lmstudio.apiKey in config.json"
    )


async def test_the_request_body_is_sorted_with_positional_call_ids() -> None:
    recorder = Recorder(sse(chunk("stop"), "[DONE]"))
    history = [
        Message(role="user", content="Weather?"),
        Message(
            role="assistant",
            tool_calls=[
                ToolCall("0a1b2c3d", "weather", {"city": "Oslo"}),
                ToolCall("4e5f6a7b", "clock", {}),
            ],
        ),
        Message(role="tool", content="12:00", tool_call_id="ffffffff", tool_name="clock"),
        Message(role="tool", content="4 C", tool_call_id="0a1b2c3d", tool_name="weather"),
    ]
    request = ChatRequest(history, tools=[WEATHER], temperature=0.5, think=True)
    await collect(backend_for(recorder), request)
    raw = recorder.requests[0].content
    assert list(json.loads(raw)) == sorted(json.loads(raw))
    assert recorder.requests[0].headers["Accept"] == "text/event-stream"
    assert json.loads(raw)["messages"][1:] == [
        {
            "content": None,
            "role": "assistant",
            "tool_calls": [
                {
                    "function": {"arguments": '{"city":"Oslo"}', "name": "weather"},
                    "id": "call00001",
                    "type": "function",
                },
                {
                    "function": {"arguments": "{}", "name": "clock"},
                    "id": "call00002",
                    "type": "function",
                },
            ],
        },
        {"content": "12:00", "role": "tool", "tool_call_id": "call00002"},  # by its tool's name
        {"content": "4 C", "role": "tool", "tool_call_id": "call00001"},  # by wisp's id
    ]
    body = recorder.sent_body()
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["temperature"] == 0.5
    assert body["chat_template_kwargs"] == {"enable_thinking": True}
    assert body["tools"][0]["function"]["name"] == "weather"


async def test_the_thinking_switch_defaults_from_config_and_lm_studio_gets_none() -> None:
    llama = Recorder(sse(chunk("stop")))
    await collect(backend_for(llama, default_think=False), ask())
    assert llama.sent_body()["chat_template_kwargs"] == {"enable_thinking": False}
    lmstudio = Recorder(sse(chunk("stop")))
    await collect(backend_for(lmstudio, LMSTUDIO, default_think=True), ask(think=True))
    assert "chat_template_kwargs" not in lmstudio.sent_body()


def test_the_environment_key_wins_and_never_shows(make_config: MakeConfig) -> None:
    config = make_config({"openai": {"apiKey": "from-file"}})
    stored = config.settings.openai.api_key
    key = api_key("openai", stored, {"WISP_OPENAI_API_KEY": "from-env"})
    assert key is not None and key.source == "WISP_OPENAI_API_KEY"
    assert key.headers() == {"Authorization": "Bearer from-env"}
    assert "from-env" not in repr(key) and "from-env" not in f"{key}"
    from_file = api_key("openai", stored, {"WISP_OPENAI_API_KEY": ""})  # empty counts as unset
    assert from_file is not None and from_file.source == "config.json"
    assert api_key("llamacpp", config.settings.llamacpp.api_key, {}) is None


# -- listings ----------------------------------------------------------------------------------


async def resolve_mocked(
    resolver: Callable[..., Any], routes: dict[str, Any], settings: dict[str, Any], tmp: Path
) -> tuple[ResolvedModel, Recorder]:
    recorder = Recorder(routes=routes)
    config = Config(tmp / "config.json", settings)
    async with httpx.AsyncClient(transport=httpx.MockTransport(recorder)) as client:
        section = config.settings.openai_compatible(resolver.__name__.removeprefix("resolve_"))
        return await resolver("qwen3-8b", section, {}, client), recorder


LLAMA_MODELS = {"data": [{"id": "/models/qwen3-8b.gguf", "meta": {"n_ctx_train": 40960}}]}


async def test_llamacpp_window_and_tools_come_from_props(tmp_path: Path) -> None:
    props = {
        "default_generation_settings": {"n_ctx": 16384},
        "chat_template_caps": {"supports_tool_calls": True},
    }
    resolved, _ = await resolve_mocked(
        resolve_llamacpp, {"/v1/models": LLAMA_MODELS, "/props": props}, {}, tmp_path
    )
    assert resolved.context_size == 16384
    assert resolved.context_note == (
        "reported by llama.cpp (/props n_ctx): the server holds the model at this window"
    )
    assert resolved.capabilities == ["toolCalling", "guidedGeneration"]
    assert resolved.capability_source == "runtime"


async def test_a_failed_check_outranks_the_servers_report(tmp_path: Path) -> None:
    props = {"n_ctx": 8192, "chat_template_caps": {"supports_tools": True}}
    settings = {"llamacpp": {"models": {"qwen3-8b": {"verified": {"failed": ["toolCalling"]}}}}}
    resolved, _ = await resolve_mocked(
        resolve_llamacpp, {"/v1/models": LLAMA_MODELS, "/props": props}, settings, tmp_path
    )
    assert resolved.capabilities == ["guidedGeneration"]


async def test_declared_capabilities_and_window_apply_without_props(tmp_path: Path) -> None:
    section = {"capabilities": ["toolCalling", "reasoning"], "contextLength": 32768, "think": True}
    resolved, _ = await resolve_mocked(
        resolve_llamacpp,
        {"/v1/models": LLAMA_MODELS},
        {"llamacpp": {"models": {"qwen3-8b": section}}},
        tmp_path,
    )
    assert resolved.capabilities == ["toolCalling", "guidedGeneration", "reasoning"]
    assert resolved.capability_source == "configuration"
    assert (resolved.context_size, resolved.context_note) == (
        32768,
        "set for this model (llamacpp.models.qwen3-8b.contextLength)",
    )
    assert resolved.backend.default_think is True


def test_a_window_set_for_a_dotted_name_is_noted_with_the_name_quoted(tmp_path: Path) -> None:
    settings = {"openai": {"models": {"qwen2.5-coder": {"contextLength": 8192}}}}
    config = Config(tmp_path / "config.json", settings)
    section = config.settings.openai
    assert settle_window(OPENAI, section, "qwen2.5-coder", Served("qwen2.5-coder")) == (
        8192,
        'set for this model (openai.models."qwen2.5-coder".contextLength)',
    )


def test_a_bad_declaration_for_a_dotted_name_names_its_path_quoted(tmp_path: Path) -> None:
    settings = {"openai": {"models": {"qwen2.5-coder": {"capabilities": "toolCalling"}}}}
    config = Config(tmp_path / "config.json", settings)
    with pytest.raises(ConfigValueError) as caught:
        declared_capabilities(config.settings.openai.models, "openai", "qwen2.5-coder")
    assert str(caught.value) == (
        f'{config.path}: openai.models."qwen2.5-coder".capabilities: expected a list of '
        "capability names"
    )


async def test_an_unknown_declared_capability_is_refused(tmp_path: Path) -> None:
    settings = {"llamacpp": {"models": {"qwen3-8b": {"capabilities": ["telepathy"]}}}}
    with pytest.raises(ModelUnavailable, match=r"^unknown capability 'telepathy'"):
        await resolve_mocked(resolve_llamacpp, {"/v1/models": LLAMA_MODELS}, settings, tmp_path)


async def test_router_mode_asks_props_for_the_model(tmp_path: Path) -> None:
    models = {"data": [{"id": "qwen3-8b", "status": {"value": "loaded"}}]}
    _, recorder = await resolve_mocked(
        resolve_llamacpp, {"/v1/models": models, "/props": {"n_ctx": 4096}}, {}, tmp_path
    )
    assert str(recorder.requests[1].url).endswith("/props?model=qwen3-8b")


def lmstudio_model(**fields: Any) -> dict[str, Any]:
    model = {
        "type": "llm",
        "key": "qwen3-8b",
        "architecture": "qwen3",
        "size_bytes": 5_000_000_000,
        "params_string": "8B",
        "max_context_length": 40960,
        "loaded_instances": [],
        "capabilities": {"trained_for_tool_use": True, "reasoning": {"allowed_options": ["on"]}},
    }
    return {**model, **fields}


async def test_lm_studio_reports_the_loaded_window_and_capabilities(tmp_path: Path) -> None:
    loaded = [{"id": "qwen3-8b", "config": {"context_length": 16384}}]
    routes = {"/api/v1/models": {"models": [lmstudio_model(loaded_instances=loaded)]}}
    resolved, _ = await resolve_mocked(resolve_lmstudio, routes, {}, tmp_path)
    assert resolved.context_note == "reported by LM Studio: loaded at 16,384 of 40,960"
    assert resolved.capabilities == ["toolCalling", "guidedGeneration", "reasoning"]
    assert resolved.capability_source == "runtime"


async def test_lm_studio_not_loaded_has_an_unknown_window_and_a_hint(tmp_path: Path) -> None:
    # Its maximum is not its window: loaded on demand, it gets LM Studio's default.
    routes = {"/api/v1/models": {"models": [lmstudio_model(capabilities={})]}}
    resolved, _ = await resolve_mocked(resolve_lmstudio, routes, {}, tmp_path)
    assert resolved.context_size is None
    assert resolved.context_note == (
        "unknown: LM Studio has not loaded it (it can hold up to 40,960); load it at the window "
        "you want and choose it again; or set lmstudio.contextLength to the window it is "
        "loaded with"
    )
    assert resolved.capabilities == ["guidedGeneration"]


async def test_lm_studio_not_loaded_takes_the_configured_window_within_its_maximum(
    tmp_path: Path,
) -> None:
    routes = {"/api/v1/models": {"models": [lmstudio_model()]}}
    settings = {"lmstudio": {"contextLength": 8192}}
    resolved, _ = await resolve_mocked(resolve_lmstudio, routes, settings, tmp_path)
    assert (resolved.context_size, resolved.context_note) == (
        8192,
        "configured (lmstudio.contextLength)",
    )
    settings = {"lmstudio": {"contextLength": 65536}}
    resolved, _ = await resolve_mocked(resolve_lmstudio, routes, settings, tmp_path)
    assert (resolved.context_size, resolved.context_note) == (
        40960,
        "configured (lmstudio.contextLength), capped at the 40,960 the model can hold",
    )


async def test_lm_studio_loaded_smaller_than_configured_keeps_the_loaded_window(
    tmp_path: Path,
) -> None:
    loaded = [{"id": "qwen3-8b", "config": {"context_length": 4096}}]
    routes = {"/api/v1/models": {"models": [lmstudio_model(loaded_instances=loaded)]}}
    settings = {"lmstudio": {"contextLength": 8192}}
    resolved, _ = await resolve_mocked(resolve_lmstudio, routes, settings, tmp_path)
    assert (resolved.context_size, resolved.context_note) == (
        4096,
        "reported by LM Studio (loaded), below the 8,192 configured (lmstudio.contextLength)",
    )


@pytest.mark.parametrize(
    ("settings", "window", "note"),
    [
        (  # the operator wants less than the server has
            {"contextLength": 2048},
            2048,
            "configured (llamacpp.contextLength), below the 16,384 reported by llama.cpp "
            "(/props n_ctx)",
        ),
        (  # the server cannot hold more than it has
            {"contextLength": 32768},
            16384,
            "reported by llama.cpp (/props n_ctx), below the 32,768 configured "
            "(llamacpp.contextLength)",
        ),
        (  # the model's own entry comes first
            {"contextLength": 32768, "models": {"qwen3-8b": {"contextLength": 4096}}},
            4096,
            "set for this model (llamacpp.models.qwen3-8b.contextLength), below the 16,384 "
            "reported by llama.cpp (/props n_ctx)",
        ),
        (
            {"contextLength": 16384},
            16384,
            "reported by llama.cpp (/props n_ctx), as configured (llamacpp.contextLength)",
        ),
    ],
)
async def test_a_configured_and_a_reported_window_settle_on_the_smaller(
    tmp_path: Path, settings: dict[str, Any], window: int, note: str
) -> None:
    routes = {"/v1/models": LLAMA_MODELS, "/props": {"n_ctx": 16384}}
    resolved, _ = await resolve_mocked(resolve_llamacpp, routes, {"llamacpp": settings}, tmp_path)
    assert (resolved.context_size, resolved.context_note) == (window, note)


async def test_llamacpp_context_length_gives_the_window_the_server_does_not(
    tmp_path: Path,
) -> None:
    routes = {"/v1/models": LLAMA_MODELS}  # no /props: llama-cpp-python's server
    settings = {"llamacpp": {"contextLength": 2048}}
    resolved, _ = await resolve_mocked(resolve_llamacpp, routes, settings, tmp_path)
    assert (resolved.context_size, resolved.context_note) == (
        2048,
        "configured (llamacpp.contextLength)",
    )


async def test_an_lm_studio_embedding_model_is_refused(tmp_path: Path) -> None:
    routes = {"/api/v1/models": {"models": [lmstudio_model(type="embedding")]}}
    with pytest.raises(ModelUnavailable, match="is an embedding model, which cannot hold"):
        await resolve_mocked(resolve_lmstudio, routes, {}, tmp_path)


async def test_an_older_lm_studio_is_listed_by_v1_models(tmp_path: Path) -> None:
    routes = {"/api/v1/models": (404, {}), "/v1/models": {"data": [{"id": "qwen3-8b"}]}}
    resolved, _ = await resolve_mocked(resolve_lmstudio, routes, {}, tmp_path)
    assert resolved.selection == "lmstudio:qwen3-8b"


async def test_openai_window_from_max_model_len(tmp_path: Path) -> None:
    routes = {"/v1/models": {"data": [{"id": "qwen3-8b", "max_model_len": 32768}]}}
    resolved, recorder = await resolve_mocked(
        resolve_openai, routes, {"openai": {"baseURL": "http://127.0.0.1:8000/v1"}}, tmp_path
    )
    assert str(recorder.requests[0].url) == "http://127.0.0.1:8000/v1/models"
    assert (resolved.context_size, resolved.context_note) == (
        32768,
        "reported by the server (/v1/models max_model_len)",
    )


async def test_openai_context_length_is_used_when_the_server_reports_none(tmp_path: Path) -> None:
    routes = {"/v1/models": {"data": [{"id": "qwen3-8b"}]}}
    settings = {"openai": {"contextLength": 65536}}
    resolved, _ = await resolve_mocked(resolve_openai, routes, settings, tmp_path)
    assert (resolved.context_size, resolved.context_note) == (
        65536,
        "configured (openai.contextLength)",
    )


def test_the_three_dialects_name_their_runtimes() -> None:
    assert [(d.scheme, d.runtime, d.key_variable) for d in (LLAMACPP, LMSTUDIO, OPENAI)] == [
        ("llamacpp", "llama.cpp", "WISP_LLAMACPP_API_KEY"),
        ("lmstudio", "LM Studio", "WISP_LMSTUDIO_API_KEY"),
        ("openai", "OpenAI-compatible server", "WISP_OPENAI_API_KEY"),
    ]
