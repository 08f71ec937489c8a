"""What every request of a conversation tells the model: the instructions (wisp's own text,
then the operator's, the guidance files' and the caller's layers) and the tools' specs.

Both are fixed for a conversation: nothing in them counts, dates or numbers the requests, so a
runtime's prompt cache keeps them from one request to the next. On a small window the tools are
offered without their optional extras (docs/turn.md, "What a request carries").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from wisp.agent.types import Tool, ToolSpec

OWN_PROMPT = (
    "You are Wisp, a concise assistant on this computer. Use a tool when it helps, with exact "
    "arguments. The person sees tool output: comment on it, do not repeat it. If a command is "
    "refused, say so. To a greeting or a message asking for nothing, reply briefly and ask "
    "what they want."
)
NO_TOOLS = " This conversation has no tools; answer directly from what you know."
MEMORY_RULE = (
    "Earlier turns may reach you only as references or summaries; when a question needs detail "
    "they leave out, recall the entry or turn they name with memory instead of guessing or "
    "running a tool again."
)
SMALL_WINDOW = 8192
"""A window of this many tokens or fewer is offered each tool's core parameters only."""


def system_prompt(
    *,
    has_tools: bool,
    has_memory: bool,
    extension: str | None,
    instructions: str | None,
    guidance: str | None = None,
) -> str:
    """The instructions text: wisp's own, the operator's, the guidance files' (each under a
    heading naming its file: docs/turn.md, "Guidance files") and the caller's, joined by a
    blank line, empty layers left out."""
    own = OWN_PROMPT if has_tools else OWN_PROMPT + NO_TOOLS
    if has_memory:
        own += "\n" + MEMORY_RULE
    layers = [own]
    if extension and extension.strip():
        layers.append("Guidance for this machine:\n" + extension.strip())
    if guidance and guidance.strip():
        layers.append(guidance.strip())
    if instructions and instructions.strip():
        layers.append("Instructions for this conversation:\n" + instructions.strip())
    return "\n\n".join(layers)


def instructions_for(tools: Sequence[Tool], extension: str | None = None) -> str:
    """The instructions a conversation offering ``tools`` starts with: the memory rule only when
    the memory tool is among them, and no caller's layer."""
    has_memory = any(tool.name == "memory" for tool in tools)
    return system_prompt(
        has_tools=bool(tools), has_memory=has_memory, extension=extension, instructions=None
    )


def tool_specs(tools: Iterable[Tool], window: int | None) -> list[ToolSpec]:
    """The tools as every request of a conversation on a ``window``-token model offers them:
    whole on a large window or an unknown one, trimmed by ``small_window_schema`` (and a long
    description cut to its ``small_description``) on one of ``SMALL_WINDOW`` tokens or fewer,
    where every token of the prompt costs reading time."""
    small = window is not None and window <= SMALL_WINDOW
    schema = small_window_schema if small else _whole_schema
    return [ToolSpec(tool.name, _description(tool, small), schema(tool)) for tool in tools]


def _description(tool: Tool, small: bool) -> str:
    """A tool's description; on a small window its ``small_description`` where it has one (a
    server's tool, whose own description can run to a paragraph)."""
    return (
        getattr(tool, "small_description", None) or tool.description if small else tool.description
    )


def _whole_schema(tool: Tool) -> dict[str, Any]:
    return tool.parameters


def small_window_schema(tool: Tool) -> dict[str, Any]:
    """``tool``'s schema without the optional parameters it lists in ``extra_parameters``
    (``workingDirectory``, ``timeoutSeconds``, …). Only the offer shrinks: the tool checks a
    call against its whole schema, so a call that sends one of them is still taken."""
    schema = tool.parameters
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    extras = set(getattr(tool, "extra_parameters", ()))
    trimmed = dict(schema)
    trimmed["properties"] = {
        name: _without_default(p) for name, p in properties.items() if name not in extras
    }
    required = schema.get("required")
    if isinstance(required, list):
        trimmed["required"] = [name for name in required if name not in extras]
    return trimmed


def _without_default(prop: Any) -> Any:
    # A default is the tool's to apply; saying it costs tokens the model can do without.
    if not isinstance(prop, dict) or "default" not in prop:
        return prop
    return {key: value for key, value in prop.items() if key != "default"}
