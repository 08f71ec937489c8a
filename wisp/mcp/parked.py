"""A thread's parked questions (docs/mcp.md, "The model's questions"): asked in an earlier
``respond``, whose hold lapsed before the person answered, and still filed under
``WISP_HOME/pending``.

At the start of the thread's next ``respond`` each answer (or refusal) is taken, recorded as
``inquiry.settled`` with ``delivered: notice``, and stored as an ``other`` entry, which the
turn's requests carry as a user message before the new prompt: a note from wisp, not the
calling agent's words and not a command the person ran. A question whose time passed unanswered
settles ``unanswered`` with a note too, since the model was told an answer would come. When the
thread is closed or evicted its parked questions are withdrawn.

A thread's calls run one at a time, so when none runs every question this server filed for the
thread is a parked one.
"""

from __future__ import annotations

import contextlib
import os
import time
from datetime import UTC, datetime
from pathlib import Path

from wisp.agent.loop import Conversation, utc_now
from wisp.agent.recorder import Recorder
from wisp.audit.kinds import Error, InquirySettled
from wisp.policy.asking import pick_option
from wisp.policy.pending_channel import pending_dir
from wisp.policy.question_channel import (
    QUESTION_SUFFIX,
    ChannelError,
    FiledReply,
    PendingQuestion,
    read_question,
    read_reply,
    reply_path,
    withdraw_question,
)
from wisp.store import PendingEntry, Source
from wisp.tools.ask import answer_text_of

__all__ = ["deliver_answers", "parked_questions", "withdraw_parked"]


def parked_questions(home: Path, thread: str) -> list[PendingQuestion]:
    """The questions this server filed for ``thread`` that are still filed, oldest first."""
    try:
        names = sorted(os.listdir(pending_dir(home)))
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for name in names:
        if not name.endswith(QUESTION_SUFFIX):
            continue
        question = read_question(home, name.removesuffix(QUESTION_SUFFIX))
        if question is not None and question.thread == thread and question.pid == os.getpid():
            found.append(question)
    return sorted(found, key=lambda question: (question.created, question.id))


def deliver_answers(home: Path, thread: str, conversation: Conversation) -> int:
    """Settle each parked question of ``thread`` that was answered, declined or has expired,
    storing a note for the next turn; the number of notes stored."""
    recorder = conversation.recorder
    delivered = 0
    for question in parked_questions(home, thread):
        reply = _reply(home, question, recorder)
        if reply is None and not _expired(question):
            continue  # it waits on
        withdraw_question(home, question.id)
        details, note = _settled(question, reply)
        event = recorder.record(details)
        source = Source(session=conversation.session, turn=conversation.turn + 1, event=event)
        conversation.store.add(
            PendingEntry("other", note, (source,)), turn=conversation.turn + 1, time=utc_now()
        )
        delivered += 1
    return delivered


def withdraw_parked(home: Path, thread: str, recorder: Recorder) -> None:
    """Withdraw the thread's parked questions (it is closed or evicted): each file removed and
    ``inquiry.settled`` ``withdrawn`` recorded; an answer filed meanwhile reaches nobody."""
    for question in parked_questions(home, thread):
        withdraw_question(home, question.id)
        recorder.record(
            InquirySettled(
                inquiry=question.id,
                question=question.question,
                thread=thread,
                outcome="withdrawn",
                seconds=_age(question),
            )
        )


def _reply(home: Path, question: PendingQuestion, recorder: Recorder) -> FiledReply | None:
    """The reply that fits ``question``; one that cannot be read or does not fit is removed
    and recorded, and the question waits on."""
    try:
        reply = read_reply(home, question.id)
        if reply is None:
            return None
        if reply.id != question.id or reply.binding != question.binding:
            raise ChannelError("its binding does not match the question")
    except ChannelError as exc:
        message = f"a reply to question {question.id} was refused: {exc}"
        recorder.record(Error(message=message, context="inquiry"))
        with contextlib.suppress(OSError):
            reply_path(home, question.id).unlink()
        return None
    return reply


def _settled(question: PendingQuestion, reply: FiledReply | None) -> tuple[InquirySettled, str]:
    """The ``inquiry.settled`` event and the note the model reads."""
    quoted = f'your earlier question "{question.question}"'
    details = InquirySettled(
        inquiry=question.id,
        question=question.question,
        thread=question.thread or "",
        outcome="unanswered",
        seconds=_age(question),
    )
    if reply is None:
        return details, f"[{quoted} got no answer in time; it was withdrawn]"
    details.via = reply.via
    details.delivered = "notice"
    text = (reply.text or "").strip()
    if reply.declined:
        details.outcome = "declined"
        return details, f"[the person declined to answer {quoted}]"
    if not text:
        details.outcome = "none"
        return details, f"[the person gave no answer to {quoted}]"
    option = pick_option(text, question.options) if question.options else None
    answer, redacted = answer_text_of(text, question.options, option)
    details.outcome = "answered"
    details.answer = answer
    details.redacted = redacted
    return details, f"[the person answered {quoted}: {answer}]"


def _expired(question: PendingQuestion) -> bool:
    if question.expires_at is None:
        return False
    try:
        return datetime.fromisoformat(question.expires_at) <= datetime.now(UTC)
    except ValueError:
        return True  # an expiry that cannot be read is not waited on


def _age(question: PendingQuestion) -> float:
    return float(max(0, int(time.time()) - question.created))
