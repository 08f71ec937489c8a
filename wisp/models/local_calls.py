"""An embedded model's calls held to their form (docs/models.md, "The embedded model's tools").

Text before a call is free; once the reply opens a call, the rest of it is a well-formed call of
an offered tool. llama.cpp's lazy grammars work so (a grammar that wakes at a trigger), but a
trigger there hands the grammar the whole token that completed it, and a token running past the
opener into something the grammar refuses aborts the process. So the watching is done here, on
the text: ``Watch`` passes text on as it comes and holds only what may still become an opener;
at a whole opener the engine goes back to where it began and generates from there under the
form's grammar (``form_grammar``), which writes the opener again and then nothing but calls.

``FORMS`` is the one table of the forms: what opens a call, where it may begin, what comes
before, between and after the call objects, and which templates write it. Nothing here imports
llama-cpp-python.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Literal

import msgspec

from wisp.agent.types import ToolSpec
from wisp.models.local_tools import call_rules

Where = Literal["anywhere", "line", "reply"]
"""Where an opener may begin: anywhere in the answer, at a line's start (or the answer's), or
only as the answer's first characters (after white space)."""

MAX_CALLS = 4
"""Calls one reply may hold in a form that writes several (a family's own): a small model
repeating a call runs into this, not the window."""


class CallForm(msgspec.Struct, frozen=True):
    """How a family writes calls in a reply."""

    name: str
    opener: tuple[tuple[str, ...], ...]
    """The opener's parts in order, each a choice of texts (longest first; ``""`` makes the
    part optional); white space may come between parts. Once all have come, a call began."""
    where: Where
    head: str
    """GBNF before the first call object: the opener as the grammar writes it again."""
    between: str
    """GBNF between two call objects."""
    tail: str
    """GBNF after the last call object: the form's closing."""
    marker: str = ""
    """The form is watched for only when the chat template's source holds this (the family's
    own form); ``""``: on every model, as the calls wisp asks for in the prompt are written."""
    most: int = 1
    """Calls a reply may hold in this form. A JSON object form holds one: a small model that
    writes a second object after a call is mostly writing its answer as one (seen: the 0.5B
    Qwen's ``{"name": "pelican", ...}`` after reading the code word), which held to the tools
    would only become calls nobody asked for."""
    prompt_only: bool = False
    """Watched for only where wisp wrote the tools into the prompt, which asks for a call as a
    reply that is the object alone; a template's own prompt asks no such thing."""


_JSON_OPENER = (("{",), ('"name"',), (":",))

FORMS: tuple[CallForm, ...] = (
    # Qwen2.5, Qwen3, Hermes, SmolLM3: <tool_call>\n{...}\n</tool_call>
    CallForm(
        "tool_call",
        (("<tool_call>",),),
        "anywhere",
        head='"<tool_call>" ws',
        between='ws "</tool_call>" ws "<tool_call>" ws',
        tail='ws "</tool_call>"',
        marker="<tool_call>",
        most=MAX_CALLS,
    ),
    # Llama 3.x: <|python_tag|>{"name": ..., "parameters": ...}
    CallForm(
        "python_tag",
        (("<|python_tag|>",),),
        "anywhere",
        head='"<|python_tag|>" ws',
        between='ws ";"? ws',
        tail="",
        marker="<|python_tag|>",
        most=MAX_CALLS,
    ),
    # Mistral: [TOOL_CALLS][{...}, {...}]
    CallForm(
        "tool_calls_list",
        (("[TOOL_CALLS]",),),
        "anywhere",
        head='"[TOOL_CALLS]" ws "[" ws',
        between='ws "," ws',
        tail='ws "]"',
        marker="[TOOL_CALLS]",
        most=MAX_CALLS,
    ),
    # Granite: <|tool_call|>[{...}]
    CallForm(
        "granite",
        (("<|tool_call|>",),),
        "anywhere",
        head='"<|tool_call|>" ws "[" ws',
        between='ws "," ws',
        tail='ws "]"',
        marker="<|tool_call|>",
        most=MAX_CALLS,
    ),
    # A fenced call object: ```json\n{"name": ...}\n```
    CallForm(
        "fenced",
        (("```",), ("json", "tool_call", ""), *_JSON_OPENER),
        "line",
        head='"```" ("json" | "tool_call")? "\\n"',
        between="ws",
        tail='ws "```"',
    ),
    # A reply that is a JSON object: what wisp's own prompt asks a call to be (docs/models.md);
    # a model with a template of its own may answer in JSON, and is held at "name" alone.
    CallForm("bare", (("{",),), "reply", head="", between="ws", tail="", prompt_only=True),
    # A call object on a line of its own after some text.
    CallForm("bare_line", _JSON_OPENER, "line", head="", between="ws", tail=""),
)

