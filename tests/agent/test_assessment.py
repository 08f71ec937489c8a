"""The assessment per request: rules, one model call, a retry; recorded, never in the context
(docs/turn.md, "The assessment per request")."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from wisp.agent.assessment import answered_from_knowledge, assessment_on, rule_tools
from wisp.agent.loop import Conversation
from wisp.agent.types import Backend, ChatRequest, StreamEvent, Tool, ToolContext
from wisp.audit import MemorySink
from wisp.tools.current_date import CurrentDateTool

TOOLS = [
    "read_file", "edit_file", "run_command", "current_date", "system_info", "inspect", "models",
    "memory",
]  # fmt: skip


@pytest.mark.parametrize(
    ("prompt", "tools"),
    [
        ("What is the value of name in pyproject.toml?", ["read_file"]),
        ("Change the port in config.ini to 9090", ["read_file", "edit_file"]),
        ("Remove the unused import from app.py", ["read_file", "edit_file"]),
        ("Delete the last line of notes.txt", ["read_file", "edit_file"]),
        ("What is today's date?", ["current_date"]),
        ("What time is it?", ["current_date"]),
        ("List the files in this folder", ["run_command"]),
        ("Count the lines of src/app.py", ["read_file", "run_command"]),
        ("Run the tests", ["run_command"]),
        ("What does git status say?", ["run_command"]),
        ("How much free space is on the disk?", ["system_info"]),
        ("Show wisp's settings", ["inspect"]),
        ("Which models can you use?", ["models"]),
        ("Get me a small model from Hugging Face", ["models"]),
        ("Is the Ollama model qwen3 enabled?", ["models"]),
    ],
)
def test_rules_choose_the_tools_of_typical_prompts(prompt: str, tools: list[str]) -> None:
    assert rule_tools(prompt, TOOLS) == tools


@pytest.mark.parametrize(
    "prompt", ["What is the capital of France?", "Hello!", "Explain what a race condition is."]
)
def test_the_rules_settle_nothing_for_a_question_of_knowledge(prompt: str) -> None:
    assert rule_tools(prompt, TOOLS) == []
    assert not answered_from_knowledge(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "What is 17 multiplied by 23? Answer with the number only.",
        "What is 17 times 23?",
        "What is 2+2?",
        "What is 250 - 75?",
        "What is 15 percent of 80?",
        "What is the square root of 144?",
        "How many minutes are there in 3 hours?",
        "How many seconds in a day?",
        "How many bytes are in a kilobyte?",
    ],
)
def test_arithmetic_is_answered_from_what_the_model_knows(prompt: str) -> None:
    assert answered_from_knowledge(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "What happened in 1939-1945?",  # a span of years, not a subtraction
        "Is 2024-05-01 a Monday?",
        "How many commits are on this branch?",
        "How many users are logged in?",
        "Which is newer, python3.11 or 3.12?",
        "How many TODO comments are in main.py?",
        # A sum beside a file or a command is about them: their rules' tools are offered.
        "How many lines are in 2 files, a.txt and b.txt?",
        "Run `expr 2 + 3` for me.",
        "What is 17 times the number of lines in data.csv?",
    ],
)
def test_numbers_that_are_no_sum_are_not_arithmetic(prompt: str) -> None:
    assert not answered_from_knowledge(prompt)


def test_a_rule_s_tool_the_conversation_lacks_is_passed_over() -> None:
    assert rule_tools("Change the port in config.ini", ["edit_file", "current_date"]) == [
        "edit_file"
    ]


def test_auto_is_on_for_small_windows_only() -> None:
    assert assessment_on("auto", 8192)
    assert not assessment_on("auto", 32768)
    assert not assessment_on("auto", None)
    assert assessment_on(True, None)
    assert not assessment_on(False, 4096)


class Recording:
    """The conversation's own backend, each request it is sent kept."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.requests: list[ChatRequest] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        async for event in self.inner.stream(request):
            yield event

    async def aclose(self) -> None:
        await self.inner.aclose()


class ReadFile:
    """A tool named read_file for the rules to find; says back the path."""

    name = "read_file"
    description = "Reads a file. Give its path."
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    }
    read_only = True

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        return f"1\tcontents of {arguments.get('path')}"


MakeConversation = Callable[..., Any]


