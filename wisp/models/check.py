"""The capability check: three short questions that show what a model can do.

``check_model`` asks, in order and each once, greedily (temperature 0) under a hard time limit:
a reply (the floor), a tool call (``toolCalling``) and a structured reply (``guidedGeneration``).
Its ``CheckResult`` gives the outcome (refused, text only, usable) and each question's line for
``model.verified``. ``settle_declaration`` turns a result and what config.json declared before
into what is recorded under ``<scheme>.models.<name>``.

``ChatRequest`` has no schema field and no backend takes one yet, so the structured question
asks for the JSON object in words and checks that the reply decodes to it (a model that passes
can answer in that shape; one that fails may still be held to a schema by its runtime).
See docs/models.md, "The capability check".
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from wisp.agent.types import (
    CAPABILITY_WORDS,
    Capability,
    ChatRequest,
    Message,
    ModelError,
    ResolvedModel,
    TextDelta,
    ToolCallRequested,
    ToolSpec,
)
from wisp.config.model_entry import ModelEntry, Verified, as_stored
from wisp.models.http import CAPABILITIES
from wisp.models.selection import LOCAL, parse_selection

CHECKED_SCHEMES = ("llamacpp", "openai", "local")
"""Backends whose capabilities come from config.json, so a check can record them."""

UNCHECKED: tuple[Capability, ...] = ("reasoning", "vision")
"""Never asked: a person declares these by hand."""

CAPABILITY_ORDER: tuple[Capability, ...] = CAPABILITIES

Outcome = Literal["refused", "text only", "usable"]
Question = Literal["reply", "toolCalling", "guidedGeneration"]

LABELS: dict[Question, str] = {
    "reply": "reply",
    "toolCalling": CAPABILITY_WORDS["toolCalling"],
    "guidedGeneration": CAPABILITY_WORDS["guidedGeneration"],
}
"""Each question as its result line says it: the capability's name for people."""


class Limits(msgspec.Struct, frozen=True):
    """Seconds allowed for each question; the first includes loading the model."""

    reply: float = 180.0
    tool_calling: float = 60.0
    guided_generation: float = 60.0


RECORD_WORD = ToolSpec(
    name="record_word",
    description="Records one word.",
    parameters={
        "type": "object",
        "properties": {"word": {"type": "string", "description": "The word to record"}},
        "required": ["word"],
    },
)


class Answer(msgspec.Struct, forbid_unknown_fields=True):
    """The structured question's schema: ``{colour: string, number: integer 1..10}``."""

    colour: Annotated[str, msgspec.Meta(min_length=1)]
    number: Annotated[int, msgspec.Meta(ge=1, le=10)]


_ANSWER_DECODER = msgspec.json.Decoder(Answer)

_STRUCTURED_PROMPT = (
    "Name a colour and a whole number from 1 to 10. Reply with only a JSON object with two "
    'fields: "colour" (a colour, in one word) and "number" (a whole number from 1 to 10), '
    'like {"colour": "...", "number": 0}.'
)


# -- results -----------------------------------------------------------------------------------


class QuestionResult(msgspec.Struct, frozen=True):
    """One question as ``model.verified.checks`` records it."""

    check: Question
    passed: bool
    detail: str
    """The reply, the call, or why it failed."""
    seconds: float

    def line(self) -> str:
        """``reply: passed in 2.3 s``, ``structured replies: failed in 1.3 s (…)``."""
        verdict = "passed" if self.passed else "failed"
        why = "" if self.passed else f" ({self.detail})"
        return f"{LABELS[self.check]}: {verdict} in {self.seconds:.1f} s{why}"


class CheckResult(msgspec.Struct, frozen=True):
    """A whole check: the questions asked (a failed reply skips the rest)."""

    selection: str
    questions: list[QuestionResult]
    seconds: float

    def passed(self, question: Question) -> bool:
        return any(q.check == question and q.passed for q in self.questions)

    @property
    def outcome(self) -> Outcome:
        if not self.passed("reply"):
            return "refused"
        return "usable" if self.passed("toolCalling") else "text only"

    @property
    def capabilities_passed(self) -> list[Capability]:
        return [q.check for q in self.questions if q.check != "reply" and q.passed]

    @property
    def capabilities_failed(self) -> list[Capability]:
        return [q.check for q in self.questions if q.check != "reply" and not q.passed]

    def detail_of(self, question: Question) -> str:
        return next((q.detail for q in self.questions if q.check == question), "")


# -- asking ------------------------------------------------------------------------------------


class _Heard(msgspec.Struct):
    text: str = ""
    calls: list[ToolCallRequested] = msgspec.field(default_factory=list)