THINK_TAGS = ("<think>", "<thinking>", "<reasoning>")
"""A reply opening with one of these thinks until its closing tag: calls there are no calls
(as ``wisp/models/reply/think.py`` reads them)."""

_FENCE = "```"
_SPACE = " \t\r\n"


def forms_for(template: str | None) -> tuple[CallForm, ...]:
    """The forms to watch for: the family's own, as its template (``None``: a template that
    cannot place tools, the calls written as wisp's prompt asks) names them, and JSON objects."""
    if template is None:
        return tuple(form for form in FORMS if not form.marker)
    return tuple(form for form in FORMS if not form.prompt_only and form.marker in template)


def form_grammar(form: CallForm, tools: Sequence[ToolSpec]) -> str:
    """GBNF for the rest of a reply that opened a call in ``form``: the opener, one call (up
    to ``form.most``) of ``tools`` with arguments their schemas allow, the closing."""
    key = json.dumps([[tool.name, tool.parameters] for tool in tools])  # its order is kept
    return _form_grammar(form, key)


@functools.cache
def _form_grammar(form: CallForm, key: str) -> str:
    head = f"{form.head} " if form.head else ""
    tail = f" {form.tail}" if form.tail else ""
    # White space may end the reply too: a line break after a call must not commit the model
    # to another call when it has nothing more to call.
    more = f" ({form.between} call){{0,{form.most - 1}}}" if form.most > 1 else ""
    root = f"root ::= {head}call{more}{tail} ws"
    return f"{root}\nws ::= [ \\t\\r\\n]{{0,3}}\n{call_rules(key)}"


class Opening(msgspec.Struct, frozen=True):
    """Where a call opened in the reply, and in which form."""

    at: int
    form: CallForm


_MORE = -1
"""A match's verdict: the text ended inside the opener, which may yet come whole."""


