"""The model's questions out of band (docs/policy.md, "Questions out of band"): the asker of
``wisp mcp``.

As with its commands (``wisp.policy.pending``), the calling agent is a model and must never
answer wisp's questions. So a question is filed under ``WISP_HOME/pending`` for the person to
answer with ``wisp questions`` and, when the client has a dialog of its own (MCP elicitation),
asked there at the same time: the first answer wins and the other way is withdrawn. The ``ask``
tool records ``inquiry.requested`` and ``inquiry.settled`` around it, with the way the answer
came as ``via``.

A ``respond`` call cannot be suspended and resumed later, so a question is held in the call
for ``hold`` seconds at most (``HOLD_SECONDS``): when its life (``approval.timeoutSeconds``, or
its own deadline, the sooner) is longer than that and no answer came, it is *parked*
(``QuestionParked``): the call goes on without it, the question stays filed until it expires,
and the ``ask`` tool picks up the answer at the thread's next turn (``take_answer``). A question
whose life is no longer than the hold is withdrawn at its deadline, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TextIO

from wisp.audit.kinds import Details, Error, Notification
from wisp.policy.approvers import escape_controls
from wisp.policy.pending import POLL_SECONDS, new_request_id
from wisp.policy.pending_channel import is_request_id
from wisp.policy.question_channel import (
    ChannelError,
    FiledReply,
    PendingQuestion,
    file_question,
    read_question,
    read_reply,
    reply_path,
    withdraw_question,
)
from wisp.policy.types import QuestionAnswer

__all__ = [
    "HOLD_ENV",
    "HOLD_SECONDS",
    "NoWayToAsk",
    "OutOfBandAsker",
    "QuestionAlongside",
    "QuestionParked",
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
"""Another way to ask at the same time (the MCP client's elicitation form): the answer, or None
when it could not ask. Cancelled when the other way wins."""


class NoWayToAsk(Exception):
    """Neither way could put the question (the ``ask`` tool records it as ``failed``)."""


class QuestionParked(Exception):
    """The hold lapsed with no answer: the question stays filed for a later turn (the ``ask``
    tool records ``inquiry.parked``)."""

    def __init__(self, question_id: str, waited: float) -> None:
        super().__init__(f"question {question_id} parked after {waited:.1f} s")
        self.question_id = question_id
        self.waited = waited


def default_hold() -> float:
    """``HOLD_ENV`` when it holds a number above 0, else ``HOLD_SECONDS``."""
    try:
        hold = float(os.environ.get(HOLD_ENV, ""))
    except ValueError:
        return HOLD_SECONDS
    return hold if hold > 0 else HOLD_SECONDS


class OutOfBandAsker:
    """Files each question under ``WISP_HOME/pending`` and waits for the first answer, from
    there or from ``alongside``. Fills ``wisp.policy.types.Asker``."""

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
        self.home = home
        self.record = record or (lambda details: None)
        """Writes on the asking thread's log: the waiting notice, a reply refused."""
        self.thread = thread
        self.client = client
        self.out_of_band = out_of_band
        self.alongside = alongside
        self.wait_limit = wait_limit
        """Seconds a question waits at most, when it sets no shorter deadline of its own."""
        self.banner_delay = banner_delay
        self.hold = hold if hold is not None else default_hold()
        """Seconds a filed question is waited on in its call before it is parked."""
        self.parked: dict[str, PendingQuestion] = {}
        """The questions parked by this asker and still filed, by id."""
        self.refused: set[tuple[str, str]] = set()
        """Each question's reasons a reply to it was refused for, each recorded once."""
        self.banner_stream: TextIO = sys.stderr
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
        wait = _Wait(self, question_id, question, options, timeout)
        return await wait.run()

    def take_answer(self, question_id: str) -> QuestionAnswer | None:
        """The person's answer to a parked question, once there is one: the question is then
        withdrawn and forgotten. None while it waits."""
        filed = self.parked.get(question_id)
        if filed is None:
            return None
        reply = _fitting_reply(self, filed)
        if reply is None:
            return None
        self.withdraw(question_id)
        return QuestionAnswer(text=reply.text, declined=reply.declined, via=reply.via)

    def lapsed(self, question_id: str) -> bool:
        """Whether a parked question waits no more: its time has passed, or its file is gone
        (a listing swept it as stale)."""
        filed = self.parked.get(question_id)
        if filed is None or read_question(self.home, question_id) != filed:
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
            withdraw_question(self.home, question_id)


class _Wait:
    """One question's wait: filed, raced against ``alongside``, withdrawn at the end."""

    def __init__(
        self,
        asker: OutOfBandAsker,
        question_id: str,
        text: str,
        options: list[str],
        timeout: float | None,
    ) -> None:
        self.asker = asker
        self.id = question_id
        self.text = text
        self.options = options
        self.timeout = timeout
        self.loop = asyncio.get_running_loop()
        self.banner_at: float | None = self.loop.time() + asker.banner_delay
        self.filed: PendingQuestion | None = None
        self.parked = False

    async def run(self) -> QuestionAnswer | None:
        asker = self.asker
        dialog: asyncio.Task[QuestionAnswer | None] | None = None
        if asker.alongside is not None:
            dialog = asyncio.create_task(asker.alongside(self.text, list(self.options)))
        try:
            if asker.out_of_band:
                self.filed = self._file()
            return await self._race(dialog)
        finally:
            if dialog is not None and not dialog.done():
                dialog.cancel()  # the SDK withdraws the form (notifications/cancelled)
                with contextlib.suppress(BaseException):
                    await dialog
            if self.filed is not None and not self.parked:
                withdraw_question(asker.home, self.id)  # a later reply is ignored

    def _file(self) -> PendingQuestion | None:
        expires_at = None
        if self.timeout:
            moment = datetime.now(UTC) + timedelta(seconds=self.timeout)
            expires_at = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
        filed = PendingQuestion(
            id=self.id,
            question=self.text,
            options=list(self.options),
            thread=self.asker.thread,
            client=self.asker.client,
            pid=os.getpid(),
            created=int(time.time()),
            expires_at=expires_at,
        )
        try:
            file_question(self.asker.home, filed)
        except OSError as exc:
            if self.asker.alongside is None:
                reason = f"the question could not be filed: {exc.strerror or exc}"
                raise NoWayToAsk(reason) from None
            return None
        return filed

    async def _race(
        self, dialog: asyncio.Task[QuestionAnswer | None] | None
    ) -> QuestionAnswer | None:
        """The first answer from the reply file or the dialog. The caller's deadline cancels
        the wait; the hold lapsing parks a filed question."""
        started = self.loop.time()
        park_at = self._park_at(started)
        while True:
            if self.filed is not None:
                reply = self._reply()
                if reply is not None:
                    return QuestionAnswer(text=reply.text, declined=reply.declined, via=reply.via)
                self._maybe_banner()
                if park_at is not None and self.loop.time() >= park_at:
                    self.parked = True  # the form, tied to this call, is withdrawn; not the file
                    self.asker.parked[self.id] = self.filed
                    raise QuestionParked(self.id, round(self.loop.time() - started, 3))
            if dialog is not None and dialog.done():
                answer = _result(dialog)
                if answer is not None:
                    return answer
                dialog = None  # it could not ask: the file alone answers now
            if dialog is None and self.filed is None:
                raise NoWayToAsk(
                    "the client's dialog could not ask"
                    + ("" if self.asker.out_of_band else ", and approval.outOfBand is off")
                )
            if dialog is not None:
                await asyncio.wait({dialog}, timeout=POLL_SECONDS)
            else:
                await asyncio.sleep(POLL_SECONDS)

    def _park_at(self, started: float) -> float | None:
        """When the question is parked: after the hold, if it would live longer than that; a
        question with no longer life settles at its own deadline instead."""
        hold = self.asker.hold
        if self.filed is None or (self.timeout is not None and self.timeout <= hold):
            return None
        return started + hold

    def _reply(self) -> FiledReply | None:
        assert self.filed is not None
        return _fitting_reply(self.asker, self.filed)

    def _maybe_banner(self) -> None:
        """Post the waiting notice once ``banner_delay`` has passed (on stderr: this wisp has
        no desktop notifier) and record it as a ``notification``."""
        if self.banner_at is None or self.loop.time() < self.banner_at:
            return
        self.banner_at = None
        body = (
            f"{escape_controls(self.text)} (thread {self.asker.thread or '-'}): "
            f"wisp questions answer {self.id} TEXT, or decline {self.id}"
        )
        with contextlib.suppress(OSError, ValueError):
            print(f"wisp: question waiting {body}", file=self.asker.banner_stream, flush=True)
        self.asker.record(
            Notification(
                title="wisp: question waiting",
                body=body,
                source="inquiry",
                outcome="posted",
                route="stderr",
            )
        )


def _fitting_reply(asker: OutOfBandAsker, filed: PendingQuestion) -> FiledReply | None:
    """The reply file, if one fits the question; one that does not is removed, and the
    question keeps waiting."""
    try:
        reply = read_reply(asker.home, filed.id)
    except ChannelError as exc:
        _refuse_reply(asker, filed.id, str(exc))
        return None
    if reply is None:
        return None
    if reply.id != filed.id or reply.binding != filed.binding:
        _refuse_reply(asker, filed.id, "its binding does not match the question")
        return None
    return reply


def _refuse_reply(asker: OutOfBandAsker, question_id: str, reason: str) -> None:
    if (question_id, reason) not in asker.refused:  # once: a reply that cannot be removed stays
        asker.refused.add((question_id, reason))
        message = f"a reply to question {question_id} was refused: {reason}"
        asker.record(Error(message=message, context="inquiry"))
    with contextlib.suppress(OSError):
        reply_path(asker.home, question_id).unlink()


def _result(task: asyncio.Task[QuestionAnswer | None]) -> QuestionAnswer | None:
    """The dialog's answer; None when it failed or was cancelled (it could not ask)."""
    if task.cancelled() or task.exception() is not None:
        return None
    return task.result()
