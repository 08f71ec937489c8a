"""Generating with the real SmolLM2-135M GGUF, calls held to their form (docs/models.md, "The
embedded model's tools"): text before a call is free; once the reply opens a call, the rest is
a well-formed call of an offered tool with arguments its schema allows.

The model is asked to copy a reply that opens a call of a tool nobody offered: greedy, it copies
the text and the opener; what follows is the grammar's. Replies are kept short: seconds each.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from wisp.agent.types import (
    ChatRequest,
    Message,
    TextDelta,
    ToolCallRequested,
    ToolSpec,
    UsageReport,
)
from wisp.config import Config
from wisp.models import local
from wisp.models.local_calls import forms_for
from wisp.models.local_engine import CallHold, Engine, Generated, Prompt, Sampling
from wisp.tools.registry import default_tools

pytest.importorskip("llama_cpp", reason="needs the local extra")

TOOLS = [
    ToolSpec(tool.name, tool.description, tool.parameters)
    for tool in default_tools(Config(Path("/nonexistent/config.json"), {}), runner=object())  # type: ignore[arg-type]
]
SCHEMAS = {tool.name: tool.parameters for tool in TOOLS}
QWEN_LIKE = "{% for tool in tools %}{{ tool | tojson }}{% endfor %}<tool_call>...</tool_call>"
BARE = 'Copy this text exactly:\nChecking.\n{"name": "change_port", "arguments": {}}'
TAGGED = (
    "Copy this text exactly:\nChecking.\n<tool_call>\n"
    '{"name": "current_time", "arguments": {}}\n</tool_call>'
)


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    loaded = Engine(local.default_model_path(), window=2048, threads=None)
    yield loaded
    loaded.close()


def ask(engine: Engine, question: str, *, grammar: bool = True) -> Prompt:
    return engine.render([Message(role="user", content=question)], TOOLS, {}, grammar=grammar)


def as_qwen(prompt: Prompt) -> Prompt:
    """``prompt`` with calls watched as for a template that writes ``<tool_call>``."""
    prompt.calls = CallHold(forms_for(QWEN_LIKE), TOOLS)
    return prompt


def generated(engine: Engine, prompt: Prompt, max_tokens: int = 80) -> tuple[str, Generated]:
    pieces: list[str] = []
    finished = engine.generate(prompt, Sampling(0.0, max_tokens), pieces.append, threading.Event())
    return "".join(pieces), finished


def assert_offered_call(text: str) -> None:
    """``text`` is one call object: an offered tool, arguments valid against its schema."""
    call = json.loads(text)
    assert sorted(call) == ["arguments", "name"]
    assert call["name"] in SCHEMAS
    jsonschema.validate(call["arguments"], SCHEMAS[call["name"]])


def test_smollm2s_calls_are_watched_for_as_its_prompt_asks_them(engine: Engine) -> None:
    assert ask(engine, "Date?").calls == CallHold(forms_for(None), TOOLS)
    assert ask(engine, "Date?", grammar=False).calls is None


def test_text_then_a_call_object_the_rest_is_an_offered_tools_well_formed_call(
    engine: Engine,
) -> None:
    free, _ = generated(engine, ask(engine, BARE, grammar=False))
    assert free.startswith('Checking.\n{"name": "change_port"')  # copied, tool and all
    reply, finished = generated(engine, ask(engine, BARE))
    assert reply.startswith("Checking.\n{")
    assert_offered_call(reply.removeprefix("Checking.\n"))
    assert finished.reason == "stop"


def test_text_then_qwens_tool_call_the_rest_is_an_offered_tools_call_and_its_closing(
    engine: Engine,
) -> None:
    free, _ = generated(engine, ask(engine, TAGGED, grammar=False))
    assert '"current_time"' in free  # not watched for <tool_call>, the copy is whole
    reply, finished = generated(engine, as_qwen(ask(engine, TAGGED)))
    before, opener, rest = reply.partition("<tool_call>")
    assert (before, opener) == ("Checking.\n", "<tool_call>")
    call, closing, after = rest.partition("</tool_call>")
    assert (closing, after) == ("</tool_call>", "")
    assert_offered_call(call.strip())
    assert finished.reason == "stop"


def test_a_reply_that_opens_no_call_is_what_the_model_writes_unwatched(engine: Engine) -> None:
    question = "Who are you?"
    # Each from an empty cache: a prompt evaluated in other batches (its prefix reused from the
    # cache) can differ in the last bits of its logits and flip a near-tie, watched or not.
    engine._llm.reset()
    reply, _ = generated(engine, as_qwen(ask(engine, question)), max_tokens=40)
    assert reply.strip() and "{" not in reply
    engine._llm.reset()
    assert generated(engine, ask(engine, question, grammar=False), max_tokens=40)[0] == reply


def test_max_tokens_counts_the_text_before_the_call_and_the_call(engine: Engine) -> None:
    prompt = as_qwen(ask(engine, TAGGED))
    reply, finished = generated(engine, prompt, max_tokens=12)
    assert reply.startswith("Checking.\n<tool_call>") and finished.reason == "length"
    assert engine.count(reply) <= 12
    reply, finished = generated(engine, prompt, max_tokens=2)  # cut before the call
    assert finished.reason == "length" and "<tool_call>" not in reply


async def test_through_the_backend_text_then_a_call_is_text_and_a_call() -> None:
    declared = {"SmolLM2-135M-Instruct.Q4_1": {"capabilities": ["toolCalling"]}}
    config = Config(Path("/nonexistent/config.json"), {"local": {"models": declared}})
    model = await local.resolve("", config.settings.local)
    request = ChatRequest([Message(role="user", content=BARE)], TOOLS, max_tokens=60)
    try:
        events = [event async for event in model.backend.stream(request)]
    finally:
        await model.backend.aclose()
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Checking."
    [call] = [e for e in events if isinstance(e, ToolCallRequested)]
    assert call.name in SCHEMAS and call.name != "change_port"
    jsonschema.validate(call.arguments, SCHEMAS[call.name])


def common_prefix(one: list[int], other: list[int]) -> int:
    return next((i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b), 0)


def test_a_request_asked_again_keeps_the_tools_in_its_prompt_and_bars_calls(
    engine: Engine,
) -> None:
    question = [Message(role="user", content="What is the date?")]
    asked = [
        *question,
        Message(role="assistant", content="Thank you!"),
        Message(role="user", content="Answer my question."),
    ]
    offered = engine.render(question, TOOLS, {})
    again = engine.render(asked, TOOLS, {}, barred=True)
    # Everything the first request read is the start of the second: the cache keeps it.
    assert again.tokens[: len(offered.tokens)] == offered.tokens
    assert common_prefix(engine.render(asked, [], {}).tokens, offered.tokens) < 20
    assert again.calls is None and again.barred == engine.opener_tokens


def test_a_barred_token_is_never_written(engine: Engine) -> None:
    prompt = as_qwen(ask(engine, TAGGED))
    reply, _ = generated(engine, prompt)
    assert "<tool_call>" in reply
    # SmolLM2 writes <tool_call> in pieces; its first is barred (Qwen's is one token).
    tokenize = engine._llm.tokenize
    opener = tokenize(reply[reply.index("<tool_call>") :].encode(), add_bos=False)[0]
    prompt.calls, prompt.barred = None, (opener,)
    barred, _ = generated(engine, prompt)
    assert barred.startswith("Checking.") and "<tool_call>" not in barred


async def test_through_the_backend_a_request_asked_again_reads_only_what_is_new() -> None:
    declared = {"SmolLM2-135M-Instruct.Q4_1": {"capabilities": ["toolCalling"]}}
    config = Config(Path("/nonexistent/config.json"), {"local": {"models": declared}})
    model = await local.resolve("", config.settings.local)
    question = [Message(role="user", content="Who are you? One line.")]
    first = ChatRequest(question, TOOLS, max_tokens=20)
    asked = [*question, Message(role="user", content="Answer in one word.")]
    again = ChatRequest(asked, withheld=TOOLS, max_tokens=20, kept_in_prompt=TOOLS)
    try:
        [one] = [e async for e in model.backend.stream(first) if isinstance(e, UsageReport)]
        [two] = [e async for e in model.backend.stream(again) if isinstance(e, UsageReport)]
    finally:
        await model.backend.aclose()
    # The tools are still in the prompt: the first request's prompt comes from the cache.
    assert two.usage.input > one.usage.input and two.usage.cached >= one.usage.input - 4