class Watch:
    """A reply's text, fed as it streams → text to pass on now; ``opened`` once a call opens.

    Text is passed on as it comes, except from a point where an opener may be beginning: held
    from there until the opener is whole (then ``opened`` says where it began, and everything
    before was passed on) or cannot be. Nothing passed on is ever taken back. A thought is no
    answer: nothing in it opens a call. Inside a code fence (one not opened by a call) nothing
    does either, until it closes.
    """

    def __init__(self, forms: Sequence[CallForm], *, thinking: bool = False) -> None:
        self._forms = tuple(forms)
        self._firsts = frozenset(choice[:1] for form in forms for choice in form.opener[0])
        self._firsts |= {_FENCE[0]}  # a code fence's start, where nothing opens until it ends
        self._text = ""
        self._shown = 0
        self._at = 0
        """Scanning goes on from here: nothing before it can begin an opener any more."""
        self._answer: int | None = None
        """Where the answer begins, after any thought; None while that is not known."""
        self._closing = "</think>" if thinking else ""
        """The tag that ends the thought the reply is in; ``""`` when it is in none (yet)."""
        self._in_code = False
        self._first: int | None = None
        """The answer's first character that is not white space, once it has come."""
        self.opened: Opening | None = None

    @property
    def text(self) -> str:
        """The reply so far."""
        return self._text

    @property
    def before(self) -> str:
        """The reply before the call it opened (all of it passed on)."""
        return self._text[: self.opened.at] if self.opened else self._text

    def feed(self, piece: str) -> str:
        if self.opened is not None:
            return ""
        self._text += piece
        return self._passed(self._scan())

    def finish(self) -> str:
        """What was held, at the reply's end without a call."""
        if self.opened is not None:
            return ""
        return self._passed(len(self._text))

    def _passed(self, upto: int) -> str:
        shown, self._shown = self._text[self._shown : upto], max(self._shown, upto)
        return shown

    def _scan(self) -> int:
        """Look for an opener; return how far the text may be passed on."""
        if self._answer is None and not self._find_answer():
            return len(self._text) if self._closing else 0  # a thought passes; a start waits
        assert self._answer is not None
        text, index = self._text, max(self._at, self._answer)
        while index < len(text):
            if self._in_code:
                index = self._in_fence(index)
                if index < 0:  # maybe the closing fence: look again with more text
                    self._at = -index - 1
                    return len(text)
                continue
            if text[index] not in self._firsts:
                index += 1
                continue
            verdict = self._opener_at(index)
            if isinstance(verdict, Opening):
                self.opened = verdict
                return index
            if verdict == _MORE:
                self._at = index
                return index
            if text.startswith(_FENCE, index) and self._line_start(index):
                self._in_code = True  # a fence no call opened: code until it closes
                index += len(_FENCE)
                continue
            index += 1
        self._at = index
        return index

    def _find_answer(self) -> bool:
        """Settle where the answer begins, if the text says yet: after a thought's closing."""
        text = self._text
        if not self._closing:
            rest = text.lstrip(_SPACE)
            for tag in THINK_TAGS:
                if rest.startswith(tag):
                    self._closing = "</" + tag[1:]
                    break
                if tag.startswith(rest):
                    return False  # maybe a thought's opening tag: wait for more
            else:
                self._answer = 0
                return True
        end = text.find(self._closing, max(0, self._at - len(self._closing)))
        if end < 0:
            self._at = len(text)
            return False
        self._answer = end + len(self._closing)
        return True

    def _in_fence(self, index: int) -> int:
        """Inside code: the index after its closing fence, or after this character; a
        negative ``-(index + 1)`` when the text ends inside what may be the closing fence."""
        text = self._text
        if text[index] == "`" and self._line_start(index):
            rest = text[index : index + len(_FENCE)]
            if rest == _FENCE:
                self._in_code = False
                return index + len(_FENCE)
            if _FENCE.startswith(rest):
                return -(index + 1)
        return index + 1

    def _opener_at(self, index: int) -> Opening | int | None:
        """An opener beginning at ``index``: the opening, ``_MORE``, or None (none can)."""
        more = False
        for form in self._forms:
            if not self._may_begin(form.where, index):
                continue
            end = _match(form.opener, self._text, index)
            if end == _MORE:
                more = True
            elif end is not None:
                return Opening(index, form)
        return _MORE if more else None

    def _may_begin(self, where: Where, index: int) -> bool:
        if where == "anywhere":
            return True
        assert self._answer is not None
        if where == "reply":
            return index == self._first_of_answer()
        return self._line_start(index)

    def _first_of_answer(self) -> int | None:
        if self._first is None:
            assert self._answer is not None
            rest = self._text[self._answer :]
            start = self._answer + len(rest) - len(rest.lstrip(_SPACE))
            self._first = start if start < len(self._text) else None
        return self._first

    def _line_start(self, index: int) -> bool:
        """Only blanks between the line's (or the answer's) start and ``index``."""
        assert self._answer is not None
        newline = self._text.rfind("\n", self._answer, index)
        start = self._answer if newline < 0 else newline + 1
        return not self._text[start:index].strip(" \t")


def _match(parts: tuple[tuple[str, ...], ...], text: str, at: int) -> int | None:
    """The end of an opener of ``parts`` at ``at``; ``_MORE`` if the text ends inside it."""
    index = at
    for number, choices in enumerate(parts):
        if number:
            while index < len(text) and text[index] in _SPACE:
                index += 1
        rest = text[index:]
        for choice in choices:
            if rest.startswith(choice):
                index += len(choice)
                break
            if choice.startswith(rest):
                return _MORE
        else:
            return None
    return index