async def check_model(
    model: ResolvedModel,
    *,
    limits: Limits | None = None,
    on_question: Callable[[QuestionResult], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> CheckResult:
    """Ask ``model`` the three questions; ``on_question`` hears each result as it comes."""
    limits = limits or Limits()
    started = clock()
    results: list[QuestionResult] = []
    plan: list[tuple[Question, float, Callable[[ResolvedModel, float], Any]]] = [
        ("reply", limits.reply, _ask_reply),
        ("toolCalling", limits.tool_calling, _ask_tool_call),
        ("guidedGeneration", limits.guided_generation, _ask_structured),
    ]
    for question, limit, ask in plan:
        begun = clock()
        passed, detail = await ask(model, limit)
        result = QuestionResult(question, passed, detail, round(clock() - begun, 3))
        results.append(result)
        if on_question is not None:
            on_question(result)
        if question == "reply" and not passed:
            break  # a model that cannot reply is asked nothing more
    return CheckResult(model.selection, results, round(clock() - started, 3))


async def _hear(model: ResolvedModel, request: ChatRequest, limit: float) -> _Heard | str:
    """What the model said within ``limit`` seconds, or why nothing usable came."""
    heard = _Heard()
    try:
        async with asyncio.timeout(limit):
            stream = model.backend.stream(request)
            async with contextlib.aclosing(stream):  # type: ignore[type-var]
                async for event in stream:
                    if isinstance(event, TextDelta):
                        heard.text += event.text
                    elif isinstance(event, ToolCallRequested):
                        heard.calls.append(event)
    except TimeoutError:
        return f"no answer within {limit:g} s"
    except ModelError as exc:
        return str(exc)
    return heard


def _request(instructions: str, prompt: str, max_tokens: int, tools: list[ToolSpec]) -> ChatRequest:
    return ChatRequest(
        messages=[
            Message(role="system", content=instructions),
            Message(role="user", content=prompt),
        ],
        tools=tools,
        think=False,  # side calls switch thinking off where a model has the switch
        temperature=0.0,
        max_tokens=max_tokens,
    )


async def _ask_reply(model: ResolvedModel, limit: float) -> tuple[bool, str]:
    heard = await _hear(model, _request("Answer in a few words.", "Say hello.", 64, []), limit)
    if isinstance(heard, str):
        return False, heard
    reply = heard.text.strip()
    return (True, reply[:200]) if reply else (False, "the reply was empty")


async def _ask_tool_call(model: ResolvedModel, limit: float) -> tuple[bool, str]:
    request = _request(
        "You have one tool, record_word. When asked to record a word, call it with that word.",
        "Record the word heron.",
        128,
        [RECORD_WORD],
    )
    heard = await _hear(model, request, limit)
    if isinstance(heard, str):
        return False, heard
    calls = [call for call in heard.calls if call.name == RECORD_WORD.name]
    if not calls:
        return False, f"no call to {RECORD_WORD.name} arrived"
    word = calls[0].arguments.get("word")
    if isinstance(word, str) and word.strip().lower() == "heron":
        return True, f"{RECORD_WORD.name}(word={word!r})"
    return False, f"{RECORD_WORD.name} was called with {word!r}, not 'heron'"


async def _ask_structured(model: ResolvedModel, limit: float) -> tuple[bool, str]:
    request = _request("Answer with the fields asked for.", _STRUCTURED_PROMPT, 128, [])
    heard = await _hear(model, request, limit)
    if isinstance(heard, str):
        return False, heard
    reply = _without_fence(heard.text.strip())
    try:
        answer = _ANSWER_DECODER.decode(reply)
    except msgspec.ValidationError as exc:
        return False, f"the reply does not fit the schema ({exc}): {reply[:80]!r}"
    except msgspec.DecodeError:
        return False, f"the reply is not a JSON object: {reply[:80]!r}"
    return True, msgspec.json.encode(answer).decode()


def _without_fence(text: str) -> str:
    """A reply wrapped in one Markdown code fence, unwrapped: the JSON is what is judged."""
    if text.startswith("```") and text.endswith("```") and "\n" in text:
        return text[text.index("\n") + 1 : -3].strip()
    return text


# -- recording ---------------------------------------------------------------------------------


def declaration_key(selection: str, asset: str | None = None) -> tuple[str, str] | None:
    """``(scheme, name)`` of ``<scheme>.models.<name>``, or None when the runtime reports them.

    For ``local`` the name is the GGUF file name without ``.gguf``: ``asset``
    (the file's real path) gives it, else the selection's path or the default file.
    """
    parsed = parse_selection(selection)
    if parsed.scheme not in CHECKED_SCHEMES:
        return None
    if parsed.scheme != LOCAL:
        return parsed.scheme, parsed.canonical.partition(":")[2]
    if asset is None:
        from wisp.models.local import default_model_path  # only here: it reads package files

        asset = str(default_model_path()) if parsed.is_default_local else parsed.name
    return LOCAL, Path(asset).name.removesuffix(".gguf")


class Declaration(msgspec.Struct, frozen=True):
    """What a check records, and what it kept or took out of the earlier declaration."""

    entry: ModelEntry
    """The whole new ``<scheme>.models.<name>`` entry (other keys kept)."""
    date: str
    """The day it was verified, ``YYYY-MM-DD``."""
    recorded: list[Capability]
    kept: list[Capability]
    """Declared by hand, failed now, kept: wisp does not overrule the person."""
    removed: list[Capability]
    """Recorded by an earlier check, failed now."""


def settle_declaration(
    previous: ModelEntry, result: CheckResult, today: datetime.date
) -> Declaration | None:
    """Recorded = passed ∪ (previously declared − failed) ∪ kept; None when refused."""
    if result.outcome == "refused":
        return None
    declared = _names(as_stored(previous.capabilities))
    verified = previous.verified
    earlier_passed = _names(as_stored(verified.passed) if isinstance(verified, Verified) else None)
    passed, failed = set(result.capabilities_passed), set(result.capabilities_failed)
    by_hand = declared - earlier_passed
    kept = by_hand & failed
    removed = (earlier_passed & declared) & failed
    recorded = passed | (declared - failed) | kept
    date = today.isoformat()
    entry = previous.with_fields(
        capabilities=_ordered(recorded),
        verified=Verified(date=date, passed=_ordered(passed), failed=_ordered(failed)),
    )
    return Declaration(entry, date, _ordered(recorded), _ordered(kept), _ordered(removed))


def _names(value: Any) -> set[str]:
    return {item for item in value if isinstance(item, str)} if isinstance(value, list) else set()


def _ordered(names: set[str]) -> list[Capability]:
    return [c for c in CAPABILITY_ORDER if c in names]
