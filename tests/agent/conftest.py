"""A conversation over the real `script:` backend, a memory audit sink and real tools."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from wisp.agent.events import AgentEvent
from wisp.agent.loop import Conversation
from wisp.agent.prompt import system_prompt
from wisp.agent.recorder import Recorder
from wisp.agent.types import Tool, ToolContext
from wisp.audit import AuditLog, MemorySink
from wisp.config import Config
from wisp.models.script import resolve as resolve_script
from wisp.policy.patterns import CommandPatterns
from wisp.sandbox.plan import probe_uncached
from wisp.sandbox.writable import WritableSet
from wisp.store import ConversationStore, PendingEntry
from wisp.tools.command_runner import CommandRunner, CommandSettings
from wisp.tools.current_date import CurrentDateTool


class EchoTool:
    """A real tool for tests: says back what it was given (or fails on ``fail``)."""

    name = "echo"
    description = "Says back its text."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }
    read_only = True

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        text = str(arguments.get("text", ""))
        if text == "raise":
            raise RuntimeError("the echo broke")
        if text == "fail":
            return "error: asked to fail"
        return text


def real_runner(working_directory: Path, home: Path) -> CommandRunner:
    """The real command path: the policy and the sandbox, no approval asked."""
    return CommandRunner(
        patterns=CommandPatterns.compile(),
        gate=None,
        writable=WritableSet.build(
            working_directory=working_directory, home=home, environ=os.environ
        ),
        support=probe_uncached(),
        settings=CommandSettings(),
        environ=os.environ,
    )


@pytest.fixture
def sink() -> MemorySink:
    return MemorySink()


@pytest.fixture
def write_script(tmp_path: Path) -> Callable[..., Path]:
    def write(*responses: dict[str, Any], **top: Any) -> Path:
        path = tmp_path / "script.json"
        path.write_text(json.dumps({"responses": list(responses), **top}))
        return path

    return write


@pytest.fixture
def make_conversation(
    tmp_path: Path, sink: MemorySink, events: list[AgentEvent]
) -> Callable[..., Conversation]:
    """A conversation over a ``script:`` model whose recorded events go to ``sink`` and, as to
    a face, to ``events`` (where a turn's ``emit`` puts the reply's fragments too)."""

    async def make(
        script: Path,
        tools: list[Tool] | None = None,
        store: ConversationStore | None = None,
        *,
        memory: bool = False,
        max_steps: int = 5,
    ) -> Conversation:
        model = await resolve_script(str(script))
        tools = [CurrentDateTool(), EchoTool()] if tools is None else tools
        instructions = system_prompt(
            has_tools=bool(tools), has_memory=memory, extension=None, instructions=None
        )
        if store is None:
            store = ConversationStore()
            store.add(
                PendingEntry("instructions", instructions), turn=None, origin="carried", time=None
            )
        return Conversation(
            model=model,
            tools=tools,
            store=store,
            recorder=Recorder(AuditLog(sink, session="5e55105e5e55105e"), events.append),
            instructions=instructions,
            home=tmp_path / "home",
            config=Config(tmp_path / "config.json", {}),
            working_directory=tmp_path,
            audit_file=None,
            max_steps=max_steps,
            memory=memory,
        )

    return make  # type: ignore[return-value]


@pytest.fixture
def events() -> list[AgentEvent]:
    return []
