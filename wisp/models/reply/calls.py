"""The forms models write tool calls in, read from a point in the reply's text.

``read_at`` looks at the text from one position and says one of three things: the calls that
begin there (and where they end), that the text up to some point is text, or that it cannot
tell yet (``MORE``: a call may still be written; the stream holds what follows). With
``final`` set no more text will come, so it always decides.

The forms, each from its family's chat template or docs:

- JSON: ``{"name": …, "arguments"|"parameters": …}`` (arguments as an object or JSON text),
  OpenAI's ``{"type": "function", "function": {…}}``, Llama 3.x's ``{"type": "function",
  "name": …, "parameters": …}``, lists of them, ``{"tool_calls": [...]}``; bare, or in a
  ```` ``` ````, ```` ```json ```` or ```` ```tool_call ```` fence.
- ``<tool_call>…</tool_call>`` (Qwen, Hermes, SmolLM), holding JSON or Qwen3-Coder's
  ``<function=NAME><parameter=KEY>value</parameter></function>``.
- Mistral's ``[TOOL_CALLS][{…}]`` and ``[TOOL_CALLS]NAME[ARGS]{…}`` (also without the marker,
  when a runtime drops special tokens, at the start of a line).
- Llama 3.x's ``<|python_tag|>{…}`` and ``<function=NAME>{…}</function>``.
- Python syntax: ``[read_file(path="a.txt")]`` (Llama 3.2, Llama 4), a ```` ```tool_code ````
  fence (Gemma), or a call alone on its line; literals only, read with ``ast``.
- Phi-4's ``functools[{…}]``; Granite's ``<|tool_call|>[{…}]``.
- DeepSeek's ``<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`` and gpt-oss's
  ``<|channel|>commentary to=functions.NAME … <|message|>{…}<|call|>``, when they leak into text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import msgspec

from wisp.agent.types import ToolCallRequested
from wisp.models.reply.values import (
    CALL_KEYS,
    Offered,
    arguments_of,
    calls_from_json,
    calls_from_python,
    parameter_value,
)


class Taken(msgspec.Struct, frozen=True):
    """Calls, written from the position read up to ``end``."""

    calls: list[ToolCallRequested]
    end: int


class Text(msgspec.Struct, frozen=True):
    """The text up to ``end`` is reply text; ``opens_code`` when it opened a code fence."""

    end: int
    opens_code: bool = False


class _More:
    """Undecided: more text may make a call of it."""


MORE = _More()
Verdict = Taken | Text | _More


class Reading(msgspec.Struct, frozen=True):
    """What ``read_at`` needs besides the text."""

    offered: Offered
    final: bool
    line_start: bool
    """At the start of a line (or just after calls): forms that must begin a line may begin."""


FENCE = "```"
CALL_FENCES = frozenset({"", "json", "json5", "tool_call", "tool_calls", "tool_code", "function"})
"""Fence languages that may hold calls; any other fence is code and streams as it comes."""

_TOOL_CALL, _END_TOOL_CALL = "<tool_call>", "</tool_call>"
_MISTRAL = "[TOOL_CALLS]"
_GRANITE, _GRANITE_END = "<|tool_call|>", "<|/tool_call|>"
_PYTHON_TAG = "<|python_tag|>"
_FUNCTOOLS = "functools["
_FUNCTION, _END_FUNCTION = "<function=", "</function>"
_DEEPSEEK, _DEEPSEEK_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
_HARMONY_STARTS = ("<|start|>assistant", "<|channel|>commentary")
_HARMONY_END = "<|call|>"
_TRAILERS = (_GRANITE_END, "<|eom_id|>", "<|eot_id|>")
"""End markers some forms may leave after their calls: dropped with them."""

MARKERS = (
    _TOOL_CALL,
    _MISTRAL,
    _GRANITE,
    _PYTHON_TAG,
    _FUNCTOOLS,
    _FUNCTION,
    _DEEPSEEK,
    *_HARMONY_STARTS,
)
"""Where a call may begin anywhere in a line."""

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_SPACE = " \t\r\n"


def read_at(text: str, at: int, reading: Reading) -> Verdict:
    """Calls beginning at ``at``, text, or ``MORE``. Only called where a call could begin."""
    rest = text[at:]
    for marker in MARKERS:
        if rest.startswith(marker):
            return _marked(text, at, marker, reading)
        if marker.startswith(rest):
            return _undecided(at, reading)
    if reading.line_start and rest.startswith(FENCE[: len(rest)]):
        return _fence(text, at, reading)
    return _items(text, at, reading, bare=reading.line_start)


def may_begin(char: str, line_start: bool) -> bool:
    """Could a call begin at ``char``? Cheap, so ordinary prose passes at once."""
    if char in "{[<f":
        return True
    return line_start and (char == "`" or (char.isascii() and (char.isalpha() or char == "_")))


def _undecided(at: int, reading: Reading) -> Verdict:
    return Text(at + 1) if reading.final else MORE


# -- marked blocks ---------------------------------------------------------------------------


def _marked(text: str, at: int, marker: str, reading: Reading) -> Verdict:
    body = at + len(marker)
    if marker == _TOOL_CALL:
        return _closed(text, at, body, _END_TOOL_CALL, reading, _all_items)
    if marker == _DEEPSEEK:
        return _closed(text, at, body, _DEEPSEEK_END, reading, _deepseek)
    if marker in _HARMONY_STARTS:
        return _harmony(text, at, reading)
    if marker == _FUNCTION:
        return _items(text, at, reading, bare=False)
    if marker == _FUNCTOOLS:
        body -= 1  # the list's own "["
    verdict = _items(text, body, reading, bare=True)
    return Text(at + 1) if isinstance(verdict, Text) else verdict


_BodyParser = Callable[[str, Offered], list[ToolCallRequested] | None]


def _closed(
    text: str, at: int, body: int, closer: str, reading: Reading, parse: _BodyParser
) -> Verdict:
    """A block that ends with ``closer`` (or the reply's end): decided whole, once closed."""
    end = text.find(closer, body)
    if end < 0 and not reading.final:
        return MORE
    stop = len(text) if end < 0 else end
    after = stop if end < 0 else end + len(closer)
    calls = parse(text[body:stop], reading.offered)
    return Taken(calls, after) if calls else Text(after)


def _all_items(body: str, offered: Offered) -> list[ToolCallRequested] | None:
    """The calls ``body`` is made of, all of it; ``None`` if anything else is in it. A fence
    around them (``<tool_call>```json {…}```</tool_call>``, as small models write) is dropped."""
    fenced = _FENCED_JSON.match(body)
    body = fenced.group(1) if fenced else body
    verdict = _items(body, 0, Reading(offered, final=True, line_start=True), bare=True)
    if isinstance(verdict, Taken) and not body[verdict.end :].strip():
        return verdict.calls
    return None


_DEEPSEEK_CALL = re.compile(r"<｜tool▁call▁begin｜>(.*?)(?:<｜tool▁call▁end｜>|$)", re.DOTALL)
_DEEPSEEK_SEP = "<｜tool▁sep｜>"
_FENCED_JSON = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def _deepseek(body: str, offered: Offered) -> list[ToolCallRequested] | None:
    """R1's ``function<｜tool▁sep｜>NAME\\n```json {…}```, V3.1's ``NAME<｜tool▁sep｜>{…}``."""
    calls: list[ToolCallRequested] = []
    for match in _DEEPSEEK_CALL.finditer(body):
        head, _, tail = match.group(1).partition(_DEEPSEEK_SEP)
        if head.strip() == "function":
            name, _, tail = tail.partition("\n")
        else:
            name = head
        fenced = _FENCED_JSON.match(tail)
        call = _named(name.strip(), fenced.group(1) if fenced else tail, offered)
        if call is None:
            return None
        calls.append(call)
    return calls or None


_HARMONY = re.compile(r"to=functions\.([\w.\-]+).*?<\|message\|>(.*)$", re.DOTALL)


def _harmony(text: str, at: int, reading: Reading) -> Verdict:
    """gpt-oss's ``… to=functions.NAME … <|message|>{…}<|call|>``; a message to the person
    (no ``to=functions.``) is text."""
    end = text.find(_HARMONY_END, at)
    block = text[at : end if end >= 0 else len(text)]
    header = block.split("<|message|>", 1)
    if len(header) == 2 and "to=functions." not in header[0]:
        return Text(at + 1)  # a message to the person, not a call
    if end < 0 and not reading.final:
        return MORE
    match = _HARMONY.search(block)
    call = _named(match.group(1), match.group(2), reading.offered) if match else None
    after = len(text) if end < 0 else end + len(_HARMONY_END)
    return Taken([call], after) if call is not None else Text(after)


def _named(name: str, arguments: str, offered: Offered) -> ToolCallRequested | None:
    parsed = arguments_of(arguments.strip())
    if name not in offered or parsed is None:
        return None
    return ToolCallRequested(name, parsed)


# -- fences ----------------------------------------------------------------------------------


def _fence(text: str, at: int, reading: Reading) -> Verdict:
    """A Markdown fence: one that may hold calls is held until it closes; code streams."""
    newline = text.find("\n", at)
    if newline < 0:
        return _undecided(at, reading)
    opener = text[at:newline].strip()
    if not opener.startswith(FENCE):
        return Text(at + 1)
    if opener.removeprefix(FENCE).strip().lower() not in CALL_FENCES:
        return Text(newline + 1, opens_code=True)
    body = newline + 1
    close = _fence_close(text, body)
    if close is None:
        if reading.final:
            return Text(len(text))
        early = _items(text, body, reading, bare=True)  # can this body still become calls?
        return Text(body, opens_code=True) if isinstance(early, Text) else MORE
    content, after = text[body : close[0]], close[1]
    calls = _all_items(content, reading.offered)
    return Taken(calls, after) if calls else Text(after)


def _fence_close(text: str, body: int) -> tuple[int, int] | None:
    """(start, end) of the fence's closing line, once it is complete (or the text ended)."""
    at = body
    while at <= len(text):
        line_end = text.find("\n", at)
        line = text[at : len(text) if line_end < 0 else line_end]
        if line.strip().startswith(FENCE) and not line.strip().strip("`").strip():
            if line_end < 0:
                return None if line.strip() != FENCE else (at, len(text))
            return at, line_end + 1
        if line_end < 0:
            return None
        at = line_end + 1
    return None


# -- items: calls in a row -------------------------------------------------------------------


class _Item(msgspec.Struct, frozen=True):
    calls: list[ToolCallRequested]
    end: int
    alone: bool = False
    """A bare ``name(…)``: a call only when nothing else is on its line."""


def _items(text: str, at: int, reading: Reading, *, bare: bool) -> Verdict:
    """Calls one after another from ``at`` (separated by space, ``,``, ``;``, a repeated
    ``[TOOL_CALLS]``); ``bare`` allows the forms that must begin a line."""
    calls: list[ToolCallRequested] = []
    index = _skip_space(text, at)
    while True:
        next_index = _skip_separators(text, index) if calls else index
        if next_index >= len(text) or _partial_separator(text, next_index):
            if not reading.final:
                return MORE
            return Taken(calls, _trailer_end(text, index)) if calls else Text(at + 1)
        item = _item(text, next_index, reading, bare=bare or bool(calls))
        if isinstance(item, _More):
            if reading.final and calls:
                return Taken(calls, _trailer_end(text, index))
            return _undecided(at, reading) if not calls else MORE
        if item is None:
            return Taken(calls, _trailer_end(text, index)) if calls else Text(at + 1)
        if isinstance(item, Text):
            return item if not calls else Taken(calls, _trailer_end(text, index))
        if item.alone:
            line_end = _rest_of_line_blank(text, item.end)
            if line_end is None:
                return Text(at + 1) if not calls else Taken(calls, _trailer_end(text, index))
            if isinstance(line_end, _More) and not reading.final:
                return MORE
        calls += item.calls
        index = item.end


def _skip_separators(text: str, index: int) -> int:
    while index < len(text):
        if text[index] in _SPACE + ",;":
            index += 1
        elif text.startswith(_MISTRAL, index):
            index += len(_MISTRAL)
        else:
            break
    return index


def _partial_separator(text: str, index: int) -> bool:
    """The text ends inside a marker that would continue the calls."""
    rest = text[index:]
    return any(m.startswith(rest) and m != rest for m in (_MISTRAL, *_TRAILERS))


def _trailer_end(text: str, index: int) -> int:
    """After the calls: an end marker some forms add goes with them."""
    at = _skip_space(text, index)
    for trailer in _TRAILERS:
        if text.startswith(trailer, at):
            return at + len(trailer)
    return index


def _rest_of_line_blank(text: str, index: int) -> int | _More | None:
    newline = text.find("\n", index)
    rest = text[index : len(text) if newline < 0 else newline]
    if rest.strip():
        return None
    return MORE if newline < 0 else newline


def _item(text: str, at: int, reading: Reading, *, bare: bool) -> _Item | Text | _More | None:
    """One call (or list of calls) at ``at``; ``None`` when none begins there."""
    char = text[at]
    if char == "{":
        return _json_item(text, at, reading)
    if char == "[":
        return _bracket_item(text, at, reading, bare=bare)
    if text.startswith(_FUNCTION, at) or (char == "<" and _FUNCTION.startswith(text[at:])):
        return _function_tag(text, at, reading)
    if bare and _IDENTIFIER.match(text, at):
        return _named_item(text, at, reading)
    return None


def _json_item(text: str, at: int, reading: Reading) -> _Item | Text | _More | None:
    end = value_end(text, at)
    if end is None:
        if reading.final or not _object_may_be_call(text, at, reading.offered):
            return None
        return MORE
    try:
        value = json.loads(text[at:end])
    except json.JSONDecodeError:
        return None
    calls = calls_from_json(value, reading.offered)
    return _Item(calls, end) if calls else Text(end)


def _bracket_item(
    text: str, at: int, reading: Reading, *, bare: bool
) -> _Item | Text | _More | None:
    inner = _skip_space(text, at + 1)
    if inner >= len(text):
        return None if reading.final else MORE
    if text[inner] == "{":
        end = value_end(text, at)
        if end is None:
            if reading.final or not _may_be_call(text, inner, reading.offered):
                return None
            return MORE
        return _json_item(text, at, reading)
    if bare and _IDENTIFIER.match(text, inner):
        if not _names_a_tool(text, inner, reading, then="("):
            return None
        end = value_end(text, at, python=True)
        if end is None:
            return None if reading.final else MORE
        calls = calls_from_python(text[at:end], reading.offered)
        return _Item(calls, end) if calls else None
    return None


def _named_item(text: str, at: int, reading: Reading) -> _Item | _More | None:
    """``name(…)`` alone on its line, or Mistral's ``name[ARGS]{…}``."""
    match = _IDENTIFIER.match(text, at)
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


def _mistral_item(text: str, name: str, at: int, reading: Reading) -> _Item | _More | None:
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
    start = _skip_space(text, at + len(_ARGS))
    if start >= len(text):
        return None if reading.final else MORE
    end = value_end(text, start) if text[start] == "{" else None
    if end is None:
        return MORE if text[start] == "{" and not reading.final else None
    call = _named(name, text[start:end], reading.offered)
    return _Item([call], end) if call else None


def _function_tag(text: str, at: int, reading: Reading) -> _Item | _More | None:
    """Llama's ``<function=NAME>{…}</function>``; Qwen3-Coder's ``<parameter=KEY>`` body."""
    end = text.find(_END_FUNCTION, at)
    if end < 0:
        if not reading.final:
            return MORE
        end = len(text)
    block = text[at:end]
    match = re.match(r"<function=([\w.\-]+)>(.*)$", block, re.DOTALL)
    if match is None or match.group(1) not in reading.offered:
        return None
    name, body = match.group(1), match.group(2).strip()
    after = min(len(text), end + len(_END_FUNCTION))
    if body.startswith("<parameter="):
        arguments = _parameters(name, body, reading.offered)
        return _Item([ToolCallRequested(name, arguments)], after) if arguments is not None else None
    call = _named(name, body, reading.offered)
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
    match = _IDENTIFIER.match(text, at)
    if match is None:
        return False
    if match.end() == len(text):
        return not reading.final and any(t.startswith(match.group()) for t in reading.offered)
    return match.group() in reading.offered and text.startswith(then, match.end())


# -- JSON, read before it is whole -----------------------------------------------------------


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


def _may_be_call(text: str, at: int, offered: Offered) -> bool:
    """Can the object at ``at``, whole or not, be (or become) a call?"""
    end = value_end(text, at)
    if end is None:
        return _object_may_be_call(text, at, offered)
    try:
        return calls_from_json(json.loads(text[at:end]), offered) is not None
    except json.JSONDecodeError:
        return False


def _object_may_be_call(text: str, at: int, offered: Offered) -> bool:
    """Can the unfinished object at ``at`` still be a call? Its keys so far must all be a call's,
    and a ``name`` must be (or begin) an offered tool's: so an example in prose is let go early."""
    index, state, key = at + 1, "key", ""
    while True:
        index = _skip_space(text, index)
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
            if key in ("name", "function") and char == '"':
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


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in _SPACE:
        index += 1
    return index
