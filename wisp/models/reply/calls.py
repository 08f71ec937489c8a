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

import re
from collections.abc import Callable

from wisp.agent.types import ToolCallRequested
from wisp.models.reply.items import FUNCTION, MISTRAL, items, named
from wisp.models.reply.values import Offered, broken_call, is_failed
from wisp.models.reply.verdict import MORE, Reading, Taken, Text, Verdict, undecided

FENCE = "```"
CALL_FENCES = frozenset({"", "json", "json5", "tool_call", "tool_calls", "tool_code", "function"})
"""Fence languages that may hold calls; any other fence is code and streams as it comes."""

_TOOL_CALL, _END_TOOL_CALL = "<tool_call>", "</tool_call>"
_GRANITE = "<|tool_call|>"
_PYTHON_TAG = "<|python_tag|>"
_FUNCTOOLS = "functools["
_DEEPSEEK, _DEEPSEEK_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
_HARMONY_STARTS = ("<|start|>assistant", "<|channel|>commentary")
_HARMONY_END = "<|call|>"

MARKERS = (
    _TOOL_CALL,
    MISTRAL,
    _GRANITE,
    _PYTHON_TAG,
    _FUNCTOOLS,
    FUNCTION,
    _DEEPSEEK,
    *_HARMONY_STARTS,
)
"""Where a call may begin anywhere in a line."""


def read_at(text: str, at: int, reading: Reading) -> Verdict:
    """Calls beginning at ``at``, text, or ``MORE``. Only called where a call could begin."""
    rest = text[at:]
    for marker in MARKERS:
        if rest.startswith(marker):
            return _marked(text, at, marker, reading)
        if marker.startswith(rest):
            return undecided(at, reading)
    if reading.line_start and rest.startswith(FENCE[: len(rest)]):
        return _fence(text, at, reading)
    return items(text, at, reading, bare=reading.line_start)


def may_begin(char: str, line_start: bool) -> bool:
    """Could a call begin at ``char``? Cheap, so ordinary prose passes at once."""
    if char in "{[<f":
        return True
    return line_start and (char == "`" or (char.isascii() and (char.isalpha() or char == "_")))


# -- marked blocks ---------------------------------------------------------------------------


def _marked(text: str, at: int, marker: str, reading: Reading) -> Verdict:
    body = at + len(marker)
    if marker == _TOOL_CALL:
        return _closed(text, at, body, _END_TOOL_CALL, reading, _all_items)
    if marker == _DEEPSEEK:
        return _closed(text, at, body, _DEEPSEEK_END, reading, _deepseek)
    if marker in _HARMONY_STARTS:
        return _harmony(text, at, reading)
    if marker == FUNCTION:
        return items(text, at, reading, bare=False)
    if marker == _FUNCTOOLS:
        body -= 1  # the list's own "["
    verdict = items(text, body, reading, bare=True)
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


def _all_items(
    body: str, offered: Offered, *, alone: bool = True
) -> list[ToolCallRequested] | None:
    """The calls ``body`` is made of, all of it; ``None`` if anything else is in it. A fence
    around them (``<tool_call>```json {…}```</tool_call>``, as small models write) is dropped.
    With ``alone`` (a ``<tool_call>`` block, or a fence with nothing but calls before it) a
    call-shaped object that is no call of an offered tool is a failed call."""
    fenced = _FENCED_JSON.match(body)
    body = fenced.group(1) if fenced else body
    reading = Reading(offered, final=True, line_start=True, alone=alone)
    verdict = items(body, 0, reading, bare=True)
    if isinstance(verdict, Taken) and not body[verdict.end :].strip():
        return verdict.calls
    broken = broken_call(body) if alone else None
    return [broken] if broken else None


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
        call = named(name.strip(), fenced.group(1) if fenced else tail, offered)
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
    call = named(match.group(1), match.group(2), reading.offered) if match else None
    after = len(text) if end < 0 else end + len(_HARMONY_END)
    return Taken([call], after) if call is not None else Text(after)


# -- fences ----------------------------------------------------------------------------------


def _fence(text: str, at: int, reading: Reading) -> Verdict:
    """A Markdown fence: one that may hold calls is held until it closes; code streams."""
    newline = text.find("\n", at)
    if newline < 0:
        return undecided(at, reading)
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
        # Can this body still become calls? A closing fence being written is not in it yet.
        last_line = max(body, text.rfind("\n", body) + 1)
        seen = last_line if FENCE.startswith(text[last_line:].strip()) else len(text)
        early = items(text[:seen], body, reading, bare=True)
        return Text(body, opens_code=True) if isinstance(early, Text) else MORE
    content, after = text[body : close[0]], close[1]
    calls = _all_items(content, reading.offered, alone=reading.alone)
    if not calls:
        return Text(after)
    if any(is_failed(call, reading.offered) for call in calls):  # only as the whole reply
        if text[after:].strip():
            return Text(after)
        if not reading.final:
            return MORE
    return Taken(calls, after)


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
