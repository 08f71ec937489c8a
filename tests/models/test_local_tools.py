"""The embedded model's tools (docs/models.md, "The embedded model's tools"), with the real
SmolLM2-135M GGUF: its template cannot place tools, so wisp writes them into the system message
and holds the reply to ``call | text`` with a llama.cpp grammar.

The grammar is checked by llama.cpp itself: its grammar sampler, fed a text token by token,
says whether each token may come next, and whether the end of the reply may come after it.
"""

from __future__ import annotations

import ctypes
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wisp.agent.types import ChatRequest, Message, TextDelta, ToolCallRequested, ToolSpec
from wisp.config import Config
from wisp.models import local, local_engine
from wisp.models.local_engine import Engine, Prompt, Sampling
from wisp.models.local_tools import CALL_FORM, call_grammar, template_places_tools, with_tools
from wisp.tool_call import ToolCall
from wisp.tools.registry import default_tools

llama_cpp = pytest.importorskip("llama_cpp", reason="needs the local extra")

TOOLS = [
    ToolSpec(tool.name, tool.description, tool.parameters)
    for tool in default_tools(Config(Path("/nonexistent/config.json"), {}), runner=object())  # type: ignore[arg-type]
]
DATE = [Message(role="system", content="You are wisp."), Message(role="user", content="Date?")]


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    loaded = Engine(local.default_model_path(), window=2048, threads=None)
    yield loaded
    loaded.close()


def text_of(engine: Engine, prompt: Prompt) -> str:
    return engine._llm.detokenize(prompt.tokens, special=True).decode()


# -- the prompt ---------------------------------------------------------------------------------


def test_smollm2s_template_cannot_place_tools_and_a_tool_template_can(engine: Engine) -> None:
    assert not engine.places_tools
    qwen_like = (
        "{% if tools %}<tools>{% for tool in tools %}{{ tool | tojson }}{% endfor %}</tools>"
        "{% endif %}{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}"
    )
    assert template_places_tools(qwen_like)


def test_the_tools_are_written_into_smollm2s_system_message(engine: Engine) -> None:
    prompt = engine.render(DATE, TOOLS, {})
    system = text_of(engine, prompt).split("<|im_end|>")[0]
    assert system.startswith("<|im_start|>system\nYou are wisp.\n\nYou can call these tools:\n")
    for tool in TOOLS:
        assert f"\n- {tool.name}(" in system
        assert tool.description in system
    assert "- read_file(path: string, offset?: integer, limit?: integer): " in system
    assert "system_info(topic: battery|folderSizes|" in system
    assert f"reply with only a JSON object on its own: {CALL_FORM}" in system
    assert prompt.grammar == call_grammar(TOOLS)


def test_with_the_grammar_off_the_tools_are_still_written_but_nothing_holds_the_reply(
    engine: Engine,
) -> None:
    prompt = engine.render(DATE, TOOLS, {}, grammar=False)
    assert "You can call these tools:" in text_of(engine, prompt)
    assert prompt.grammar is None


def test_without_tools_the_prompt_is_the_templates_alone(engine: Engine) -> None:
    prompt = engine.render(DATE, [], {})
    assert "tools" not in text_of(engine, prompt)
    assert prompt.grammar is None


def test_calls_and_results_are_written_as_the_model_was_told_to_write_them() -> None:
    call = ToolCall(id="c1", name="read_file", arguments={"path": "a.txt"})
    chat = [
        Message(role="user", content="Read a.txt and b.txt"),
        Message(role="assistant", content="", tool_calls=[call, call]),
        Message(role="tool", content="1\thello", tool_call_id="c1", tool_name="read_file"),
        Message(role="tool", content="1\tbye", tool_call_id="c1", tool_name="read_file"),
    ]
    out = with_tools(chat, TOOLS[:1])
    assert [m.role for m in out] == ["system", "user", "assistant", "user"]
    assert out[0].content.startswith("You can call these tools:\n- current_date(")
    assert out[2].content == '\n{"name": "read_file", "arguments": {"path": "a.txt"}}' * 2
    assert out[2].tool_calls == []
    assert out[3].content == "Result of read_file:\n1\thello\n\nResult of read_file:\n1\tbye"


