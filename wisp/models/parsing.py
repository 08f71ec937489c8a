"""What every backend does to a call and an error, whatever its runtime.

See docs/models.md, "Backends"; the reply's text itself goes through ``wisp.models.reply``.

- ``complete_arguments``: fill a call's missing required arguments from the tool's schema.
- ``is_overflow_message``: does a runtime's error say the prompt did not fit?
- ``overflow_counts``: the prompt's tokens and the window, where the error says them;
  ``overflow_error`` raises them as ``ContextOverflow``'s ``tokens`` and ``window``.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from wisp.agent.types import ContextOverflow, ToolCallRequested, ToolSpec

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
_EXCESS_WORDS = ("exceed", "too long", "overflow", "larger than", "greater than", "longer than")
# LM Studio's words, also what a script's error may say.
_PROVIDED = re.compile(r"provided [\d,]+ tokens, but the maximum allowed is [\d,]+")

_N = r"(\d[\d,]*)"
# Each says the prompt's tokens, then the window.
_COUNTS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # llama.cpp's llama-server (and Ollama with truncate off, which passes it on)
        rf"request \({_N} tokens\) exceeds the available context size \({_N} tokens\)",
        # what wisp.models.http appends from llama-server's n_prompt_tokens and n_ctx
        rf"\({_N} prompt tokens, a window of {_N}\)",
        # llama-cpp-python's own, before its server rewords it
        rf"requested tokens \({_N}\) exceed context window of {_N}",
        # LM Studio
        rf"provided {_N} tokens, but the maximum allowed is {_N}",
        rf"keep the first {_N} tokens .*? context length of only {_N} tokens",
        # wisp's local backend
        rf"the prompt takes {_N} tokens of the {_N}-token window",
    )
)
# OpenAI's, vLLM's and llama-cpp-python's server's: the window, then the request in one of
# several wordings; the messages' share where it is given apart from the completion's.
_MAXIMUM = re.compile(rf"maximum context length is {_N} tokens", re.IGNORECASE)
_REQUESTED = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\({_N} in the messages",
        rf"your request has {_N} input tokens",
        rf"you requested {_N} tokens",
        rf"resulted in {_N} tokens",
    )
)
_LOADED = re.compile(rf"(?:reached )?context length of (?:only )?{_N} tokens", re.IGNORECASE)


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def overflow_counts(message: str) -> tuple[int | None, int | None]:
    """The prompt's tokens and the window, as a runtime's overflow message says them.

    Either may be None when the message does not say it. Where a message gives the prompt
    apart from the reply it asked room for (``2631 in the messages, 512 in the completion``),
    the prompt's share is the count: the reply's room is the caller's to add.
    """
    for pattern in _COUNTS:
        found = pattern.search(message)
        if found:
            return _number(found[1]), _number(found[2])
    maximum = _MAXIMUM.search(message)
    if maximum:
        for pattern in _REQUESTED:
            requested = pattern.search(message)
            if requested:
                return _number(requested[1]), _number(maximum[1])
        return None, _number(maximum[1])
    loaded = _LOADED.search(message)
    return None, (_number(loaded[1]) if loaded else None)


def overflow_error(message: str) -> ContextOverflow:
    """``message`` as a ``ContextOverflow`` carrying the counts it says (for the agent)."""
    tokens, window = overflow_counts(message)
    return ContextOverflow(message, tokens=tokens, window=window)


def is_overflow_message(message: str, error_type: str | None = None) -> bool:
    """True when a runtime's error means the prompt did not fit the window."""
    if error_type == "exceed_context_size_error":
        return True
    lowered = message.lower()
    if _PROVIDED.search(lowered) or _MAXIMUM.search(lowered):
        return True
    if None not in overflow_counts(message):  # a count against a window: one did not fit
        return True
    return any(w in lowered for w in _WINDOW_WORDS) and any(w in lowered for w in _EXCESS_WORDS)
