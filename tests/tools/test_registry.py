"""The registry: the built-ins in the spec's order, memory only when configured, plugins."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from wisp.agent.types import ToolContext
from wisp.config import Config
from wisp.config.sections import Notify
from wisp.errors import ConfigValueError
from wisp.notify.notifier import Notifier
from wisp.tools import BUILTIN_TOOLS, ToolRegistry, default_tools, register
from wisp.tools.command_runner import CommandRunner
from wisp.tools.edit_file import EditFileTool
from wisp.tools.models import ModelActions

NOTIFY_ON = Notify(enabled=True, routes=["app"], per_minute=5, per_turn=2)


def config(data: dict[str, Any] | None = None) -> Config:
    return Config(Path("/nonexistent/config.json"), data or {})


def test_the_built_ins_come_in_the_spec_order_without_memory() -> None:
    names = [tool.name for tool in default_tools(config())]
    assert names == ["current_date", "read_file", "edit_file", "inspect", "system_info"]


def test_memory_comes_last_when_the_config_asks_for_it() -> None:
    names = [tool.name for tool in default_tools(config({"context": {"memory": True}}))]
    assert names[-1] == "memory"


def runner_with_gate(home: Path) -> CommandRunner:
    from wisp.policy.approvals import ApprovalStore
    from wisp.policy.approvers import NobodyApprover
    from wisp.policy.gate import ApprovalGate
    from wisp.policy.patterns import CommandPatterns
    from wisp.sandbox.plan import SandboxSupport
    from wisp.sandbox.writable import WritableSet
    from wisp.tools.command_runner import CommandSettings

    gate = ApprovalGate(
        "moderate", NobodyApprover(), ApprovalStore(home / "approvals.json"), record=lambda e: ""
    )
    return CommandRunner(
        patterns=CommandPatterns.compile(),
        gate=gate,
        writable=WritableSet.build(working_directory="/tmp", home=str(home), environ={}),
        support=SandboxSupport(landlock_abi=None),
        settings=CommandSettings(),
        environ={},
    )


MODELS = cast(ModelActions, object())
"""The face's models commands: the registry only hands them to the tool."""


def test_the_face_given_tools_take_their_places_when_the_face_gives_what_they_need(
    tmp_path: Path,
) -> None:
    from wisp.policy.asking import NobodyAsker

    runner = runner_with_gate(tmp_path)
    notifier = Notifier({}, record=lambda event: None, settings=lambda: NOTIFY_ON)
    on = config(
        {"context": {"memory": True}, "notify": {"enabled": True}, "models": {"tool": True}}
    )
    tools = default_tools(on, runner=runner, asker=NobodyAsker(), notifier=notifier, models=MODELS)
    assert [tool.name for tool in tools] == list(BUILTIN_TOOLS)
    # notify.enabled is off by default: the face's notifier alone does not offer it.
    tools = default_tools(config(), runner=runner, asker=NobodyAsker(), notifier=notifier)
    assert "notify" not in [tool.name for tool in tools]


def test_models_is_offered_only_with_models_tool_on_and_a_gate_to_ask_through(
    tmp_path: Path,
) -> None:
    runner = runner_with_gate(tmp_path)
    on = config({"models": {"tool": True}})

    def offered(config: Config, runner: CommandRunner | None) -> bool:
        tools = default_tools(config, runner=runner, models=MODELS)
        return "models" in [tool.name for tool in tools]

    assert offered(on, runner)
    assert not offered(config(), runner)  # off by default
    assert not offered(on, None)  # no gate: no one to ask


def test_edit_file_gets_the_configured_writable_roots() -> None:
    roots = {"tools": {"editFile": {"writableRoots": ["/srv/site"]}}}
    edit_file = next(tool for tool in default_tools(config(roots)) if tool.name == "edit_file")
    assert isinstance(edit_file, EditFileTool)
    assert edit_file.writable_roots == [Path("/srv/site")]


def test_a_relative_writable_root_is_a_config_error() -> None:
    with pytest.raises(ConfigValueError, match=r"tools\.editFile\.writableRoots"):
        default_tools(config({"tools": {"editFile": {"writableRoots": ["site"]}}}))


def test_every_tool_offers_an_object_schema_and_says_if_it_only_reads() -> None:
    for tool in default_tools(config({"context": {"memory": True}})):
        assert tool.parameters["type"] == "object", tool.name
        assert "$ref" not in str(tool.parameters), tool.name
        assert tool.description, tool.name
    read_only = {t.name for t in default_tools(config()) if t.read_only}
    assert read_only == {"current_date", "read_file", "inspect", "system_info"}


def test_every_description_opens_with_a_whole_sentence() -> None:
    # Chat's /tools shows a tool's description up to its first ". ": an abbreviation such as
    # "e.g. " there would cut it mid-sentence.
    for tool in default_tools(config({"context": {"memory": True}})):
        first = tool.description.split(". ")[0]
        assert not first.endswith(("e.g", "i.e", "etc")), (tool.name, first)


class EchoTool:
    name = "echo"
    description = "Says its text back."
    read_only = True

    def __init__(self) -> None:
        self.parameters = {"type": "object", "properties": {"text": {"type": "string"}}}

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        return str(arguments.get("text", ""))


def test_a_plugin_registers_after_the_built_ins() -> None:
    registry = ToolRegistry()
    register(registry)
    registry.register("echo", lambda config: EchoTool())
    assert [tool.name for tool in registry.tools(config())][-1] == "echo"


def test_a_name_registered_twice_is_refused() -> None:
    registry = ToolRegistry()
    register(registry)
    with pytest.raises(ValueError, match="'read_file' is registered twice"):
        registry.register("read_file", lambda config: EchoTool())


def test_a_tool_must_answer_to_the_name_it_was_registered_under() -> None:
    registry = ToolRegistry()
    registry.register("shout", lambda config: EchoTool())
    with pytest.raises(ValueError, match="registered as 'shout' calls itself 'echo'"):
        registry.tools(config())


def test_a_factory_may_leave_its_tool_out() -> None:
    registry = ToolRegistry()
    registry.register("echo", lambda config: None)
    assert registry.tools(config()) == []
    assert registry.names == ["echo"]
