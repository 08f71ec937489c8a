"""``ask``: the model asks the person a question and waits for the answer.

The face's ``Asker`` puts the question (plain chat: the terminal; ``chat --json``: a ``question``
line); this tool checks the limits, keeps the deadline, reads the answer against the options,
masks credential-shaped values, and records ``inquiry.requested`` then ``inquiry.settled``
(docs/turn.md, "The model's questions"). Every way a question ends is one of the outcomes
``inquiry.settled`` records:

    answered    ``answer: <text>`` (and ``option: N``)
    none        ``the person gave no answer``
    declined    ``error: the person declined to answer``
    unanswered  ``error: no answer within N s`` (a deadline: the question's own, or the
                face's bound on any wait, its asker's ``wait_limit``)
    stopped     ``error: the turn was stopped``; the CancelledError goes on up
    refused     ``error: question not asked: <reason>``, or
                ``error: no one can be asked here (<reason>)``
    failed      ``error: the question was withdrawn (<reason>)``: the asker broke, or gave
                an answer that is not one of the options

Under ``wisp mcp`` a question can also be parked: its call's hold lapsed with no answer, so
``inquiry.parked`` is recorded and the model told the question still waits (``PARKED``). It
settles later: ``deliver_parked``, at the start of the thread's next turn, takes each answer
(``delivered: notice``) or a lapsed question (``unanswered``) and gives the notes that turn's
prompt leads with; ``withdraw_parked``, when the thread ends, withdraws the rest
(``withdrawn``).
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType

from wisp.agent.text import bounded
from wisp.agent.types import ToolContext
from wisp.audit.kinds import Details, InquiryParked, InquiryRequested, InquirySettled
from wisp.desk.wait import Parked
from wisp.policy.asking import NobodyAsker, pick_option
from wisp.policy.types import Asker, QuestionAnswer
from wisp.redaction import mask_credentials
from wisp.tools.arguments import parse_arguments, schema_of

__all__ = ["PARKED", "AskTool", "NobodyAsker"]

QUESTION_LIMIT = 500
"""Characters in a question."""
OPTIONS_LIMIT = 8
OPTION_LIMIT = 100
"""Characters in one option."""
TIMEOUT_FLOOR = 10
TIMEOUT_CEILING = 3600
QUESTIONS_PER_TURN = 3
PARKED = (
    "the person has not answered yet; the question is still waiting for them, and their answer "
    "will come with a later message: go on without it for now"
)
"""The tool's result for a parked question."""
ANSWER_LIMIT = 4096
"""Bytes of an answer the model gets; the rest is cut with a note."""

# A question asking for a secret is refused before it is put.
_SECRET = re.compile(
    r"(?i)\b(passwords?|passphrases?|token|(?:api|access|auth|bearer|github|personal access)"
    r"[ _-]?tokens?|api[ _-]?keys?|private[ _-]?keys?|secret[ _-]?keys?|access[ _-]?keys?)\b"
)


class AskArgs(msgspec.Struct, kw_only=True, rename="camel"):
    question: Annotated[str, msgspec.Meta(description="One question, under 500 characters")]
    options: (
        Annotated[
            list[str],
            msgspec.Meta(
                description="Up to 8 answers to choose from (each at most 100 characters); "
                "leave out for a free-text answer"
            ),
        ]
        | UnsetType
    ) = UNSET
    timeout_seconds: (
        Annotated[
            int,
            msgspec.Meta(
                description="Give up after this many seconds (10 to 3600); "
                "leave out to wait until the person answers"
            ),
        ]
        | UnsetType
    ) = UNSET


class Question(msgspec.Struct, frozen=True):
    """A call's question, trimmed, with its deadline clamped."""

    text: str
    options: list[str]
    timeout: int | None
    """Seconds, within 10–3600; None waits until answered."""


class Settled(msgspec.Struct):
    """How a question ended: the tool's result and the settled event's fields."""

    outcome: str
    result: str
    via: str | None = None
    answer: str | None = None
    redacted: list[str] = msgspec.field(default_factory=list)
    reason: str | None = None
    seconds: float | None = None
    """A parked question: how long its call held it."""


