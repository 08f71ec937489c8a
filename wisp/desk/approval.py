"""Approvals on the desk (docs/policy.md, "Approvals out of band"): a command the gate asks the
person to approve, filed by a face whose caller must never approve it.

The calling agent of ``wisp mcp`` or ``wisp acp`` is a model and must never approve wisp's
commands. So ``OutOfBandApprover`` files the request (``<id>.request.json``) for the person to
answer with ``wisp approvals`` or in wisp-tui and, when the client has a dialog of its own, asks
there at the same time. A filed request records ``approval.pending``, and every ending
``approval.settled``, on the asking thread's log; the gate then records ``approval.decided`` as
for any approver. ``dialog_lines`` are what every client's dialog shows of a request.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
from msgspec import UNSET

from wisp.audit.kinds import (
    ApprovalAnswered,
    ApprovalPending,
    ApprovalSettled,
    Details,
)
from wisp.desk.kind import (
    ChannelError,
    Filed,
    Kind,
    Settled,
    age,
    delivered,
    table,
    waits_for,
)
from wisp.desk.wait import Desk, new_request_id
from wisp.policy.approvers import ApprovalRefused, escape_controls
from wisp.policy.types import Answer, ApprovalQuestion

__all__ = [
    "ANSWERS",
    "APPROVAL",
    "Alongside",
    "FiledAnswer",
    "OutOfBandApprover",
    "PendingRequest",
    "dialog_lines",
]

ANSWERS: tuple[Answer, ...] = ("once", "session", "project", "always", "deny")

Alongside = Callable[[ApprovalQuestion], Awaitable[Answer | None]]
"""The face's own dialog (MCP elicitation, ACP ``request_permission``): its Answer, or None when
it could not ask."""

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
ASKED = ("command", "line", "pattern", "level")
"""The fields a request, its ``approval.pending`` and the gate's question name alike."""
LISTING_HEADER = ("ID", "LEVEL", "COMMAND", "DIRECTORY", "THREAD", "CLIENT", "AGE")


class PendingRequest(Filed, frozen=True, kw_only=True):
    """One filed request, as ``<id>.request.json`` holds it: the command the gate asks about."""

    command: str
    line: str
    pattern: str
    directory: str
    level: str
    reasons: list[str] = msgspec.field(default_factory=list)
    outside_sandbox: bool = False

    binding_fields = (
        "id",
        "command",
        "line",
        "pattern",
        "directory",
        "level",
        "thread",
        "pid",
        "created",
    )


class FiledAnswer(msgspec.Struct, frozen=True):
    """``<id>.answer.json``: the person's answer and the request it was given for."""

    id: str
    decision: str
    """One of ``ANSWERS`` (checked when it is read)."""
    via: str
    """``cli`` (``wisp approvals``) or ``tui`` (a chat's front end)."""
    binding: str


def dialog_lines(question: ApprovalQuestion) -> list[str]:
    """What a dialog shows of a request, written once for every client's dialog: the command,
    directory, level, reasons and pattern, and whether it runs outside the sandbox."""
    lines = [
        f"command: {question.line or question.command}",
        f"directory: {question.directory}",
        f"level: {question.level}",
    ]
    lines += [f"reason: {reason}" for reason in question.reasons]
    lines.append(f"pattern: {question.pattern}")
    if question.outside_sandbox:
        lines.append("it runs outside the sandbox")
    elif question.network:
        lines.append("network: approved, it runs with the network on")
    return lines


