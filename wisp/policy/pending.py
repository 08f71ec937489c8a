"""Approvals out of band (docs/policy.md, "Approvals out of band"): the approver of ``wisp mcp``.

The calling agent is a model and must never approve wisp's commands. So a request is filed
under ``WISP_HOME/pending`` (``pending_channel``) for the person to answer with ``wisp
approvals`` or in wisp-tui, and, when the client has a dialog of its own (MCP elicitation),
asked there at the same time: the first answer wins and the other way is withdrawn. Every ending
is recorded as ``approval.settled`` on the asking thread's log; the gate then records
``approval.decided`` as for any approver.
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

import msgspec
from msgspec import UNSET

from wisp.audit.kinds import ApprovalPending, ApprovalSettled, Details, Error, Notification
from wisp.policy.approvers import ApprovalRefused, escape_controls
from wisp.policy.pending_channel import (
    ChannelError,
    FiledAnswer,
    PendingRequest,
    answer_path,
    file_request,
    read_answer,
    withdraw,
)
from wisp.policy.types import Answer, ApprovalQuestion

__all__ = ["POLL_SECONDS", "Alongside", "OutOfBandApprover", "new_request_id"]

Alongside = Callable[[ApprovalQuestion], Awaitable[Answer | None]]
"""Another way to ask at the same time (the MCP client's elicitation dialog): its Answer, or None
when it could not ask (the client has no dialog, or it failed). Cancelled when the other way
wins."""

POLL_SECONDS = 0.2
"""How often a waiting request looks for its answer file."""
TIMEOUT_MARGIN = 0.25
"""The approver gives up this long (at most a quarter of the wait) before the gate's own limit,
so the gate sees ``None`` (timed out) rather than cancelling the wait: the timeout is handled
once, here."""

NO_WAY_REASON = (
    "no one can approve it here: approval.outOfBand is off and this MCP client has no dialog "
    "(elicitation); to allow it, turn approval.outOfBand on (wisp config set approval.outOfBand "
    "true) and answer with wisp approvals, use a client with elicitation, or start wisp mcp "
    "with --yes"
)
DIALOG_FAILED_REASON = (
    "the client's dialog could not ask, and approval.outOfBand is off; turn it on (wisp config "
    "set approval.outOfBand true) to answer with wisp approvals or wisp-tui"
)


def new_request_id() -> str:
    return os.urandom(4).hex()


class _Settled(msgspec.Struct):
    """How one wait ended, for ``approval.settled``."""

    outcome: str
    answer: Answer | None = None
    via: str | None = None
    reason: str | None = None


class OutOfBandApprover:
    """Files each request under ``WISP_HOME/pending`` and waits for the first answer, from
    there or from ``alongside``. Fills ``wisp.policy.types.Approver``."""

    can_ask = True

    def __init__(
        self,
        home: Path,
        *,
        record: Callable[[Details], str],
        thread: str | None,
        client: str | None,
        out_of_band: bool = True,
        alongside: Alongside | None = None,
        banner_delay: float = 0.0,
    ) -> None:
        self.home = home
        self.record = record
        self.thread = thread
        self.client = client
        self.out_of_band = out_of_band
        self.alongside = alongside
        self.banner_delay = banner_delay
        self.banner_stream: TextIO = sys.stderr
        """Where the notice of a filed request goes once ``banner_delay`` has passed (the
        server's stderr: its diagnostics, never the protocol)."""

    async def ask(self, question: ApprovalQuestion, timeout: float | None) -> Answer | None:
        if not self.out_of_band and self.alongside is None:
            raise ApprovalRefused(NO_WAY_REASON)
        wait = _Wait(self, question, timeout)
        return await wait.run()


class _Wait:
    """One request's wait: filed, raced against ``alongside``, settled."""

    def __init__(
        self, approver: OutOfBandApprover, question: ApprovalQuestion, timeout: float | None
    ) -> None:
        self.approver = approver
        self.question = question
        self.timeout = timeout
        self.loop = asyncio.get_running_loop()
        self.started = self.loop.time()
        self.deadline = None
        if timeout:
            self.deadline = self.started + timeout - min(TIMEOUT_MARGIN, timeout / 4)
        self.id = new_request_id()
        self.request: PendingRequest | None = None
        self.banner = "skipped"
        """``posted`` once the waiting notice is posted; ``skipped`` while it never was."""
        self.recorded = False
        """Whether ``approval.pending`` was recorded: only a filed request is settled."""
        self.refused: set[str] = set()
        """The reasons answers were refused for, each recorded once."""

    async def run(self) -> Answer | None:
        approver = self.approver
        dialog: asyncio.Task[Answer | None] | None = None
        if approver.alongside is not None:
            dialog = asyncio.create_task(approver.alongside(self.question))
        try:
            if approver.out_of_band:
                self.request = self._file()
            settled = await self._race(dialog)
        except asyncio.CancelledError:
            timed_out = self.deadline is not None and self.loop.time() >= self.deadline
            self._settle(_Settled("timed-out" if timed_out else "abandoned"))
            raise
        finally:
            if dialog is not None and not dialog.done():
                dialog.cancel()
                with contextlib.suppress(BaseException):
                    await dialog
            if self.request is not None:
                withdraw(approver.home, self.id)  # a later answer file is ignored
        self._settle(settled)
        if settled.outcome == "failed":
            raise ApprovalRefused(settled.reason or "the request failed")
        return settled.answer

    def _file(self) -> PendingRequest | None:
        """File the request; None (recorded as failed) when it cannot be written and another
        way can still ask, else ``ApprovalRefused``."""
        question = self.question
        expires_at = None
        if self.timeout:
            expires_at = _iso(datetime.now(UTC) + timedelta(seconds=self.timeout))
        request = PendingRequest(
            id=self.id,
            command=question.command,
            line=question.line,
            pattern=question.pattern,
            directory=str(question.directory),
            level=question.level,
            reasons=list(question.reasons),
            thread=self.approver.thread,
            client=self.approver.client,
            pid=os.getpid(),
            created=int(time.time()),
            expires_at=expires_at,
            outside_sandbox=question.outside_sandbox,
        )
        try:
            file_request(self.approver.home, request)
        except OSError as exc:
            reason = f"the request could not be filed: {exc.strerror or exc}"
            self._record_pending("failed", expires_at, reason=reason)
            if self.approver.alongside is None:
                self._settle(_Settled("failed", reason=reason))
                raise ApprovalRefused(reason) from None
            return None
        self._record_pending("filed", expires_at)
        return request

    async def _race(self, dialog: asyncio.Task[Answer | None] | None) -> _Settled:
        """The first answer from the file or the dialog; ``timed-out`` at the deadline."""
        banner_at = self.started + self.approver.banner_delay
        while True:
            if self.request is not None:
                found = self._answer_file()
                if found is not None:
                    return _Settled("answered", found.decision, found.via)
                if self.banner == "skipped" and self.loop.time() >= banner_at:
                    self._show_banner()
            if dialog is not None and dialog.done():
                answer = _result(dialog)
                if answer is not None:
                    return _Settled("answered", answer, "elicitation")
                dialog = None  # it could not ask: the file alone answers now
                if self.request is None:
                    return _Settled("failed", reason=self._no_way_left())
            if dialog is None and self.request is None:
                return _Settled("failed", reason=self._no_way_left())
            pause = POLL_SECONDS
            if self.deadline is not None:
                pause = min(pause, self.deadline - self.loop.time())
                if pause <= 0:
                    return _Settled("timed-out")
            if dialog is not None:
                await asyncio.wait({dialog}, timeout=pause)
            else:
                await asyncio.sleep(pause)

    def _no_way_left(self) -> str:
        if not self.approver.out_of_band:
            return DIALOG_FAILED_REASON
        return "the request could not be filed, and the client's dialog could not ask"

    def _answer_file(self) -> FiledAnswer | None:
        """The answer file, if one fits this request. One that does not fit is refused,
        recorded, and removed, and the request keeps waiting."""
        assert self.request is not None
        try:
            found = read_answer(self.approver.home, self.id)
        except ChannelError as exc:
            self._refuse_answer(str(exc))
            return None
        if found is None:
            return None
        if found.id != self.id or found.binding != self.request.binding:
            self._refuse_answer("its binding does not match the request")
            return None
        return found

    def _refuse_answer(self, reason: str) -> None:
        if reason not in self.refused:  # once each: an answer that cannot be removed stays
            self.refused.add(reason)
            # The kinds of approval.* are a contract: a refused answer is an error of the wait.
            message = f"an answer to approval request {self.id} was refused: {reason}"
            self.approver.record(Error(message=message, context="approval"))
        with contextlib.suppress(OSError):
            answer_path(self.approver.home, self.id).unlink()

    @property
    def request_expiry(self) -> str | None:
        return None if self.request is None else self.request.expires_at

    def _show_banner(self) -> None:
        """Post the waiting notice (on stderr: this wisp has no desktop notifier) and record
        it as a ``notification``."""
        self.banner = "posted"
        question = self.question
        body = (
            f"[{question.level}] {escape_controls(question.command)}"
            f" (thread {self.approver.thread or '-'}): wisp approvals approve {self.id}, "
            f"or deny {self.id}"
        )
        with contextlib.suppress(OSError, ValueError):
            print(f"wisp: approval waiting {body}", file=self.approver.banner_stream, flush=True)
        self.approver.record(
            Notification(
                title="wisp: approval waiting",
                body=body,
                source="approval",
                outcome="posted",
                route="stderr",
            )
        )

    def _record_pending(
        self, outcome: str, expires_at: str | None = None, *, reason: str | None = None
    ) -> None:
        question = self.question
        approver = self.approver
        self.recorded = True
        # The delay matters only while the client's dialog may answer first.
        delay = round(approver.banner_delay) if approver.alongside is not None else 0
        self.approver.record(
            ApprovalPending(
                request=self.id,
                command=question.command,
                pattern=question.pattern,
                line=question.line,
                directory=str(question.directory),
                level=question.level,
                thread=approver.thread or "",
                client=approver.client or "",
                expires_at=expires_at if expires_at is not None else UNSET,
                alongside="elicitation" if approver.alongside is not None else UNSET,
                banner_delay_seconds=delay if delay > 0 else UNSET,
                outcome=outcome,
                reason=reason if reason is not None else UNSET,
                outside_sandbox=True if question.outside_sandbox else UNSET,
            )
        )

    def _settle(self, settled: _Settled) -> None:
        if not self.recorded:
            return  # nothing was filed (out of band is off): approval.decided says the rest
        self.approver.record(
            ApprovalSettled(
                request=self.id,
                command=self.question.command,
                thread=self.approver.thread or "",
                outcome=settled.outcome,
                via=settled.via if settled.via is not None else UNSET,
                decision=settled.answer if settled.answer is not None else UNSET,
                reason=settled.reason if settled.reason is not None else UNSET,
                seconds=round(self.loop.time() - self.started, 3),
                banner=self.banner,
            )
        )


def _result(task: asyncio.Task[Answer | None]) -> Answer | None:
    """The dialog's answer; None when it failed or was cancelled (it could not ask)."""
    if task.cancelled() or task.exception() is not None:
        return None
    return task.result()


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