async def assessed(
    make_conversation: MakeConversation,
    write_script: Callable[..., Path],
    *responses: Any,
    assess: tuple[Any, ...] = (),
) -> tuple[Conversation, Recording]:
    """A conversation on a script: ``responses`` to its own requests, ``assess`` to the
    assessment's routed call."""
    tools: list[Tool] = [ReadFile(), CurrentDateTool()]
    script = write_script(*responses, routed={"assess": list(assess)})
    conversation = await make_conversation(script, tools)
    conversation.assessment = True
    recording = Recording(conversation.resolved.backend)
    conversation.resolved.backend = recording
    return conversation, recording


def assessments(sink: MemorySink) -> list[dict[str, Any]]:
    return [msgspec.to_builtins(e.details) for e in sink.events if e.kind == "context.assessment"]


def offered(request: ChatRequest) -> list[str]:
    return [spec.name for spec in request.tools]


async def test_rules_settle_the_tools_and_the_request_offers_only_them(
    make_conversation: MakeConversation, write_script: Callable[..., Path], sink: MemorySink
) -> None:
    conversation, recording = await assessed(
        make_conversation, write_script, {"text": "It is Thursday."}
    )
    result = await conversation.run_turn("What is today's date?")
    assert result.outcome == "ok"
    assert [offered(r) for r in recording.requests] == [["current_date"]]
    assert [spec.name for spec in recording.requests[0].withheld] == ["read_file"]
    (details,) = assessments(sink)
    assert details == {
        "method": "rules",
        "tools": ["current_date"],
        "ruleTools": ["current_date"],
        "registered": ["read_file", "current_date"],
        "taskChanged": False,
        "facts": [],
        "seconds": details["seconds"],
        "bytes": 0,
    }
    kinds = [e.kind for e in sink.events]
    assert kinds.index("prompt") < kinds.index("context.assessment") < kinds.index("response")


async def test_arithmetic_offers_no_tools_and_asks_no_model(
    make_conversation: MakeConversation, write_script: Callable[..., Path], sink: MemorySink
) -> None:
    conversation, recording = await assessed(make_conversation, write_script, {"text": "391"})
    result = await conversation.run_turn(
        "What is 17 multiplied by 23? Answer with the number only."
    )
    assert result.outcome == "ok" and result.text == "391"
    (request,) = recording.requests  # the turn's one request: no assessment call before it
    assert offered(request) == []
    assert [spec.name for spec in request.withheld] == ["read_file", "current_date"]
    (details,) = assessments(sink)
    assert (details["method"], details["tools"], details["ruleTools"]) == ("rules", [], [])
    assert details["bytes"] == 0 and "model" not in details


async def test_a_model_call_chooses_when_the_rules_settle_nothing(
    make_conversation: MakeConversation, write_script: Callable[..., Path], sink: MemorySink
) -> None:
    choice = {"tools": ["read_file"], "intent": "the capital of France"}
    conversation, recording = await assessed(
        make_conversation, write_script, {"text": "Paris."}, assess=({"text": json.dumps(choice)},)
    )
    result = await conversation.run_turn("What is the capital of France?")
    assert result.outcome == "ok" and result.text == "Paris."
    ask, turn = recording.requests
    assert ask.tools == [] and "read_file" in ask.messages[0].content
    assert ask.messages[-1].content == "What is the capital of France?"
    assert offered(turn) == ["read_file"]
    (details,) = assessments(sink)
    assert details["method"] == "model"
    assert details["tools"] == details["ruleTools"] + ["read_file"] == ["read_file"]
    assert details["model"] == conversation.resolved.selection
    assert details["intent"] == "the capital of France"
    assert details["bytes"] > 0 and "failure" not in details


async def test_an_answer_that_is_not_json_offers_every_tool(
    make_conversation: MakeConversation, write_script: Callable[..., Path], sink: MemorySink
) -> None:
    conversation, recording = await assessed(
        make_conversation,
        write_script,
        {"text": "Paris."},
        assess=({"text": "I think you need a map."},),
    )
    await conversation.run_turn("What is the capital of France?")
    assert offered(recording.requests[1]) == ["read_file", "current_date"]
    (details,) = assessments(sink)
    assert details["method"] == "fallback"
    assert "not a JSON object" in details["failure"]


