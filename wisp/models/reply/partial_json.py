"""JSON (and Python literals) read before they are whole: where a bracketed value ends, and
whether an unfinished object may still become a call, so text that cannot is let go early."""

from __future__ import annotations

import json
import re

from wisp.models.reply.values import CALL_KEYS, Offered, calls_from_json

SPACE = " \t\r\n"


def value_end(text: str, at: int, *, python: bool = False) -> int | None:
    """Index after the bracketed value opening at ``at``; ``None`` if the text ends first."""
    quotes = "\"'" if python else '"'
    depth, quote, escaped = 0, "", False
    for index in range(at, len(text)):
        char = text[index]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in quotes:
            quote = char
        elif char in "{[(":
            depth += 1
        elif char in "}])":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def may_be_call(text: str, at: int, offered: Offered) -> bool:
    """Can the object at ``at``, whole or not, be (or become) a call?"""
    end = value_end(text, at)
    if end is None:
        return object_may_be_call(text, at, offered)
    try:
        return calls_from_json(json.loads(text[at:end]), offered) is not None
    except json.JSONDecodeError:
        return False


def object_may_be_call(text: str, at: int, offered: Offered, *, any_name: bool = False) -> bool:
    """Can the unfinished object at ``at`` still be a call? Its keys so far must all be a call's,
    and a ``name`` must be (or begin) an offered tool's: so an example in prose is let go early.
    With ``any_name`` (the reply has nothing else) any name will do: a call of no offered tool
    is held too, to become a failed call (``values.failed_call``)."""
    index, state, key = at + 1, "key", ""
    while True:
        index = skip_space(text, index)
        if index >= len(text):
            return True
        char = text[index]
        if state == "key":
            if char != '"':
                return False
            key, index = _string_at(text, index)
            if index is None:
                return any(known.startswith(key) for known in CALL_KEYS)
            if key not in CALL_KEYS:
                return False
            state = "colon"
        elif state == "colon":
            if char != ":":
                return False
            index, state = index + 1, "value"
        elif state == "value":
            if key in ("name", "function") and char == '"' and not any_name:
                name, index = _string_at(text, index)
                if index is None:
                    return any(tool.startswith(name) for tool in offered)
                if name not in offered:
                    return False
            else:
                index = _any_value_end(text, index)
                if index is None:
                    return True
            state = "after"
        else:
            if char != ",":
                return False
            index, state = index + 1, "key"


def _string_at(text: str, at: int) -> tuple[str, int | None]:
    """The JSON string at ``at`` (undecoded) and the index after it; ``None`` if unfinished."""
    escaped = False
    for index in range(at + 1, len(text)):
        char = text[index]
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            return text[at + 1 : index], index + 1
    return text[at + 1 :], None


def _any_value_end(text: str, at: int) -> int | None:
    char = text[at]
    if char in "{[":
        return value_end(text, at)
    if char == '"':
        return _string_at(text, at)[1]
    match = re.compile(r"[^,}\]\s]*").match(text, at)
    end = match.end() if match else at
    return None if end >= len(text) else end


def skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in SPACE:
        index += 1
    return index
