"""Tools for an embedded model whose chat template cannot place them (docs/models.md, "The
embedded model's tools").

Such a template drops the request's ``tools``. Here wisp writes them into the system message
itself, as a compact list and one instruction: to call a tool, reply with a bare JSON object
``{"name": ..., "arguments": {...}}``. The reply parser finds the call in the text.

``call_rules`` is the GBNF of one call object naming an offered tool, with arguments its JSON
Schema allows, for every model: ``wisp.models.local_calls`` holds a call to it once the reply
opens one, whatever the template.

Nothing here imports llama-cpp-python at module level, so wisp imports without the extra.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from wisp.agent.types import Message, ModelError, ToolSpec

PROBE_TOOL = "wisp_probe_tool_0f6c"
"""A name no template writes by chance: seen in the rendered prompt, the template places tools."""

CALL_FORM = '{"name": "TOOL_NAME", "arguments": {...}}'

_ARGUMENT_KEYS = ("arguments", "parameters")
"""Where a call object's arguments go: ``arguments`` (most families, and wisp's own prompt) or
``parameters`` (Llama 3.x); the reply parser reads both."""

_LOOSE_CHAR = 'char ::= [^"\\\\] |'
_JSON_CHAR = 'char ::= [^"\\\\\\x7F\\x00-\\x1F] |'
"""A string's character as JSON has it: no raw control character (a newline is written
``\\n``), where llama-cpp-python's converter lets any through."""


def template_places_tools(template: str) -> bool:
    """Whether ``template`` writes the request's tools: render it with a probe tool and look."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    probe = {
        "type": "function",
        "function": {
            "name": PROBE_TOOL,
            "description": "A probe.",
            "parameters": {"type": "object", "properties": {}},
        },
    }
    formatter = Jinja2ChatFormatter(template=template, eos_token="", bos_token="")
    try:
        rendered = formatter(messages=[{"role": "user", "content": "Hi."}], tools=[probe])
    except Exception:  # a template that raises on tools cannot place them either
        return False
    return PROBE_TOOL in rendered.prompt


def tools_block(tools: list[ToolSpec]) -> str:
    """The tools as the system message lists them: one line each, then how to call."""
    lines = ["You can call these tools:"]
    lines += [f"- {_signature(tool)}: {tool.description}" for tool in tools]
    lines.append(
        f"To call a tool, reply with only a JSON object on its own: {CALL_FORM}. "
        "Otherwise answer in plain text."
    )
    return "\n".join(lines)


def _signature(tool: ToolSpec) -> str:
    """``read_file(path: string, offset?: integer)``: names, types, ``?`` when optional."""
    properties = tool.parameters.get("properties") or {}
    required = set(tool.parameters.get("required") or [])
    params = [
        f"{name}{'' if name in required else '?'}: {_type_of(schema)}"
        for name, schema in properties.items()
    ]
    return f"{tool.name}({', '.join(params)})"


def _type_of(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "any"
    if isinstance(schema.get("enum"), list):
        return "|".join(str(value) for value in schema["enum"])
    kind = schema.get("type", "any")
    return "|".join(kind) if isinstance(kind, list) else str(kind)


def with_tools(messages: list[Message], tools: list[ToolSpec]) -> list[Message]:
    """The chat as a template without tools can take it.

    The tools' list joins the (first) system message; an assistant's calls are written in the
    reply as the call form, as the model was told to write them; tool results become user
    messages (templates without tools often refuse a ``tool`` role), consecutive ones merged.
    """
    block = tools_block(tools)
    out: list[Message] = []
    placed = False
    for message in messages:
        if message.role == "system" and not placed:
            out.append(Message(role="system", content=f"{message.content}\n\n{block}".lstrip()))
            placed = True
        elif message.role == "assistant" and message.tool_calls:
            calls = [
                json.dumps({"name": call.name, "arguments": call.arguments})
                for call in message.tool_calls
            ]
            out.append(Message(role="assistant", content="\n".join([message.content, *calls])))
        elif message.role == "tool":
            result = f"Result of {message.tool_name or 'the tool'}:\n{message.content}"
            if out and out[-1].role == "user" and out[-1].content.startswith("Result of "):
                out[-1] = Message(role="user", content=f"{out[-1].content}\n\n{result}")
            else:
                out.append(Message(role="user", content=result))
        else:
            out.append(message)
    if not placed:
        out.insert(0, Message(role="system", content=block))
    return out


def call_rules(key: str) -> str:
    """GBNF rules whose ``call`` is one call object of the tools in ``key`` (JSON of their
    ``[name, parameters]`` pairs, in order): ``{"name": ..., "arguments": {...}}``, the name an
    offered tool's, the arguments (or ``parameters``) an object its JSON Schema allows."""
    return _call_rules(key)


@functools.cache
def _call_rules(key: str) -> str:
    from llama_cpp.llama_grammar import SchemaConverter

    tools: list[list[Any]] = json.loads(key)
    choices = [
        {
            "type": "object",
            "properties": {"name": {"const": name}, arguments: _arguments(parameters)},
            "required": ["name", arguments],
        }
        for name, parameters in tools
        for arguments in _ARGUMENT_KEYS
    ]
    order = {"name": 0} | {arguments: 1 for arguments in _ARGUMENT_KEYS}
    converter = SchemaConverter(
        prop_order=order, allow_fetch=False, dotall=False, raw_pattern=False
    )
    converter.visit(converter.resolve_refs({"oneOf": choices}, "tools"), "call")
    rules = converter.format_grammar()
    if _LOOSE_CHAR not in rules and "char ::=" in rules:
        raise AssertionError("llama-cpp-python's string rule changed: see _JSON_CHAR")
    return rules.replace(_LOOSE_CHAR, _JSON_CHAR, 1)


def schema_grammar(schema: dict[str, Any]) -> str:
    """GBNF holding the whole reply to one JSON value fitting ``schema`` (a shaped reply)."""
    return _schema_grammar(json.dumps(schema, sort_keys=True))


@functools.cache
def _schema_grammar(key: str) -> str:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    try:
        return json_schema_to_gbnf(key)
    except Exception as exc:  # the converter raises plain errors for what it cannot express
        raise ModelError(f"local: cannot hold a reply to this JSON Schema: {exc}") from exc


def _arguments(parameters: Any) -> dict[str, Any]:
    """A tool's schema as the grammar takes it: an object, whatever else it says."""
    if not isinstance(parameters, dict) or parameters.get("type", "object") != "object":
        return {"type": "object"}
    return parameters