# -- the grammar, as llama.cpp reads it ---------------------------------------------------------


def allowed(engine: Engine, grammar: str, text: str) -> bool:
    """Whether llama.cpp's grammar sampler lets the model write ``text`` and then end."""
    sampler = llama_cpp.llama_sampler_init_grammar(
        engine._llm._model.vocab, grammar.encode(), b"root"
    )
    assert sampler, "llama.cpp could not parse the grammar"
    try:
        tokens = engine._llm.tokenize(text.encode(), add_bos=False, special=False)
        for token in [*tokens, engine._llm.token_eos()]:
            if not _may_come(sampler, token):
                return False
            if token != engine._llm.token_eos():
                llama_cpp.llama_sampler_accept(sampler, token)
        return True
    finally:
        llama_cpp.llama_sampler_free(sampler)


def _may_come(sampler: Any, token: int) -> bool:
    data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 0.0, 0.0))
    candidates = llama_cpp.llama_token_data_array(data, 1, -1, False)
    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(candidates))
    return bool(data[0].logit > float("-inf"))


WELL_FORMED = {
    "current_date": [{}, {"timeZone": "Europe/London"}],
    "run_command": [{"command": "ls -la"}, {"command": "pytest -q", "timeoutSeconds": 60}],
    "read_file": [{"path": "README.md"}, {"path": "a.txt", "offset": 3, "limit": 10}],
    "edit_file": [{"path": "a.txt", "mode": "append", "content": "x\n"}],
    "inspect": [{"what": "status"}],
    "system_info": [{"topic": "memory", "process": ""}],
}


def test_every_offered_tool_has_well_formed_calls_in_the_test() -> None:
    assert sorted(WELL_FORMED) == sorted(tool.name for tool in TOOLS)


@pytest.mark.parametrize(
    "call",
    [
        {"name": name, "arguments": arguments}
        for name, examples in WELL_FORMED.items()
        for arguments in examples
    ],
    ids=lambda call: call["name"],
)
def test_the_grammar_accepts_each_offered_tools_well_formed_call(
    engine: Engine, call: dict[str, Any]
) -> None:
    assert allowed(engine, call_grammar(TOOLS), json.dumps(call))


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "delete_everything", "arguments": {}}',  # a tool nobody offered
        '{"name": "read_file", "arguments": {}}',  # its required path missing
        '{"name": "read_file", "arguments": {"path": 7}}',  # a path that is not a string
        '{"name": "system_info", "arguments": {"topic": "weather", "process": ""}}',  # not in enum
        '{"name": "current_date", "arguments": {}} and then some words',  # text after the call
        '{"answer": 42}',  # JSON that is not a call
        ' {"name": "current_date", "arguments": {}}',  # a call behind white space
    ],
)
def test_the_grammar_refuses_what_is_not_a_well_formed_offered_call(
    engine: Engine, text: str
) -> None:
    assert not allowed(engine, call_grammar(TOOLS), text)


def test_the_grammar_lets_plain_answers_through(engine: Engine) -> None:
    assert allowed(engine, call_grammar(TOOLS), 'Paris. A JSON example: {"a": 1}\n\nDone.')


# -- generating under the grammar ---------------------------------------------------------------


def generated(engine: Engine, prompt: Prompt) -> str:
    pieces: list[str] = []
    engine.generate(prompt, Sampling(0.0, 80), pieces.append, threading.Event())
    return "".join(pieces)