class _Parked(msgspec.Struct, frozen=True):
    """A question parked in an earlier call, for the turn that picks up its answer."""

    inquiry: str
    question: Question
    thread: str
    started: float


class AskTool:
    """Asks the person a question through the face's ``Asker`` and returns the answer."""

    name = "ask"
    description = (
        "Ask the person one question when you cannot go on without their answer; never for a "
        "password or key."
    )
    parameters = schema_of(AskArgs)
    extra_parameters = ("options", "timeoutSeconds")
    read_only = False  # it changes nothing, but calling it again asks the person again

    def __init__(
        self,
        asker: Asker,
        *,
        ways: list[str] | None = None,
        via: str | None = None,
        second: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        new_id: Callable[[], str] = lambda: secrets.token_hex(4),
    ) -> None:
        """``ways`` and ``via`` are the audit fields of those names: how the face asks
        (``["terminal"]``) and where its answers come from (``terminal``). The ``Asker`` protocol
        names only ``can_ask``, so when they are not given they are read from the asker's own
        ``ways`` and ``via``.

        ``second`` is how long one second of a deadline lasts, in real seconds: 1 in use;
        tests shorten it to see a deadline pass without waiting (``error: no answer within
        10 s`` after 10 ms with ``second=0.001``). ``clock`` measures the wait; ``new_id``
        makes the inquiry id (8 hex).
        """
        self._asker = asker
        self._ways = list(ways if ways is not None else getattr(asker, "ways", []))
        self._via = via if via is not None else getattr(asker, "via", None)
        self._second = second
        self._clock = clock
        self._new_id = new_id
        self._turn: tuple[str, int] | None = None
        self._asked = 0
        self._parked: list[_Parked] = []

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        args = parse_arguments(self.name, arguments, AskArgs, context.notes)
        if isinstance(args, str):
            return args
        question = _question(args)
        inquiry = self._new_id()
        context.record(self._requested(inquiry, question, context))
        started = self._clock()
        try:
            settled = await self._settle(question, context, inquiry)
        except asyncio.CancelledError:
            # Ctrl-C or an interrupt stopped the turn while the person was being asked.
            self._record_settled(context, inquiry, question, Settled("stopped", ""), started)
            raise
        if settled.outcome == "parked":  # not settled: it waits on past this turn
            waited = settled.seconds or 0.0
            context.record(
                InquiryParked(inquiry=inquiry, question=question.text, waited_seconds=waited)
            )
            thread = context.conversation.session
            self._parked.append(_Parked(inquiry, question, thread, started))
        else:
            self._record_settled(context, inquiry, question, settled, started)
        return settled.result

    # -- parked questions ---------------------------------------------------------------------

    def deliver_parked(self, record: Callable[[Details], object]) -> list[str]:
        """Settle each parked question the person answered (or declined) since, or whose time
        has passed, recording ``inquiry.settled`` with ``record``; the notes the next turn's
        prompt leads with, one for each."""
        take = getattr(self._asker, "take_answer", None)
        lapsed = getattr(self._asker, "lapsed", None)
        if take is None or lapsed is None:
            return []
        notes = []
        for parked in list(self._parked):
            answer = take(parked.inquiry)
            if answer is None and not lapsed(parked.inquiry):
                continue  # it waits on
            self._forget(parked)
            if answer is None:
                settled = Settled("unanswered", "")
            else:
                settled = self._read(answer, parked.question, None)
            record(self._settled(parked, settled, delivered="notice"))
            notes.append(_note(parked.question.text, settled))
        return notes

    def withdraw_parked(self, record: Callable[[Details], object]) -> None:
        """The thread ends: its parked questions are withdrawn (``inquiry.settled``
        ``withdrawn``); an answer filed later reaches nobody."""
        for parked in list(self._parked):
            self._forget(parked)
            record(self._settled(parked, Settled("withdrawn", "")))

    def _forget(self, parked: _Parked) -> None:
        self._parked.remove(parked)
        withdraw = getattr(self._asker, "withdraw", None)
        if withdraw is not None:
            withdraw(parked.inquiry)

    def _settled(
        self, parked: _Parked, settled: Settled, *, delivered: str | None = None
    ) -> InquirySettled:
        return _settled_event(
            parked.inquiry,
            parked.question,
            parked.thread,
            settled,
            round(self._clock() - parked.started, 3),
            delivered=delivered,
        )

    # -- asking -------------------------------------------------------------------------------

    async def _settle(self, question: Question, context: ToolContext, inquiry: str) -> Settled:
        if not self._asker.can_ask:
            reason = getattr(self._asker, "reason", "nobody to ask")
            return Settled("refused", f"error: no one can be asked here ({reason})", reason=reason)
        reason = _refusal(question) or self._over_the_turn_limit(context)
        if reason:
            return Settled("refused", f"error: question not asked: {reason}", reason=reason)
        self._asked += 1
        limit = self._limit(question)
        try:
            answer = await self._wait(question, limit, inquiry)
        except Parked as parked:
            return Settled("parked", PARKED, seconds=parked.waited)
        except Exception as exc:  # the face could not ask: outcome failed, not a crash
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            return _failed(reason)
        return self._read(answer, question, limit)

    def _limit(self, question: Question) -> int | None:
        """The question's deadline, or the face's bound on any wait (``wisp mcp``: a call
        cannot be suspended, so it waits ``approval.timeoutSeconds`` at most), the sooner."""
        bound = getattr(self._asker, "wait_limit", None)
        limits = [limit for limit in (question.timeout, bound) if limit]
        return int(min(limits)) if limits else None

    async def _wait(
        self, question: Question, limit: int | None, inquiry: str
    ) -> QuestionAnswer | None:
        # An asker that files its questions names them by the inquiry id, as the audit does.
        named = {"inquiry": inquiry} if getattr(self._asker, "takes_inquiry", False) else {}
        if limit is None:
            return await self._asker.ask(question.text, question.options, None, **named)
        try:
            async with asyncio.timeout(limit * self._second) as deadline:
                return await self._asker.ask(question.text, question.options, limit, **named)
        except TimeoutError:
            if deadline.expired():
                return None  # unanswered at the deadline
            raise

    def _read(
        self, answer: QuestionAnswer | None, question: Question, limit: int | None
    ) -> Settled:
        if answer is None:  # no answer came: past the deadline, or the face gave up waiting
            if limit is None:
                return Settled("none", "the person gave no answer", via=self._via)
            return Settled("unanswered", f"error: no answer within {limit} s")
        via = answer.via or self._via
        if answer.declined:
            return Settled("declined", "error: the person declined to answer", via=via)
        text = (answer.text or "").strip()
        if not text:
            return Settled("none", "the person gave no answer", via=via)
        option = None
        if question.options:
            option = pick_option(text, question.options)
            if option is None:
                shown = mask_credentials(text).text[:100]  # the reason is logged too
                return _failed(f"the answer {shown!r} is not one of the options")
        answer_text, redacted = _answer_text(text, question.options, option)
        result = f"answer: {answer_text}" + (f"\noption: {option}" if option else "")
        return Settled("answered", result, via=via, answer=answer_text, redacted=redacted)

    def _over_the_turn_limit(self, context: ToolContext) -> str | None:
        turn = (context.conversation.session, context.conversation.turn)
        if turn != self._turn:
            self._turn, self._asked = turn, 0
        if self._asked >= QUESTIONS_PER_TURN:
            return f"this turn has asked {self._asked} questions; at most {QUESTIONS_PER_TURN}"
        return None

    # -- audit --------------------------------------------------------------------------------

    def _requested(
        self, inquiry: str, question: Question, context: ToolContext
    ) -> InquiryRequested:
        requested = InquiryRequested(
            inquiry=inquiry,
            question=question.text,
            options=question.options,
            ways=self._ways if self._asker.can_ask else [],
            call=context.call_id,
            thread=context.conversation.session,
        )
        if question.timeout is not None:
            requested.timeout_seconds = question.timeout
        return requested

    def _record_settled(
        self,
        context: ToolContext,
        inquiry: str,
        question: Question,
        settled: Settled,
        started: float,
    ) -> None:
        seconds = round(self._clock() - started, 3)
        thread = context.conversation.session
        context.record(_settled_event(inquiry, question, thread, settled, seconds))


