"""What every backend does to a reply, whatever its runtime.

See docs/models.md, "Backends".

- ``complete_arguments``: fill a call's missing required arguments from the tool's schema.
- ``is_overflow_message``: does a runtime's error say the prompt did not fit?
- ``MistralCallFilter``: hold reply text while it could be Mistral ``name[ARGS]{…}`` calls.
- ``TextCallFilter``: the embedded model's calls written in its reply (``<tool_call>`` blocks,
  the Mistral form, or one bare JSON object naming a tool).
- ``ThinkSplitter``: split a leading ``<think>…</think>`` out of the reply as thinking.

Each filter is fed fragments as they stream and says what may be shown now; ``finish`` gives
what was held, and the calls it turned out to be.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from wisp.agent.types import (
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallRequested,
    ToolSpec,
)

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


# -- Mistral text tool calls ------------------------------------------------------------

_MARKER = "[TOOL_CALLS]"
_ARGS = "[ARGS]"
_DECODER = json.JSONDecoder()


class _Unfinished(Exception):
    """The text ended where more of a call was due: it may still become calls."""


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _expect(text: str, at: int, literal: str) -> int | None:
    """Index after ``literal`` at ``at``; ``None`` when something else is there."""
    rest = text[at : at + len(literal)]
    if not literal.startswith(rest):
        return None
    if len(rest) < len(literal):
        raise _Unfinished
    return at + len(literal)


def _scan_mistral(text: str, names: Collection[str]) -> list[ToolCallRequested] | None:
    """The calls ``text`` is made of, or ``None`` if it is not only calls.

    Raises ``_Unfinished`` when the text is a prefix of calls that more text could complete.
    """
    calls: list[ToolCallRequested] = []
    at = _skip_space(text, 0)
    if at == len(text):
        raise _Unfinished
    while at < len(text):
        after_marker = _expect(text, at, _MARKER)
        if after_marker is not None:
            at = _skip_space(text, after_marker)
            if at == len(text):
                raise _Unfinished
        bracket = text.find("[", at)
        if bracket < 0:
            if any(n.startswith(text[at:]) for n in names):
                raise _Unfinished
            return None
        name = text[at:bracket]
        if name not in names:
            return None
        start = _expect(text, bracket, _ARGS)
        arguments, at = (None, at) if start is None else _decode_object(text, start)
        if arguments is None:
            return None
        calls.append(ToolCallRequested(name, arguments))
        at = _skip_space(text, at)
    return calls


def _object_end(text: str, at: int) -> int | None:
    """Index after the JSON object opening at ``at``, or ``None`` if the text ends first."""
    depth, in_string, escaped = 0, False, False
    for index in range(at, len(text)):
        char = text[index]
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _decode_object(text: str, at: int) -> tuple[dict[str, Any] | None, int]:
    """A JSON object at ``at`` and the index after it; ``_Unfinished`` if it may continue."""
    if at == len(text):
        raise _Unfinished
    if text[at] != "{":
        return None, at
    end = _object_end(text, at)
    if end is None:
        raise _Unfinished
    try:
        value = json.loads(text[at:end])
    except json.JSONDecodeError:
        return None, at
    return (value if isinstance(value, dict) else None), end


def parse_mistral_calls(text: str, names: Collection[str]) -> list[ToolCallRequested] | None:
    """The calls a whole reply is made of, or ``None`` when it is (also) ordinary text."""
    try:
        return _scan_mistral(text, names)
    except _Unfinished:
        return None


def could_be_mistral_calls(text: str, names: Collection[str]) -> bool:
    """Could ``text`` still become Mistral calls (or already be them) as more arrives?"""
    try:
        return _scan_mistral(text, names) is not None
    except _Unfinished:
        return True


class MistralCallFilter:
    """Holds reply text while it could be Mistral text calls; releases it once it cannot."""

    def __init__(self, tool_names: Collection[str]) -> None:
        self._names = frozenset(tool_names)
        self._held = ""
        self._released = not self._names  # no tools offered: nothing to hold for

    def feed(self, text: str) -> str:
        """The text that may be shown now."""
        if self._released:
            return text
        self._held += text
        if could_be_mistral_calls(self._held, self._names):
            return ""
        self._released = True
        held, self._held = self._held, ""
        return held

    def finish(self) -> tuple[str, list[ToolCallRequested]]:
        """At the end: the held text, or the calls it was made of."""
        held, self._held = self._held, ""
        calls = None if self._released else parse_mistral_calls(held, self._names)
        return ("", calls) if calls else (held, [])


# -- the embedded model's calls, read from its reply -----------------------------------------

_OPEN_CALL = "<tool_call>"
_CLOSE_CALL = "</tool_call>"
_CALL_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


def _named_call(value: Any, names: Collection[str]) -> ToolCallRequested | None:
    """``{"name": <offered tool>, "arguments": {…}}`` as a call; anything else is not one."""
    if not isinstance(value, dict) or value.get("name") not in names:
        return None
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):  # some templates teach the arguments as JSON text
        try:
            arguments = json.loads(arguments or "{}")
        except json.JSONDecodeError:
            return None
    return ToolCallRequested(value["name"], arguments) if isinstance(arguments, dict) else None


def _bare_json_call(text: str, names: Collection[str]) -> ToolCallRequested | None:
    try:
        return _named_call(json.loads(text), names)
    except json.JSONDecodeError:
        return None


def _tagged_calls(text: str, names: Collection[str]) -> tuple[str, list[ToolCallRequested]]:
    """Take well-formed ``<tool_call>`` blocks out of ``text``; a malformed one stays text."""
    calls: list[ToolCallRequested] = []

    def take(match: re.Match[str]) -> str:
        call = _bare_json_call(match.group(1), names)
        if call is None:
            return match.group(0)
        calls.append(call)
        return ""

    rest = _CALL_BLOCK.sub(take, text)
    return (rest.strip() if calls else rest), calls


def _partial_suffix(text: str, literal: str) -> int:
    """Length of the longest end of ``text`` that begins ``literal`` (held, it may grow)."""
    for size in range(min(len(literal) - 1, len(text)), 0, -1):
        if literal.startswith(text[-size:]):
            return size
    return 0


class TextCallFilter:
    """Reply text → shown text and tool calls, for a runtime that leaves calls in the text.

    Held while the reply could be Mistral calls or one bare JSON call (both must be the whole
    reply); after that, streamed, except from a ``<tool_call>`` tag on, which is held to the end.
    """

    def __init__(self, tool_names: Collection[str]) -> None:
        self._names = frozenset(tool_names)
        self._leading = bool(self._names)
        self._held = ""

    def feed(self, text: str) -> str:
        if not self._names:
            return text
        if self._leading:
            self._held += text
            stripped = self._held.lstrip()
            if not stripped or stripped.startswith("{") or self._could_be_mistral(stripped):
                return ""
            self._leading = False
            text, self._held = self._held, ""
        return self._release_before_tag(text)

    def _could_be_mistral(self, text: str) -> bool:
        return could_be_mistral_calls(text, self._names)

    def _release_before_tag(self, text: str) -> str:
        self._held += text
        tag = self._held.find(_OPEN_CALL)
        keep = len(self._held) - tag if tag >= 0 else _partial_suffix(self._held, _OPEN_CALL)
        shown = self._held[: len(self._held) - keep]
        self._held = self._held[len(shown) :]
        return shown

    def finish(self) -> tuple[str, list[ToolCallRequested]]:
        held, self._held = self._held, ""
        if self._leading:
            stripped = held.strip()
            calls = parse_mistral_calls(stripped, self._names)
            if calls:
                return "", calls
            bare = _bare_json_call(stripped, self._names)
            if bare is not None:
                return "", [bare]
        if _OPEN_CALL in held and _CLOSE_CALL in held:
            return _tagged_calls(held, self._names)
        return held, []


# -- thinking -----------------------------------------------------------------------------

_THINK_OPEN = "<think>"
_THINK_CLOSE = "</think>"


class ThinkSplitter:
    """Splits a leading ``<think>…</think>`` out of streamed text as thinking.

    ``thinking=True`` starts inside the thought, for a template whose generation prompt
    already opened ``<think>`` (the model then writes only the closing tag).
    """

    def __init__(self, *, thinking: bool = False) -> None:
        self._state = "thinking" if thinking else "start"
        self._held = ""

    def feed(self, text: str) -> list[StreamEvent]:
        self._held += text
        events: list[StreamEvent] = []
        if self._state == "start":
            stripped = self._held.lstrip()
            if stripped.startswith(_THINK_OPEN):
                self._state, self._held = "thinking", stripped[len(_THINK_OPEN) :].lstrip("\n")
            elif _THINK_OPEN.startswith(stripped):
                return events  # "<thi": wait and see
            else:
                self._state = "text"
        if self._state == "thinking":
            events += self._feed_thinking()
        if self._state == "text" and self._held:
            events.append(TextDelta(self._held))
            self._held = ""
        return events

    def _feed_thinking(self) -> list[StreamEvent]:
        end = self._held.find(_THINK_CLOSE)
        if end < 0:
            cut = len(self._held) - _partial_suffix(self._held, _THINK_CLOSE)
            thought, self._held = self._held[:cut], self._held[cut:]
            return [ThinkingDelta(thought)] if thought else []
        thought = self._held[:end]
        self._state, self._held = "text", self._held[end + len(_THINK_CLOSE) :].lstrip()
        return [ThinkingDelta(thought)] if thought else []

    def finish(self) -> list[StreamEvent]:
        held, self._held = self._held, ""
        if not held:
            return []
        return [ThinkingDelta(held) if self._state == "thinking" else TextDelta(held)]
