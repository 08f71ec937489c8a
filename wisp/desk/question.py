"""The model's questions on the desk (docs/policy.md, "Questions out of band"): what the ``ask``
tool puts to the person under a face whose caller must never answer for them.

As with its commands (``wisp.desk.approval``), the calling agent is a model and must never
answer wisp's questions. So ``OutOfBandAsker`` files each question (``<id>.question.json``) for
the person to answer with ``wisp questions`` and, when the client has a dialog of its own, asks
there at the same time. The ``ask`` tool records ``inquiry.requested`` and ``inquiry.settled``
around it, with the way the answer came as ``via``; the desk records only what the tool cannot
see (the waiting notice, a reply refused, a stale question swept).

A ``respond`` call cannot be suspended and resumed later, so a question is held in the call for
``hold`` seconds at most (``HOLD_SECONDS``): when its life (``approval.timeoutSeconds``, or its
own deadline, the sooner) is longer than that and no answer came, it is *parked* (the wait's
``Parked``): the call goes on without it, the question stays filed until it expires, and the
``ask`` tool picks up the answer at the thread's next turn (``take_answer``). A question whose
life is no longer than the hold is withdrawn at its deadline, as before.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import msgspec

from wisp.audit.kinds import Details, InquiryAnswered, InquirySettled
from wisp.desk.channel import is_request_id, read_request, withdraw
from wisp.desk.kind import ChannelError, Filed, Kind, age, delivered, waits_for
from wisp.desk.wait import Desk, Parked, new_request_id
from wisp.policy.approvers import escape_controls
from wisp.policy.asking import pick_option
from wisp.policy.types import QuestionAnswer

__all__ = [
    "HOLD_ENV",
    "HOLD_SECONDS",
    "QUESTION",
    "FiledReply",
    "NoWayToAsk",
    "OutOfBandAsker",
    "PendingQuestion",
    "QuestionAlongside",
    "default_hold",
]

HOLD_SECONDS = 45.0
"""How long a question is held in its ``respond`` call before it is parked: under the 60 s a
client's request commonly times out after (the MCP TypeScript SDK's default), so the call ends
with the model told, not with the client giving up on it and stopping the question."""
HOLD_ENV = "WISP_QUESTION_HOLD_SECONDS"
"""Overrides ``HOLD_SECONDS`` (seconds, above 0): for a client with a shorter request timeout,
and for tests, which park a question without waiting 45 s."""

QuestionAlongside = Callable[[str, list[str]], Awaitable[QuestionAnswer | None]]
"""The face's own dialog (the MCP client's elicitation form, ACP ``request_permission``): the
answer, or None when it could not ask. Cancelled when the other way wins."""


class NoWayToAsk(Exception):
    """Neither way could put the question (the ``ask`` tool records it as ``failed``)."""


def default_hold() -> float:
    """``HOLD_ENV`` when it holds a number above 0, else ``HOLD_SECONDS``."""
    try:
        hold = float(os.environ.get(HOLD_ENV, ""))
    except ValueError:
        return HOLD_SECONDS
    return hold if hold > 0 else HOLD_SECONDS


class PendingQuestion(Filed, frozen=True, kw_only=True):
    """One filed question, as ``<id>.question.json`` holds it; ``options`` empty for a
    free-text answer."""

    question: str
    options: list[str] = msgspec.field(default_factory=list)

    binding_fields = ("id", "question", "options", "thread", "pid", "created")


class FiledReply(msgspec.Struct, frozen=True, kw_only=True):
    """``<id>.reply.json``: the person's answer (or refusal to answer) to one question; ``via``
    is ``cli`` (``wisp questions``) or ``tui``."""

    id: str
    text: str | None = None
    declined: bool = False
    via: str
    binding: str


class Questions(Kind[PendingQuestion, FiledReply, QuestionAnswer]):
    """The model's question, waiting for the person's answer: text, an option picked by its
    text or number, or declined (``given`` None)."""

    name = "question"
    noun, answer_noun = "question", "reply"
    source = "inquiry"
    """The audit's word for the model's questions (``inquiry.*``), not the kind's own."""
    refused_words = "a reply to question"
    record_type, answer_type = PendingQuestion, FiledReply

    def answer(self, request: PendingQuestion, given: Any, via: str) -> FiledReply:
        """With options, the option picked (by its text or number) in its own words;
        ``ChannelError`` when it picks none, so the question keeps waiting."""
        text = given
        if text is not None and request.options:
            option = pick_option(text, request.options)
            if option is None:
                numbered = ", ".join(f"{n}. {o}" for n, o in enumerate(request.options, start=1))
                raise ChannelError(f"{text!r} is not one of the options ({numbered})")
            text = request.options[option - 1]
        return FiledReply(
            id=request.id, text=text, declined=text is None, via=via, binding=request.binding
        )

    def answered_event(self, asked: str, given: Any, via: str, refused: str | None) -> Details:
        return InquiryAnswered(inquiry=asked, via=via, **delivered(refused))

    def face_answer(self, answer: FiledReply) -> QuestionAnswer:
        return QuestionAnswer(text=answer.text, declined=answer.declined, via=answer.via)

    def failure(self, reason: str) -> Exception:
        return NoWayToAsk(reason)

    def no_way_left(self, out_of_band: bool) -> str:
        off = "" if out_of_band else ", and approval.outOfBand is off"
        return "the client's dialog could not ask" + off

    def listing(self, waiting: list[PendingQuestion], now: int) -> list[str]:
        """For each: ``ID  THREAD  AGE``, then the question, then its options numbered, each
        indented."""
        return [line for question in waiting for line in _entry(question, now)]

    def banner_body(self, request: PendingQuestion) -> str:
        return (
            f"{escape_controls(request.question)} (thread {request.thread or '-'}): "
            f"wisp questions answer {request.id} TEXT, or decline {request.id}"
        )

    def confirmation(self, request: PendingQuestion, answer: FiledReply) -> str:
        if answer.text is None:
            return f"declined: {escape_controls(request.question)} ({waits_for(request)})"
        return f"answered: {escape_controls(answer.text)} ({waits_for(request)})"

    def stale_event(self, request: PendingQuestion, why: str, seconds: float) -> Details:
        return InquirySettled(
            inquiry=request.id,
            question=request.question,
            thread=request.thread or "",
            outcome="stale",
            reason=why,
            seconds=seconds,
        )


