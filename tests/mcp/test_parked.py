"""A thread's parked questions, in process: the next turn's request carries each answer as a
note (an ``other`` entry, a user message), an expired question settles ``unanswered`` with a
note, a reply that does not fit is refused and the question waits on, and a closed thread's
parked questions are withdrawn."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from msgspec import UNSET

from wisp.agent.loop import Conversation
from wisp.agent.recorder import Recorder
from wisp.audit import AuditLog, MemorySink
from wisp.audit.kinds import InquirySettled
from wisp.config import Config
from wisp.mcp.parked import deliver_answers, withdraw_parked
from wisp.models.script import resolve as resolve_script
from wisp.policy.question_channel import (
    PendingQuestion,
    file_question,
    list_questions,
    reply_path,
    write_reply,
)
from wisp.store import ConversationStore, PendingEntry

WHICH = "Which environment?"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    return home


@pytest.fixture
def sink() -> MemorySink:
    return MemorySink()


@pytest.fixture
async def conversation(tmp_path: Path, home: Path, sink: MemorySink) -> Conversation:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": "ok"}]}))
    store = ConversationStore()
    store.add(PendingEntry("instructions", "Be brief."), turn=None, origin="carried", time=None)
    return Conversation(
        model=await resolve_script(str(script)),
        tools=[],
        store=store,
        recorder=Recorder(AuditLog(sink, session="5e55105e5e55105e")),
        instructions="Be brief.",
        home=home,
        config=Config(tmp_path / "config.json", {}),
        working_directory=tmp_path,
        audit_file=None,
        max_steps=3,
        memory=False,
    )


def parked(home: Path, *, expires_at: str | None = None, thread: str = "p") -> PendingQuestion:
    question = PendingQuestion(
        id="0a1b2c3d",
        question=WHICH,
        options=["staging", "production"],
        thread=thread,
        client="test",
        pid=os.getpid(),
        created=int(time.time()),
        expires_at=expires_at,
    )
    file_question(home, question)
    return question


def settled(sink: MemorySink) -> list[InquirySettled]:
    return [e.details for e in sink.events if e.kind == "inquiry.settled"]


async def test_the_next_request_carries_the_answer_as_a_note(
    home: Path, conversation: Conversation, sink: MemorySink
) -> None:
    question = parked(home)
    write_reply(home, question, text="2", declined=False, via="cli")

    assert deliver_answers(home, "p", conversation) == 1

    *_, note = conversation.messages([])
    assert (note.role, note.content) == (
        "user",
        f'[the person answered your earlier question "{WHICH}": production]',
    )
    [event] = settled(sink)
    assert (event.outcome, event.via, event.delivered, event.answer) == (
        "answered",
        "cli",
        "notice",
        "production",
    )
    assert list_questions(home) == []
    assert deliver_answers(home, "p", conversation) == 0  # delivered once


async def test_a_question_still_unanswered_waits_on_and_another_threads_is_left(
    home: Path, conversation: Conversation, sink: MemorySink
) -> None:
    question = parked(home, thread="other")
    assert deliver_answers(home, "p", conversation) == 0
    withdraw_parked(home, "p", conversation.recorder)
    assert list_questions(home) == [question]
    assert settled(sink) == []


async def test_a_declined_question_and_an_expired_one_are_notes_too(
    home: Path, conversation: Conversation, sink: MemorySink
) -> None:
    question = parked(home)
    write_reply(home, question, text=None, declined=True, via="cli")
    deliver_answers(home, "p", conversation)
    parked(home, expires_at="2000-01-01T00:00:00Z")
    deliver_answers(home, "p", conversation)

    *_, declined, expired = conversation.messages([])
    assert declined.content == f'[the person declined to answer your earlier question "{WHICH}"]'
    assert expired.content == (
        f'[your earlier question "{WHICH}" got no answer in time; it was withdrawn]'
    )
    assert [(e.outcome, e.delivered) for e in settled(sink)] == [
        ("declined", "notice"),
        ("unanswered", UNSET),
    ]


async def test_a_reply_that_does_not_fit_is_refused_and_the_question_waits_on(
    home: Path, conversation: Conversation, sink: MemorySink
) -> None:
    question = parked(home)
    reply = {"id": question.id, "text": "production", "declined": False, "via": "cli"}
    reply_path(home, question.id).write_text(json.dumps({**reply, "binding": "0" * 64}))

    assert deliver_answers(home, "p", conversation) == 0

    assert not reply_path(home, question.id).exists()
    assert list_questions(home) == [question]
    [error] = [e.details for e in sink.events if e.kind == "error"]
    assert "does not match" in error.message and error.context == "inquiry"


async def test_withdrawing_a_closed_threads_parked_question(
    home: Path, conversation: Conversation, sink: MemorySink
) -> None:
    question = parked(home)
    withdraw_parked(home, "p", conversation.recorder)
    assert list_questions(home) == []
    [event] = settled(sink)
    assert (event.inquiry, event.outcome) == (question.id, "withdrawn")
