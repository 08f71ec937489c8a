"""Calls one after another in a reply's text (JSON objects and lists, Python-call syntax,
Mistral's ``NAME[ARGS]{…}``, Llama's and Qwen3-Coder's ``<function=NAME>``), read from a point
where ``calls.read_at`` found no block marker, or inside a block it opened."""

from __future__ import annotations

import json
import re

import msgspec

from wisp.agent.types import ToolCallRequested
from wisp.models.reply.partial_json import (
    SPACE,
    may_be_call,
    object_may_be_call,
    skip_space,
    value_end,
)
from wisp.models.reply.values import (
    Offered,
    arguments_of,
    broken_call,
    calls_from_json,
    calls_from_python,
    failed_call,
    parameter_value,
)
from wisp.models.reply.verdict import MORE, More, Reading, Taken, Text, Verdict, undecided

MISTRAL = "[TOOL_CALLS]"
GRANITE_END = "<|/tool_call|>"
FUNCTION, END_FUNCTION = "<function=", "</function>"
TRAILERS = (GRANITE_END, "<|eom_id|>", "<|eot_id|>")
"""End markers some forms may leave after their calls: dropped with them."""
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


class _Item(msgspec.Struct, frozen=True):
    calls: list[ToolCallRequested]
    end: int
    alone: bool = False
    """A bare ``name(…)``: a call only when nothing else is on its line."""
    failed: bool = False
    """A call-shaped object that is no call of an offered tool: a failed call only when
    nothing else is in the reply (``Reading.alone``)."""


def items(text: str, at: int, reading: Reading, *, bare: bool) -> Verdict:
    """Calls one after another from ``at`` (separated by space, ``,``, ``;``, a repeated
    ``[TOOL_CALLS]``); ``bare`` allows the forms that must begin a line. A run that begins
    with a failed call (``Reading.alone``) is taken only if nothing but calls follows to the
    reply's end; else all of it is text."""
    calls: list[ToolCallRequested] = []
    failing = False
    index = skip_space(text, at)

    def settled() -> Verdict:
        """The calls end where text begins: taken, or text with a failed call among them."""
        if failing:
            return Text(index)
        return Taken(calls, _trailer_end(text, index)) if calls else Text(at + 1)

    while True:
        next_index = _skip_separators(text, index) if calls else index
        if next_index >= len(text) or _partial_separator(text, next_index):
            if not reading.final:
                return MORE
            return Taken(calls, _trailer_end(text, index)) if calls else Text(at + 1)
        item = _item(text, next_index, reading, bare=bare or bool(calls))
        if isinstance(item, More):
            if reading.final and calls:
                return settled()
            return undecided(at, reading) if not calls else MORE
        if item is None:
            return settled()
        if isinstance(item, Text):
            return item if not calls else settled()
        if item.failed and calls and not failing:  # only alone: after calls it ends them
            return settled()
        if item.alone:
            line_end = _rest_of_line_blank(text, item.end)
            if line_end is None:
                return Text(at + 1) if not calls else settled()
            if isinstance(line_end, More) and not reading.final:
                return MORE
        failing = failing or item.failed
        calls += item.calls
        index = item.end


def _skip_separators(text: str, index: int) -> int:
    while index < len(text):
        if text[index] in SPACE + ",;":
            index += 1
        elif text.startswith(MISTRAL, index):
            index += len(MISTRAL)
        else:
            break
    return index


def _partial_separator(text: str, index: int) -> bool:
    """The text ends inside a marker that would continue the calls."""
    rest = text[index:]
    return any(m.startswith(rest) and m != rest for m in (MISTRAL, *TRAILERS))


def _trailer_end(text: str, index: int) -> int:
    """After the calls: an end marker some forms add goes with them."""
    at = skip_space(text, index)
    for trailer in TRAILERS:
        if text.startswith(trailer, at):
            return at + len(trailer)
    return index


def _rest_of_line_blank(text: str, index: int) -> int | More | None:
    newline = text.find("\n", index)
    rest = text[index : len(text) if newline < 0 else newline]
    if rest.strip():
        return None
    return MORE if newline < 0 else newline


def _item(text: str, at: int, reading: Reading, *, bare: bool) -> _Item | Text | More | None:
    """One call (or list of calls) at ``at``; ``None`` when none begins there."""
    char = text[at]
    if char == "{":
        return _json_item(text, at, reading)
    if char == "[":
        return _bracket_item(text, at, reading, bare=bare)
    if text.startswith(FUNCTION, at) or (char == "<" and FUNCTION.startswith(text[at:])):
        return _function_tag(text, at, reading)
    if bare and IDENTIFIER.match(text, at):
        return _named_item(text, at, reading)
    return None