QUESTION = Questions()
"""The question kind: what the desk's channel, wait and answering path are handed."""


def _entry(question: PendingQuestion, now: int) -> list[str]:
    lines = [f"{question.id}  {waits_for(question)}  {age(now - question.created)}"]
    lines.append(f"  {escape_controls(question.question)}")
    lines += [
        f"    {number}. {escape_controls(option)}"
        for number, option in enumerate(question.options, start=1)
    ]
    if not question.options:
        lines.append("    (free text)")
    return lines


class OutOfBandAsker(Desk[PendingQuestion, FiledReply, QuestionAnswer]):
    """Files each question on the desk and waits for the first answer, from there or from
    ``alongside``; keeps the questions it parked. Fills ``wisp.policy.types.Asker``."""

    can_ask = True
    takes_inquiry = True
    """``ask`` passes its inquiry id, so the filed question, ``wisp questions`` and the audit
    all name it the same."""
    via = None
    """Each answer names its own way (``elicitation``, ``cli``, ``tui``)."""

    def __init__(
        self,
        home: Path,
        *,
        record: Callable[[Details], object] | None = None,
        thread: str | None,
        client: str | None,
        out_of_band: bool = True,
        alongside: QuestionAlongside | None = None,
        wait_limit: float | None = None,
        banner_delay: float = 0.0,
        hold: float | None = None,
    ) -> None:
        super().__init__(
            QUESTION,
            home,
            record=record or (lambda details: None),
            thread=thread,
            client=client,
            out_of_band=out_of_band,
            alongside=alongside,
            banner_delay=banner_delay,
        )
        self.wait_limit = wait_limit
        """Seconds a question waits at most, when it sets no shorter deadline of its own."""
        self.hold = hold if hold is not None else default_hold()
        """Seconds a filed question is waited on in its call before it is parked."""
        self.parked: dict[str, PendingQuestion] = {}
        """The questions parked by this asker and still filed, by id."""
        self.ways = (["elicitation"] if alongside is not None else []) + (
            ["pending"] if out_of_band else []
        )

    async def ask(
        self,
        question: str,
        options: list[str],
        timeout: float | None,
        *,
        inquiry: str | None = None,
    ) -> QuestionAnswer | None:
        question_id = inquiry if inquiry and is_request_id(inquiry) else new_request_id()
        filed = PendingQuestion(
            question=question, options=list(options), **self.stamp(question_id, timeout)
        )
        dialog = (
            None if self.alongside is None else partial(self.alongside, question, list(options))
        )
        # A question that lives no longer than the hold settles at its own deadline instead.
        hold = None if timeout is not None and timeout <= self.hold else self.hold
        try:
            return await self.wait(filed, dialog, hold=hold)
        except Parked:
            self.parked[question_id] = filed
            raise

    def take_answer(self, question_id: str) -> QuestionAnswer | None:
        """The person's answer to a parked question, once there is one: the question is then
        withdrawn and forgotten. None while it waits."""
        filed = self.parked.get(question_id)
        if filed is None:
            return None
        reply = self.fitting_answer(filed)
        if reply is None:
            return None
        self.withdraw(question_id)
        return self.kind.face_answer(reply)

    def lapsed(self, question_id: str) -> bool:
        """Whether a parked question waits no more: its time has passed, or its file is gone
        (a listing swept it as stale)."""
        filed = self.parked.get(question_id)
        if filed is None or read_request(self.home, QUESTION, question_id) != filed:
            return True
        if filed.expires_at is None:
            return False
        try:
            return datetime.fromisoformat(filed.expires_at) <= datetime.now(UTC)
        except ValueError:
            return True

    def withdraw(self, question_id: str) -> None:
        """Withdraw a parked question: its file and any reply removed, the question forgotten."""
        if self.parked.pop(question_id, None) is not None:
            withdraw(self.home, QUESTION, question_id)
