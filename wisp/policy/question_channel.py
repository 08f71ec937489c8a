"""Questions filed out of band under ``WISP_HOME/pending`` (docs/policy.md, "Questions out of
band"): the model's ``ask`` under ``wisp mcp``.

The same folder and the same rules as the approvals' channel (``wisp.policy.pending_channel``),
with names of their own so neither side ever reads the other's files: a waiting ``wisp mcp``
files ``<id>.question.json`` (0600, by rename); ``wisp questions`` answers with
``<id>.reply.json``, made by hard link of a finished temporary file so only the first answer is
taken, and carrying a binding, SHA-256 over the question's own fields, so it answers that
question and no other.

Confined commands can neither read nor write ``WISP_HOME`` (docs/sandbox.md): that, not this
format, keeps the model from answering its own questions.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from wisp.audit.kinds import InquirySettled
from wisp.home import ensure_private_dir, replace_atomically
from wisp.policy.pending_channel import (
    ChannelError,
    Record,
    as_optional_text,
    as_text,
    as_whole,
    is_alive,
    is_request_id,
    link_once,
    pending_dir,
)

QUESTION_SUFFIX = ".question.json"
REPLY_SUFFIX = ".reply.json"

__all__ = [
    "ChannelError",
    "FiledReply",
    "PendingQuestion",
    "file_question",
    "list_questions",
    "read_reply",
    "withdraw_question",
    "write_reply",
]


class PendingQuestion(msgspec.Struct, frozen=True):
    """One filed question, as ``<id>.question.json`` holds it."""

    id: str
    question: str
    options: list[str]
    """Empty for a free-text answer."""
    thread: str | None
    client: str | None
    pid: int
    """The waiting server's process id: once it is gone, the question is stale."""
    created: int
    expires_at: str | None = None
    """ISO 8601 (Z) when the wait is bounded; None while it waits until answered."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question": self.question,
            "options": list(self.options),
            "thread": self.thread,
            "client": self.client,
            "pid": self.pid,
            "created": self.created,
            "expiresAt": self.expires_at,
        }

    @classmethod
    def from_json(cls, data: Any) -> PendingQuestion:
        """``ChannelError`` when a field is missing or of the wrong type."""
        try:
            return cls(
                id=as_text(data["id"]),
                question=as_text(data["question"]),
                options=[as_text(option) for option in data.get("options", [])],
                thread=as_optional_text(data.get("thread")),
                client=as_optional_text(data.get("client")),
                pid=as_whole(data["pid"]),
                created=as_whole(data["created"]),
                expires_at=as_optional_text(data.get("expiresAt")),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ChannelError(f"not a pending question ({exc})") from None

    @property
    def binding(self) -> str:
        """SHA-256 over ``[id, question, options, thread, pid, created]``."""
        fields = [self.id, self.question, self.options, self.thread, self.pid, self.created]
        return hashlib.sha256(json.dumps(fields).encode()).hexdigest()


class FiledReply(msgspec.Struct, frozen=True):
    """``<id>.reply.json``: the person's answer (or refusal to answer) to one question."""

    id: str
    text: str | None
    declined: bool
    via: str
    """``cli`` (``wisp questions``) or ``tui``."""
    binding: str


def question_path(home: Path, question_id: str) -> Path:
    return pending_dir(home) / f"{question_id}{QUESTION_SUFFIX}"


def reply_path(home: Path, question_id: str) -> Path:
    return pending_dir(home) / f"{question_id}{REPLY_SUFFIX}"


def file_question(home: Path, question: PendingQuestion) -> None:
    """Write the question (folder 0700, file 0600, by rename); ``OSError`` when it cannot be."""
    ensure_private_dir(pending_dir(home))
    body = json.dumps(question.to_json(), indent=2).encode() + b"\n"
    replace_atomically(question_path(home, question.id), body)