def _settled_event(
    inquiry: str,
    question: Question,
    thread: str,
    settled: Settled,
    seconds: float,
    *,
    delivered: str | None = None,
) -> InquirySettled:
    """``inquiry.settled``; an answer is ``delivered`` as the tool's result unless a parked
    question's note (``notice``) brings it."""
    details = InquirySettled(
        inquiry=inquiry,
        question=question.text,
        thread=thread,
        outcome=settled.outcome,
        seconds=seconds,
    )
    if settled.via is not None:
        details.via = settled.via
        if delivered is not None:
            details.delivered = delivered  # the person's answer, declining included
    if settled.answer is not None:
        details.delivered = delivered or "tool"  # the answer is the tool's result
        details.answer = settled.answer
        details.redacted = settled.redacted
    if settled.reason is not None:
        details.reason = settled.reason
    return details


def _note(question: str, settled: Settled) -> str:
    """What the next turn's prompt says of a parked question that settled."""
    earlier = f'your earlier question "{question}"'
    match settled.outcome:
        case "answered":
            return f"[the person answered {earlier}: {settled.answer}]"
        case "declined":
            return f"[the person declined to answer {earlier}]"
        case "none":
            return f"[the person gave no answer to {earlier}]"
        case "unanswered":
            return f"[{earlier} got no answer in time; it was withdrawn]"
        case _:
            return f"[{earlier} was withdrawn ({settled.reason})]"


