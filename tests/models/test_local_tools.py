"""The embedded model's tools (docs/models.md, "The embedded model's tools"), with the real
SmolLM2-135M GGUF: its template cannot place tools, so wisp writes them into the system message.

How a call the reply opens is held to its form: tests/models/test_local_calls.py (the forms and
their grammars) and tests/models/test_local_engine.py (generating).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wisp.agent.types import Message, ToolSpec
from wisp.config import Config
from wisp.models import local
from wisp.models.local_engine import Engine, Prompt
from wisp.models.local_tools import CALL_FORM, template_places_tools, with_tools
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
    assert prompt.grammar is None and prompt.calls is not None


def test_with_the_grammar_off_the_tools_are_still_written_but_nothing_holds_the_reply(
    engine: Engine,
) -> None:
    prompt = engine.render(DATE, TOOLS, {}, grammar=False)
    assert "You can call these tools:" in text_of(engine, prompt)
    assert prompt.grammar is None and prompt.calls is None


def test_without_tools_the_prompt_is_the_templates_alone(engine: Engine) -> None:
    prompt = engine.render(DATE, [], {})
    assert "tools" not in text_of(engine, prompt)
    assert prompt.grammar is None and prompt.calls is None


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