class Approvals(Kind[PendingRequest, FiledAnswer, Answer]):
    """A command waiting for the person's approval."""

    name = "approval"
    noun, answer_noun = "request", "answer"
    refused_words = "an answer to approval request"
    record_type, answer_type = PendingRequest, FiledAnswer

    def answer(self, request: PendingRequest, given: Any, via: str) -> FiledAnswer:
        if given not in ANSWERS:
            raise ChannelError(f"not an answer: {given!r}")
        return FiledAnswer(id=request.id, decision=given, via=via, binding=request.binding)

    def answered_event(self, asked: str, given: Any, via: str, refused: str | None) -> Details:
        return ApprovalAnswered(request=asked, decision=given, via=via, **delivered(refused))

    def check_filed(self, answer: FiledAnswer) -> None:
        if answer.decision not in ANSWERS:
            raise ChannelError(f"the answer file holds no answer ({answer.decision!r})")

    def face_answer(self, answer: FiledAnswer) -> Answer:
        return answer.decision  # type: ignore[return-value]  # checked by check_filed

    def failure(self, reason: str) -> Exception:
        return ApprovalRefused(reason)

    def no_way_left(self, out_of_band: bool) -> str:
        if not out_of_band:
            return DIALOG_FAILED_REASON
        return "the request could not be filed, and the client's dialog could not ask"

    def listing(self, waiting: list[PendingRequest], now: int) -> list[str]:
        """A table: id, level, command, directory, thread, client, age."""
        return table([LISTING_HEADER, *(_row(request, now) for request in waiting)])

    def banner_body(self, request: PendingRequest) -> str:
        return (
            f"[{request.level}] {escape_controls(request.command)}"
            f" (thread {request.thread or '-'}): wisp approvals approve {request.id}, "
            f"or deny {request.id}"
        )

    def confirmation(self, request: PendingRequest, answer: FiledAnswer) -> str:
        command = escape_controls(request.command)
        if answer.decision == "deny":
            return f"refused: {command} ({waits_for(request)})"
        return f"approved ({answer.decision}): {command} ({waits_for(request)})"

    def stale_event(self, request: PendingRequest, why: str, seconds: float) -> Details:
        settled = Settled("stale", reason=why)
        return self.settled_event(request, settled, seconds, "skipped")

    def pending_event(
        self,
        request: PendingRequest,
        outcome: str,
        reason: str | None,
        *,
        alongside: bool,
        delay: float,
    ) -> Details:
        shown_delay = round(delay)
        return ApprovalPending(
            request=request.id,
            **{name: getattr(request, name) for name in ASKED},
            directory=request.directory,
            thread=request.thread or "",
            client=request.client or "",
            expires_at=_given(request.expires_at),
            alongside="elicitation" if alongside else UNSET,
            banner_delay_seconds=shown_delay if shown_delay > 0 else UNSET,
            outcome=outcome,
            reason=_given(reason),
            outside_sandbox=True if request.outside_sandbox else UNSET,
        )

    def settled_event(
        self, request: PendingRequest, settled: Settled, seconds: float, banner: str
    ) -> Details:
        return ApprovalSettled(
            request=request.id,
            command=request.command,
            thread=request.thread or "",
            outcome=settled.outcome,
            via=_given(settled.via),
            decision=_given(settled.answer),
            reason=_given(settled.reason),
            seconds=seconds,
            banner=banner,
        )


APPROVAL = Approvals()
"""The approval kind: what the desk's channel, wait and answering path are handed."""


def _row(request: PendingRequest, now: int) -> tuple[str, ...]:
    command = escape_controls(request.command)
    if len(command) > 60:
        command = command[:59] + "…"
    return (
        request.id,
        request.level,
        command,
        escape_controls(_home_short(request.directory)),
        escape_controls(request.thread or "-"),
        escape_controls(request.client or "-"),
        age(now - request.created),
    )


def _home_short(directory: str) -> str:
    home = str(Path.home())
    if directory == home or directory.startswith(home + os.sep):
        return "~" + directory[len(home) :]
    return directory


def _given(value: Any) -> Any:
    """``value``, or UNSET (the field left out) for None."""
    return UNSET if value is None else value


class OutOfBandApprover(Desk[PendingRequest, FiledAnswer, Answer]):
    """Files each request on the desk and waits for the first answer, from there or from
    ``alongside``. Fills ``wisp.policy.types.Approver``."""

    can_ask = True

    def __init__(
        self,
        home: Path,
        *,
        record: Callable[[Details], object],
        thread: str | None,
        client: str | None,
        out_of_band: bool = True,
        alongside: Alongside | None = None,
        banner_delay: float = 0.0,
    ) -> None:
        super().__init__(
            APPROVAL,
            home,
            record=record,
            thread=thread,
            client=client,
            out_of_band=out_of_band,
            alongside=alongside,
            banner_delay=banner_delay,
        )

    async def ask(self, question: ApprovalQuestion, timeout: float | None) -> Answer | None:
        if not self.out_of_band and self.alongside is None:
            raise ApprovalRefused(NO_WAY_REASON)
        request = PendingRequest(
            **{name: getattr(question, name) for name in ASKED},
            directory=str(question.directory),
            reasons=list(question.reasons),
            outside_sandbox=question.outside_sandbox,
            **self.stamp(new_request_id(), timeout),
        )
        dialog = None if self.alongside is None else partial(self.alongside, question)
        limit = timeout - min(TIMEOUT_MARGIN, timeout / 4) if timeout else None
        return await self.wait(request, dialog, limit=limit)