def _json_item(text: str, at: int, reading: Reading) -> _Item | Text | More | None:
    end = value_end(text, at)
    if end is None:
        if reading.final:
            return None
        may = object_may_be_call(text, at, reading.offered, any_name=reading.alone)
        return MORE if may else None
    try:
        value = json.loads(text[at:end])
    except json.JSONDecodeError:
        broken = broken_call(text[at:end]) if reading.alone else None
        return _Item([broken], end, failed=True) if broken else None
    calls = calls_from_json(value, reading.offered)
    if calls:
        return _Item(calls, end)
    failed = failed_call(value, reading.offered) if reading.alone else None
    return _Item([failed], end, failed=True) if failed else Text(end)


def _bracket_item(
    text: str, at: int, reading: Reading, *, bare: bool
) -> _Item | Text | More | None:
    inner = skip_space(text, at + 1)
    if inner >= len(text):
        return None if reading.final else MORE
    if text[inner] == "{":
        end = value_end(text, at)
        if end is None:
            if reading.final or not may_be_call(text, inner, reading.offered):
                return None
            return MORE
        return _json_item(text, at, reading)
    if bare and IDENTIFIER.match(text, inner):
        if not _names_a_tool(text, inner, reading, then="("):
            return None
        end = value_end(text, at, python=True)
        if end is None:
            return None if reading.final else MORE
        calls = calls_from_python(text[at:end], reading.offered)
        return _Item(calls, end) if calls else None
    return None


def _named_item(text: str, at: int, reading: Reading) -> _Item | More | None:
    """``name(…)`` alone on its line, or Mistral's ``name[ARGS]{…}``."""
    match = IDENTIFIER.match(text, at)
    assert match is not None
    name, after = match.group(), match.end()
    if after == len(text):
        could = any(tool.startswith(name) for tool in reading.offered)
        return MORE if could and not reading.final else None
    if name not in reading.offered:
        return None
    if text[after] == "(":
        end = value_end(text, after, python=True)
        if end is None:
            return None if reading.final else MORE
        calls = calls_from_python(text[at:end], reading.offered)
        return _Item(calls, end, alone=True) if calls else None
    return _mistral_item(text, name, after, reading)


_ARGS, _CALL_ID = "[ARGS]", "[CALL_ID]"


def _mistral_item(text: str, name: str, at: int, reading: Reading) -> _Item | More | None:
    """After a tool's name: ``[CALL_ID]id`` (optional), ``[ARGS]``, then the JSON object."""
    rest = text[at:]
    if rest.startswith(_CALL_ID):
        args = text.find(_ARGS, at)
        if args < 0:
            return None if reading.final else MORE
        at = args
    elif _CALL_ID.startswith(rest) or _ARGS.startswith(rest):
        return None if reading.final else MORE
    if not text.startswith(_ARGS, at):
        return None
    start = skip_space(text, at + len(_ARGS))
    if start >= len(text):
        return None if reading.final else MORE
    end = value_end(text, start) if text[start] == "{" else None
    if end is None:
        return MORE if text[start] == "{" and not reading.final else None
    call = named(name, text[start:end], reading.offered)
    return _Item([call], end) if call else None


def _function_tag(text: str, at: int, reading: Reading) -> _Item | More | None:
    """Llama's ``<function=NAME>{…}</function>``; Qwen3-Coder's ``<parameter=KEY>`` body."""
    end = text.find(END_FUNCTION, at)
    if end < 0:
        if not reading.final:
            return MORE
        end = len(text)
    block = text[at:end]
    match = re.match(r"<function=([\w.\-]+)>(.*)$", block, re.DOTALL)
    if match is None or match.group(1) not in reading.offered:
        return None
    name, body = match.group(1), match.group(2).strip()
    after = min(len(text), end + len(END_FUNCTION))
    if body.startswith("<parameter="):
        arguments = _parameters(name, body, reading.offered)
        return _Item([ToolCallRequested(name, arguments)], after) if arguments is not None else None
    call = named(name, body, reading.offered)
    return _Item([call], after) if call else None


_PARAMETER = re.compile(r"<parameter=([\w.\-]+)>\n?(.*?)\n?</parameter>", re.DOTALL)


def _parameters(name: str, body: str, offered: Offered) -> dict[str, object] | None:
    tool = offered[name]
    found = _PARAMETER.findall(body)
    if _PARAMETER.sub("", body).strip():
        return None
    return {key: parameter_value(tool, key, value) for key, value in found}


def _names_a_tool(text: str, at: int, reading: Reading, *, then: str) -> bool:
    """The identifier at ``at`` is (or, unfinished, may become) an offered tool's name."""
    match = IDENTIFIER.match(text, at)
    if match is None:
        return False
    if match.end() == len(text):
        return not reading.final and any(t.startswith(match.group()) for t in reading.offered)
    return match.group() in reading.offered and text.startswith(then, match.end())


def named(name: str, arguments: str, offered: Offered) -> ToolCallRequested | None:
    parsed = arguments_of(arguments.strip())
    if name not in offered or parsed is None:
        return None
    return ToolCallRequested(name, parsed)