def withdraw_question(home: Path, question_id: str) -> None:
    """Remove the question and any reply: nobody waits for either any more."""
    for path in (question_path(home, question_id), reply_path(home, question_id)):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def read_question(home: Path, question_id: str) -> PendingQuestion | None:
    """The question filed under ``question_id``; None when there is none or it is unreadable."""
    if not is_request_id(question_id):
        return None
    try:
        data = json.loads(question_path(home, question_id).read_bytes())
        return PendingQuestion.from_json(data)
    except (OSError, ValueError, ChannelError):
        return None


def write_reply(
    home: Path, question: PendingQuestion, *, text: str | None, declined: bool, via: str
) -> None:
    """Make ``<id>.reply.json`` by hard link, so only the first reply is taken.
    ``ChannelError`` when the question no longer waits or was answered already."""
    if read_question(home, question.id) != question:
        raise ChannelError(f"question {question.id} no longer waits")
    body = {
        "id": question.id,
        "text": text,
        "declined": declined,
        "via": via,
        "binding": question.binding,
    }
    taken = f"question {question.id} was answered already"
    link_once(home, question.id, reply_path(home, question.id), body, taken)


def read_reply(home: Path, question_id: str) -> FiledReply | None:
    """The reply filed for ``question_id``, None when there is none yet; ``ChannelError`` when
    there is one that cannot be read."""
    try:
        raw = reply_path(home, question_id).read_bytes()
    except FileNotFoundError:
        return None
    try:
        data = msgspec.json.decode(raw)
        return FiledReply(
            id=as_text(data["id"]),
            text=as_optional_text(data.get("text")),
            declined=data.get("declined") is True,
            via=as_text(data["via"]),
            binding=as_text(data["binding"]),
        )
    except (msgspec.DecodeError, KeyError, TypeError, AttributeError) as exc:
        raise ChannelError(f"the reply file cannot be read ({exc})") from None


def list_questions(home: Path, record: Record | None = None) -> list[PendingQuestion]:
    """Every question still waiting, oldest first. Stale ones (their server is gone, or their
    time has passed) are swept on the way: removed, and ``inquiry.settled`` ``stale`` recorded
    by ``record`` on the sweeping process's own log."""
    folder = pending_dir(home)
    try:
        names = sorted(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    waiting: list[PendingQuestion] = []
    now = datetime.now(UTC)
    for name in names:
        if name.endswith(REPLY_SUFFIX):
            _sweep_orphan_reply(home, name.removesuffix(REPLY_SUFFIX))
            continue
        if not name.endswith(QUESTION_SUFFIX):
            continue
        question = read_question(home, name.removesuffix(QUESTION_SUFFIX))
        if question is None:
            continue
        why = _stale_reason(question, now)
        if why is None:
            waiting.append(question)
            continue
        withdraw_question(home, question.id)
        if record is not None:
            record(_stale_event(question, why))
    return sorted(waiting, key=lambda question: (question.created, question.id))


def _stale_reason(question: PendingQuestion, now: datetime) -> str | None:
    if not is_alive(question.pid):
        return f"its server (pid {question.pid}) is gone"
    if question.expires_at is None:
        return None
    try:
        expires = datetime.fromisoformat(question.expires_at)
    except ValueError:
        return f"its expiry cannot be read ({question.expires_at!r})"
    if expires <= now:
        return f"it expired at {question.expires_at}"
    return None


def _sweep_orphan_reply(home: Path, question_id: str) -> None:
    """A reply whose question is gone (it was answered another way meanwhile)."""
    if question_path(home, question_id).exists():
        return
    with contextlib.suppress(FileNotFoundError):
        reply_path(home, question_id).unlink()


def _stale_event(question: PendingQuestion, why: str) -> InquirySettled:
    return InquirySettled(
        inquiry=question.id,
        question=question.question,
        thread=question.thread or "",
        outcome="stale",
        reason=why,
        seconds=float(max(0, int(time.time()) - question.created)),
    )