def _answer_text(text: str, options: list[str], option: int | None) -> tuple[str, list[str]]:
    """The answer the model gets (the option's own words when one was picked), its
    credential-shaped values masked and its length bounded; and the kinds masked."""
    if option is not None:
        text = options[option - 1]
    masked = mask_credentials(text)
    return bounded(masked.text, ANSWER_LIMIT), masked.kinds


def _question(args: AskArgs) -> Question:
    options = [] if args.options is UNSET else [option.strip() for option in args.options]
    timeout = None
    if args.timeout_seconds is not UNSET:
        timeout = min(max(args.timeout_seconds, TIMEOUT_FLOOR), TIMEOUT_CEILING)
    return Question(args.question.strip(), options, timeout)


def _refusal(question: Question) -> str | None:
    """Why a question may not be put (empty, too long, bad options, asks for a secret), or None."""
    if not question.text:
        return "the question is empty"
    if len(question.text) > QUESTION_LIMIT:
        return f"the question is {len(question.text)} characters; at most {QUESTION_LIMIT}"
    secret = _SECRET.search(question.text)
    if secret:
        return (
            f"it asks for a secret ({secret[0].lower()}); never ask the person for a "
            "password, token or key"
        )
    return _options_refusal(question.options)


def _options_refusal(options: list[str]) -> str | None:
    if len(options) > OPTIONS_LIMIT:
        return f"{len(options)} options; at most {OPTIONS_LIMIT}"
    seen: dict[str, int] = {}
    for number, option in enumerate(options, start=1):
        if not option:
            return f"option {number} is empty"
        if len(option) > OPTION_LIMIT:
            return f"option {number} is {len(option)} characters; at most {OPTION_LIMIT}"
        first = seen.setdefault(option.casefold(), number)
        if first != number:
            return f"options {first} and {number} are the same"
    return None


def _failed(reason: str) -> Settled:
    return Settled("failed", f"error: the question was withdrawn ({reason})", reason=reason)