async def test_a_call_of_a_tool_not_offered_retries_with_every_tool(
    make_conversation: MakeConversation, write_script: Callable[..., Path], sink: MemorySink
) -> None:
    conversation, recording = await assessed(
        make_conversation,
        write_script,
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "date.txt"}}]},
        {"tool_calls": [{"name": "current_date", "arguments": {}}]},
        {"text": "It is today."},
    )
    result = await conversation.run_turn("What is today's date?")
    assert result.outcome == "ok"
    assert [offered(r) for r in recording.requests] == [
        ["current_date"],
        ["read_file", "current_date"],
        ["read_file", "current_date"],
    ]
    first, retry = assessments(sink)
    assert first["method"] == "rules"
    assert retry["method"] == "retry"
    assert retry["tools"] == ["read_file", "current_date"]
    assert retry["ruleTools"] == ["current_date"]  # the selection that missed
    calls = [e for e in sink.events if e.kind == "tool.call"]
    assert [msgspec.to_builtins(e.details)["tool"] for e in calls] == ["current_date"]


async def test_the_assessment_never_enters_the_model_s_context(
    make_conversation: MakeConversation, write_script: Callable[..., Path]
) -> None:
    choice = {"tools": ["read_file"], "intent": "SECRET-INTENT"}
    conversation, recording = await assessed(
        make_conversation,
        write_script,
        {"text": "Paris."},
        {"text": "Rome."},
        assess=({"text": json.dumps(choice)}, {"text": json.dumps(choice)}),
    )
    await conversation.run_turn("What is the capital of France?")
    await conversation.run_turn("And the capital of Italy?")
    turns = recording.requests[1::2]  # the assessment's own call comes before each
    assert all(r.messages[0].content == conversation.instructions for r in turns)
    for request in turns:
        for message in request.messages:
            assert "SECRET-INTENT" not in message.content
            assert "Choose the tools" not in message.content
    assert [m.role for m in recording.requests[-1].messages] == [
        "system", "user", "assistant", "user",
    ]  # fmt: skip


async def test_off_offers_every_tool_and_records_nothing(
    make_conversation: MakeConversation, write_script: Callable[..., Path], sink: MemorySink
) -> None:
    conversation, recording = await assessed(
        make_conversation, write_script, {"text": "It is Thursday."}
    )
    conversation.assessment = False
    await conversation.run_turn("What is today's date?")
    assert offered(recording.requests[0]) == ["read_file", "current_date"]
    assert assessments(sink) == []


RECORDED = [
    (
        "What is the capital of France?",
        '{"tools": ["run_command", "read_file", "inspect"], "intent": "to run a shell command to '
        'get the capital of France and inspect its state"}',
        ["read_file"],
    ),
    (
        "Hello!",
        '{"tools": ["current_date", "run_command", "read_file", "edit_file", "inspect", '
        '"system_info", "ask"], "intent": "ask"}',
        ["read_file", "current_date"],
    ),
]
"""Qwen2.5-Coder-0.5B-Instruct's real answers (Q4_K_M, greedy, through ``local``) to the
assessment's request over the seven tools a chat offers: well-formed, if generous. A name the
conversation lacks is passed over."""

RECORDED_15B = [
    (
        "What is the capital of France?",
        '```json\n{"tools": ["run_command"], "intent": "What is the capital of France?"}\n```',
        [],
    ),
    (
        "Explain what a race condition is.",
        '```json\n{"tools": ["run_command", "read_file"], "intent": "Explain what a race '
        'condition is"}\n```',
        ["read_file"],
    ),
    ("Hello!", '{"tools": ["ask"], "intent": "Hello!"}', []),
]
"""Qwen2.5-Coder-1.5B-Instruct's real answers to the same requests: fewer tools, one fenced."""


@pytest.mark.parametrize(("prompt", "raw", "tools"), RECORDED + RECORDED_15B)
async def test_recorded_answers_of_a_small_model_are_read(
    make_conversation: MakeConversation,
    write_script: Callable[..., Path],
    sink: MemorySink,
    prompt: str,
    raw: str,
    tools: list[str],
) -> None:
    conversation, recording = await assessed(
        make_conversation, write_script, {"text": "Done."}, assess=({"text": raw},)
    )
    await conversation.run_turn(prompt)
    (details,) = assessments(sink)
    assert (details["method"], details["tools"]) == ("model", tools)
    assert offered(recording.requests[1]) == tools
