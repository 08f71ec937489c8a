"""What every backend does to a call and an error, whatever its runtime.

See docs/models.md, "Backends"; the reply's text itself goes through ``wisp.models.reply``.

- ``complete_arguments``: fill a call's missing required arguments from the tool's schema.
- ``is_overflow_message``: does a runtime's error say the prompt did not fit?
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from wisp.agent.types import ToolCallRequested, ToolSpec

# -- argument completion -------------------------------------------------------------------

_EMPTY_BY_TYPE: dict[str, Any] = {"string": "", "array": [], "boolean": False}


def complete_arguments(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` with each missing *required* string, array or boolean set to its empty value.

    Small models leave out arguments they think obvious; an empty value lets the tool say what
    is wrong. A missing number or enum stays missing: no empty value is safe to guess.
    """
    properties = schema.get("properties")
    required = schema.get("required")
    if not isinstance(properties, dict) or not isinstance(required, list):
        return arguments
    completed = dict(arguments)
    for name in required:
        prop = properties.get(name)
        if name in completed or not isinstance(prop, dict) or "enum" in prop:
            continue
        kind = prop.get("type")
        if isinstance(kind, list):  # ["string", "null"]: the first non-null type decides
            kind = next((k for k in kind if k != "null"), None)
        if isinstance(kind, str) and kind in _EMPTY_BY_TYPE:
            empty = _EMPTY_BY_TYPE[kind]
            completed[name] = list(empty) if isinstance(empty, list) else empty
    return completed


def complete_call(call: ToolCallRequested, tools: Collection[ToolSpec]) -> ToolCallRequested:
    """``call`` with its arguments completed from the offered tool of that name, if any."""
    for tool in tools:
        if tool.name == call.name:
            completed = complete_arguments(call.arguments, tool.parameters)
            return call if completed == call.arguments else ToolCallRequested(call.name, completed)
    return call


# -- overflow --------------------------------------------------------------------------------

_WINDOW_WORDS = ("context size", "context length", "context window", "context_length")
_EXCESS_WORDS = ("exceed", "too long", "overflow", "larger than", "greater than")
# LM Studio's words, also what a script's error may say.
_PROVIDED = re.compile(r"provided [\d,]+ tokens, but the maximum allowed is [\d,]+")


def is_overflow_message(message: str, error_type: str | None = None) -> bool:
    """True when a runtime's error means the prompt did not fit the window."""
    if error_type == "exceed_context_size_error":
        return True
    lowered = message.lower()
    if _PROVIDED.search(lowered):
        return True
    return any(w in lowered for w in _WINDOW_WORDS) and any(w in lowered for w in _EXCESS_WORDS)
