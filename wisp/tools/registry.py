"""The tools a conversation offers: built-ins and plugins, registered the same way.

A tool is registered by name with a factory that makes it from the config in force, or
returns None when that config leaves it out (``memory`` without ``context.memory``). The
built-ins register through ``register`` in ``BUILTIN_TOOLS``'s order, exactly as a
plugin's ``register(registry)`` would; there is no global registry, each caller builds one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from wisp.agent.types import Tool
from wisp.config import Config
from wisp.notify.notifier import Notifier
from wisp.policy.gate import ApprovalGate
from wisp.policy.types import Asker
from wisp.tools.ask import AskTool
from wisp.tools.command_runner import CommandRunner
from wisp.tools.current_date import CurrentDateTool
from wisp.tools.edit_file import EditFileTool
from wisp.tools.inspect import InspectTool
from wisp.tools.memory import MemoryTool
from wisp.tools.models import ModelActions, ModelsTool
from wisp.tools.notify import NotifyTool
from wisp.tools.read_file import ReadFileTool
from wisp.tools.run_command import RunCommandTool
from wisp.tools.system_info import SystemInfoTool

ToolFactory = Callable[[Config], Tool | None]
"""Makes a tool from the config in force; None leaves it out of this conversation."""

BUILTIN_TOOLS = (
    "current_date", "run_command", "read_file", "edit_file", "inspect", "models", "notify",
    "system_info", "ask", "memory",
)  # fmt: skip
"""The built-ins this wisp has, in the order they are offered to the model. ``run_command``,
``models``, ``notify`` and ``ask`` need what the face provides: a command runner, the models
commands (and the runner's gate to ask the person), a notifier, an asker."""


class ToolRegistry:
    """Tool factories by name, in the order they were registered."""

    def __init__(self) -> None:
        self._factories: dict[str, ToolFactory] = {}

    def register(self, name: str, factory: ToolFactory) -> None:
        """Add a tool; a name already taken is a mistake in the plugin that repeats it."""
        if name in self._factories:
            raise ValueError(f"tool {name!r} is registered twice")
        self._factories[name] = factory

    @property
    def names(self) -> list[str]:
        return list(self._factories)

    def tools(self, config: Config) -> list[Tool]:
        """Every registered tool the config lets in, in registration order."""
        made: list[Tool] = []
        for name, factory in self._factories.items():
            tool = factory(config)
            if tool is None:
                continue
            if tool.name != name:
                raise ValueError(f"tool registered as {name!r} calls itself {tool.name!r}")
            made.append(tool)
        return made


def register(
    registry: ToolRegistry,
    *,
    runner: CommandRunner | None = None,
    asker: Asker | None = None,
    notifier: Notifier | None = None,
    models: ModelActions | None = None,
) -> None:
    """Register the built-in tools, in ``BUILTIN_TOOLS``'s order. Without a ``runner`` there is no
    ``run_command``, without ``models`` and a runner's gate no ``models``, without a
    ``notifier`` no ``notify``, and without an ``asker`` no ``ask``."""
    registry.register("current_date", lambda config: CurrentDateTool())
    if runner is not None:
        registry.register("run_command", lambda config: RunCommandTool(runner))
    registry.register("read_file", lambda config: ReadFileTool())
    registry.register("edit_file", _edit_file)
    registry.register("inspect", lambda config: InspectTool())
    if models is not None and runner is not None and runner.gate is not None:
        gate = runner.gate
        registry.register("models", lambda config: _models(config, models, gate))
    if notifier is not None:
        registry.register("notify", lambda config: _notify(config, notifier))
    registry.register("system_info", lambda config: SystemInfoTool())
    if asker is not None:
        registry.register("ask", lambda config: AskTool(asker))
    registry.register("memory", _memory)


def default_tools(
    config: Config,
    *,
    runner: CommandRunner | None = None,
    asker: Asker | None = None,
    notifier: Notifier | None = None,
    models: ModelActions | None = None,
) -> list[Tool]:
    """The built-in tools this config gives a conversation."""
    registry = ToolRegistry()
    register(registry, runner=runner, asker=asker, notifier=notifier, models=models)
    return registry.tools(config)


def _edit_file(config: Config) -> Tool:
    settings = config.settings
    roots = settings.tools.edit_file.writable_roots
    allow_home = settings.command_policy.sandbox.allow_home
    return EditFileTool(writable_roots=[Path(root) for root in roots], allow_home=allow_home)


def _notify(config: Config, notifier: Notifier) -> Tool | None:
    # Off by default: a small model offered it calls it when it should answer.
    notify = config.settings.notify
    return NotifyTool(notifier, notify.per_turn) if notify.enabled else None


def _models(config: Config, models: ModelActions, gate: ApprovalGate) -> Tool | None:
    # Off by default: a model offered it could fill the disk with pulls the person must answer.
    return ModelsTool(models, gate) if config.settings.models.tool else None


def _memory(config: Config) -> Tool | None:
    # A conversation has memory only when the config asks for it.
    return MemoryTool() if config.settings.context.memory else None