def test_a_generation_under_the_grammar_is_text_or_an_offered_call_that_parses(
    engine: Engine,
) -> None:
    prompt = engine.render([Message(role="user", content="What is today's date?")], TOOLS, {})
    reply = generated(engine, prompt)
    assert reply.strip()
    if reply.startswith("{"):
        assert json.loads(reply)["name"] in WELL_FORMED
    # Told to call, the model's call is one of the offered tools, its arguments as the schema says.
    prompt.grammar = (prompt.grammar or "").replace("root ::= call | text", "root ::= call")
    call = json.loads(generated(engine, prompt))
    assert call["name"] in WELL_FORMED and isinstance(call["arguments"], dict)


def test_a_text_reply_is_what_the_grammar_held_to_its_end_would_have_given(
    engine: Engine,
) -> None:
    # The grammar decides at the first token; text then goes on free, as its rule allows.
    prompt = engine.render([Message(role="user", content="Who are you?")], TOOLS, {})
    held = engine._llm.create_completion(
        prompt=prompt.tokens,
        max_tokens=80,
        temperature=0.0,
        seed=0,
        stop=prompt.stop,
        repeat_penalty=1.0,
        grammar=llama_cpp.LlamaGrammar.from_string(prompt.grammar),
    )["choices"][0]["text"]
    assert generated(engine, prompt) == held
    assert held.strip() and not held.startswith("{")


# -- what local offers --------------------------------------------------------------------------


def settings(data: dict[str, Any] | None = None) -> Any:
    return Config(Path("/nonexistent/config.json"), data or {}).settings.local


async def test_another_gguf_is_offered_tools_and_the_shipped_model_is_not(tmp_path: Path) -> None:
    link = tmp_path / "tiny.gguf"
    link.symlink_to(local.default_model_path())
    other = await local.resolve(str(link), settings())
    assert other.can_call_tools and other.capability_source == "runtime"
    assert not (await local.resolve("", settings())).can_call_tools


async def test_a_failed_check_takes_tool_calling_back_and_a_declaration_gives_it(
    tmp_path: Path,
) -> None:
    link = tmp_path / "tiny.gguf"
    link.symlink_to(local.default_model_path())
    name = local.default_model_path().name.removesuffix(".gguf")  # the file's own name
    verified = {"date": "2026-12-01", "passed": [], "failed": ["toolCalling"]}
    failed = settings({"local": {"models": {name: {"verified": verified}}}})
    assert not (await local.resolve(str(link), failed)).can_call_tools
    declared = settings({"local": {"models": {name: {"capabilities": ["toolCalling"]}}}})
    assert (await local.resolve("", declared)).can_call_tools


async def test_the_grammar_setting_reaches_the_backend() -> None:
    assert (await local.resolve("", settings())).backend.options.grammar is True
    off = await local.resolve("", settings({"local": {"grammar": False}}))
    assert off.backend.options.grammar is False


def calls_only(tools: list[ToolSpec]) -> str:
    return call_grammar(tools).replace("root ::= call | text", "root ::= call")


async def test_through_the_backend_a_reply_under_the_grammar_is_text_or_a_parsed_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    declared = {"SmolLM2-135M-Instruct.Q4_1": {"capabilities": ["toolCalling"]}}
    model = await local.resolve("", settings({"local": {"models": declared}}))
    question = [Message(role="user", content="What is today's date?")]
    try:
        events = [
            e async for e in model.backend.stream(ChatRequest(question, TOOLS, max_tokens=60))
        ]
        text = "".join(e.text for e in events if isinstance(e, TextDelta))
        calls = [e for e in events if isinstance(e, ToolCallRequested)]
        assert calls or (text.strip() and not text.startswith("{"))
        # Held to a call alone, the model's call reaches wisp as a call, never as text.
        monkeypatch.setattr(local_engine, "call_grammar", calls_only)
        events = [
            e async for e in model.backend.stream(ChatRequest(question, TOOLS, max_tokens=60))
        ]
        [call] = [e for e in events if isinstance(e, ToolCallRequested)]
        assert call.name in WELL_FORMED
        assert not "".join(e.text for e in events if isinstance(e, TextDelta)).strip()
    finally:
        await model.backend.aclose()
