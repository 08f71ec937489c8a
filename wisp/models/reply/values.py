"""A decoded value (JSON, or a Python call's syntax) → the tool calls it is, if any.

A value is a call only when it names a tool offered in this request and its arguments are an
object (or JSON text of one); anything else is ``None``, and the reply keeps it as text, except
a call-shaped object where nothing else could be meant (``failed_call``).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from wisp.agent.types import ToolCallRequested, ToolSpec

CALL_KEYS = frozenset(
    {"name", "arguments", "parameters", "type", "function", "id", "tool_calls", "call_id", "index"}
)
"""The keys a call object may have; any other (``description``, ``age``) makes it an example, or
a tool's definition echoed back, not a call."""

Offered = Mapping[str, ToolSpec]
"""The request's tools by name."""


def arguments_of(value: Any) -> dict[str, Any] | None:
    """Arguments as an object, as JSON text of one, or absent (``{}``); else ``None``."""
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except json.JSONDecodeError:
            return None
    return value if isinstance(value, dict) else None


def call_from_object(value: Any, offered: Offered) -> ToolCallRequested | None:
    """``{"name": …, "arguments"|"parameters": …}``, OpenAI's ``{"type": "function",
    "function": {…}}``, or ``{"function": NAME, "arguments": …}``, naming an offered tool."""
    shape = _call_shape(value)
    if shape is None or shape.name not in offered:
        return None
    arguments = arguments_of(shape.arguments)
    return None if arguments is None else ToolCallRequested(shape.name, arguments)


def failed_call(value: Any, offered: Offered) -> ToolCallRequested | None:
    """A call-shaped object that is no call of an offered tool: a call's keys only, a name, and
    ``arguments`` or ``parameters``, but the name is no offered tool's or the arguments are no
    object. Taken where the reply (or a ``<tool_call>`` block) is that object alone, it becomes a
    failed call, so the model hears what is offered instead of the object being the answer."""
    shape = _call_shape(value)
    if shape is None or not shape.written or not shape.name.strip():
        return None
    arguments = arguments_of(shape.arguments)
    if arguments is None:
        written = shape.arguments
        text = written if isinstance(written, str) else json.dumps(written, ensure_ascii=False)
        return ToolCallRequested(shape.name, {}, unparsed=text)
    return None if shape.name in offered else ToolCallRequested(shape.name, arguments)


class _Shape(msgspec.Struct, frozen=True):
    name: str
    arguments: Any
    written: bool
    """``arguments`` or ``parameters`` was there (a call may leave them out)."""


def _call_shape(value: Any) -> _Shape | None:
    """The name and arguments of an object shaped as a call: a call's keys only, a name, and
    not both ``arguments`` and ``parameters``; whether the name is offered is not asked."""
    if not isinstance(value, dict) or not set(value) <= CALL_KEYS:
        return None
    function = value.get("function")
    if isinstance(function, dict) and "name" not in value:
        return _call_shape(function)
    name = value.get("name", function)
    if not isinstance(name, str) or ("arguments" in value and "parameters" in value):
        return None
    written = "arguments" in value or "parameters" in value
    return _Shape(name, value.get("arguments", value.get("parameters")), written)


def is_failed(call: ToolCallRequested, offered: Offered) -> bool:
    """Is ``call`` a failed one (``failed_call``, ``broken_call``), not to be run?"""
    return call.unparsed is not None or call.name not in offered


_NAME = re.compile(r'"name"\s*:\s*"([^"\\]{1,200})"')
_ARGUMENTS = re.compile(r'"(?:arguments|parameters)"\s*:')


def broken_call(source: str) -> ToolCallRequested | None:
    """An object that is not JSON but written as a call (``{"name": "read_file", "arguments":
    {"path": a.txt}}``, a brace missing): a failed call whose arguments did not parse."""
    source = source.strip()
    if not source.startswith("{"):
        return None
    try:
        json.loads(source)
    except json.JSONDecodeError:
        name = _NAME.search(source)
        if name is not None and _ARGUMENTS.search(source):
            return ToolCallRequested(name.group(1), {}, unparsed=source)
    return None  # JSON: ``failed_call`` decides


def calls_from_json(value: Any, offered: Offered) -> list[ToolCallRequested] | None:
    """An object, a list of them, or ``{"tool_calls": [...]}``: every item a call, or ``None``."""
    if isinstance(value, dict) and set(value) == {"tool_calls"}:
        value = value["tool_calls"]
    items = value if isinstance(value, list) else [value]
    calls = [call_from_object(item, offered) for item in items]
    if not calls or any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]


def calls_from_python(source: str, offered: Offered) -> list[ToolCallRequested] | None:
    """``[read_file(path="a.txt"), …]`` or ``read_file(path="a.txt")``: calls of offered tools
    whose arguments are literals only (nothing is evaluated)."""
    try:
        tree = ast.parse(source.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return None
    nodes = tree.elts if isinstance(tree, ast.List | ast.Tuple) else [tree]
    calls = [_python_call(node, offered) for node in nodes]
    if not calls or any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]


def _python_call(node: ast.expr, offered: Offered) -> ToolCallRequested | None:
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return None
    tool = offered.get(node.func.id)
    if tool is None or any(keyword.arg is None for keyword in node.keywords):
        return None
    try:
        positional = [ast.literal_eval(arg) for arg in node.args]
        arguments = {str(k.arg): ast.literal_eval(k.value) for k in node.keywords}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    order = _parameter_order(tool)
    if len(positional) > len(order):
        return None
    for name, value in zip(order, positional, strict=False):
        if name in arguments:
            return None
        arguments[name] = value
    return ToolCallRequested(tool.name, arguments)


def _parameter_order(tool: ToolSpec) -> list[str]:
    """Where positional arguments go: the required parameters, then the rest, as declared."""
    properties = tool.parameters.get("properties")
    names = list(properties) if isinstance(properties, dict) else []
    required = tool.parameters.get("required")
    first = [name for name in required if name in names] if isinstance(required, list) else []
    return first + [name for name in names if name not in first]


def parameter_value(tool: ToolSpec, name: str, text: str) -> Any:
    """A ``<parameter=NAME>`` body: text for a string parameter, else the JSON it spells."""
    properties = tool.parameters.get("properties")
    prop = properties.get(name) if isinstance(properties, dict) else None
    if isinstance(prop, dict) and prop.get("type") == "string":
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
