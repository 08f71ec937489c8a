"""The desk's one wait, for every kind of request (docs/design.md, "A request that waits on a
person").

A face's ``Desk`` files each request under ``WISP_HOME/pending`` (when ``approval.outOfBand`` is
on) and, when the face has a dialog of its own (MCP elicitation, ACP ``request_permission``),
asks there at the same time: the first answer wins and the other way is withdrawn. An answer
file that does not fit is refused once (an ``error``), removed, and the request waits on. Once
``banner_delay`` has passed, the face's notifier is asked to tell the person (its
``notification`` records how that went). The wait ends
once: answered, timed out at its own deadline, abandoned (cancelled), or failed (no way left to
ask), and its kind records how; a kind that ``hands_over`` is left filed when its wait is
cancelled (``handed-over``), for the answering process to apply. A kind that opts into parking
(the model's questions under ``wisp mcp``) gives a hold: when it lapses unanswered the wait
raises ``Parked`` and leaves the request filed for a later turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Generic

from wisp.audit.kinds import Details, Error
from wisp.desk.channel import (
    ChannelError,
    answer_path,
    expiry,
    file_request,
    read_answer,
    withdraw,
)
from wisp.desk.kind import F, Kind, R, Settled, T

__all__ = ["POLL_SECONDS", "Desk", "Dialog", "Parked", "new_request_id"]

POLL_SECONDS = 0.2
"""How often a waiting request looks for its answer file."""

Notify = Callable[..., Awaitable[object]]
"""The face's notifier: ``notify(title, body, source=…, sound=…)`` posts and records one
notification (``wisp.notify.notifier.Notifier.post``)."""

Dialog = Callable[[], Awaitable[Any]]
"""The face's own way to ask this request, started with the wait: its answer, or None when it
could not ask (the client has no dialog, or it failed). Cancelled when the other way wins."""


def new_request_id() -> str:
    return os.urandom(4).hex()


class Parked(Exception):
    """The hold lapsed with no answer: the request stays filed for a later turn (the ``ask``
    tool records ``inquiry.parked``)."""

    def __init__(self, noun: str, request_id: str, waited: float) -> None:
        super().__init__(f"{noun} {request_id} parked after {waited:.1f} s")
        self.request_id = request_id
        self.waited = waited


class Desk(Generic[R, F, T]):
    """One face's requests of one kind: where they are filed, who waits for them, and the log
    they are recorded on (the asking thread's)."""

    def __init__(
        self,
        kind: Kind[R, F, T],
        home: Path,
        *,
        record: Callable[[Details], object],
        thread: str | None,
        client: str | None,
        out_of_band: bool,
        alongside: Callable[..., Awaitable[Any]] | None,
        banner_delay: float,
    ) -> None:
        self.kind = kind
        self.home = home
        self.record = record
        self.thread = thread
        self.client = client
        self.out_of_band = out_of_band
        self.alongside = alongside
        """The face's own dialog for this kind, or None when it has none."""
        self.banner_delay = banner_delay
        self.notify: Notify | None = None
        """Who tells the person of a filed request once ``banner_delay`` has passed: the face's
        notifier; None for a face that has none (nothing is posted)."""
        self.refused: set[tuple[str, str]] = set()
        """Each request's reasons an answer to it was refused for, each recorded once."""

    def stamp(self, request_id: str, timeout: float | None) -> dict[str, Any]:
        """The fields every kind's record has, for a request filed now."""
        return {
            "id": request_id,
            "thread": self.thread,
            "client": self.client,
            "pid": os.getpid(),
            "created": int(time.time()),
            "expires_at": expiry(timeout),
        }

    async def wait(
        self,
        request: R,
        dialog: Dialog | None,
        *,
        limit: float | None = None,
        hold: float | None = None,
    ) -> T | None:
        """File ``request`` and race it against ``dialog``: the first answer, None at ``limit``
        seconds (the wait's own deadline; None leaves it to the caller's), ``Parked`` after
        ``hold`` seconds unanswered, the kind's ``failure`` when no way is left to ask."""
        return await _Wait(self, request, dialog, limit=limit, hold=hold).run()

    def fitting_answer(self, request: R) -> F | None:
        """The answer file, if one fits ``request``. One that does not fit is refused,
        recorded, and removed, and the request keeps waiting."""
        try:
            found = read_answer(self.home, self.kind, request.id)
        except ChannelError as exc:
            self._refuse(request.id, str(exc))
            return None
        if found is None:
            return None
        if found.id != request.id or found.binding != request.binding:
            self._refuse(request.id, f"its binding does not match the {self.kind.noun}")
            return None
        return found

    def _refuse(self, request_id: str, reason: str) -> None:
        if (request_id, reason) not in self.refused:  # once each: one that cannot be removed stays
            self.refused.add((request_id, reason))
            # The audit's kinds are a contract: a refused answer is an error, not an outcome.
            message = self.kind.refused_message(request_id, reason)
            self.record(Error(message=message, context=self.kind.source))
        with contextlib.suppress(OSError):
            answer_path(self.home, self.kind, request_id).unlink()


class _Wait(Generic[R, F, T]):
    """One request's wait: filed, raced against the dialog, settled once, withdrawn."""

    def __init__(
        self,
        desk: Desk[R, F, T],
        request: R,
        dialog: Dialog | None,
        *,
        limit: float | None,
        hold: float | None,
    ) -> None:
        self.desk = desk
        self.kind = desk.kind
        self.request = request
        self.dialog = dialog
        self.hold = hold
        self.loop = asyncio.get_running_loop()
        self.started = self.loop.time()
        self.deadline = None if limit is None else self.started + limit
        self.filed = False
        """Whether the request is on disk: only a filed request is answered there."""
        self.banner = "skipped"
        """``posted`` once the waiting notice is posted; ``skipped`` while it never was."""
        self.banner_asked = False
        """The notifier was asked, once, whatever came of it (no route may have served)."""
        self.recorded = False
        """Whether the kind recorded the filing: only then is the ending recorded."""
        self.parked = False

    async def run(self) -> T | None:
        dialog: asyncio.Task[Any] | None = None
        if self.dialog is not None:
            dialog = asyncio.create_task(self.dialog())
        try:
            if self.desk.out_of_band:
                self._file()
            settled = await self._race(dialog)
        except asyncio.CancelledError:
            if self.filed and self.kind.hands_over:
                self.parked = True  # left filed: whoever answers it applies the answer
                self._settle(Settled("handed-over"))
                raise
            timed_out = self.deadline is not None and self.loop.time() >= self.deadline
            self._settle(Settled("timed-out" if timed_out else "abandoned"))
            raise
        finally:
            if dialog is not None and not dialog.done():
                dialog.cancel()  # the SDK withdraws the dialog (notifications/cancelled)
                with contextlib.suppress(BaseException):
                    await dialog
            if self.filed and not self.parked:
                withdraw(self.desk.home, self.kind, self.request.id)  # a later answer is ignored
        self._settle(settled)
        if settled.outcome == "failed":
            raise self.kind.failure(settled.reason or f"the {self.kind.noun} failed")
        return settled.answer

    def _file(self) -> None:
        """File the request. When it cannot be written and the dialog can still ask, the
        dialog alone asks; else the kind's ``failure``."""
        try:
            file_request(self.desk.home, self.kind, self.request)
        except OSError as exc:
            reason = f"the {self.kind.noun} could not be filed: {exc.strerror or exc}"
            self._record_filing("failed", reason)
            if self.dialog is None:
                self._settle(Settled("failed", reason=reason))
                raise self.kind.failure(reason) from None
            return
        self.filed = True
        self._record_filing("filed")

    async def _race(self, dialog: asyncio.Task[Any] | None) -> Settled:
        """The first answer from the file or the dialog; ``timed-out`` at the deadline;
        ``Parked`` when the hold lapses."""
        banner_at = self.started + self.desk.banner_delay
        held_from = self.loop.time()
        park_at = None if self.hold is None or not self.filed else held_from + self.hold
        while True:
            if self.filed:
                found = self.desk.fitting_answer(self.request)
                if found is not None:
                    answer = self.kind.face_answer(found)
                    return Settled("answered", answer, found.via)
                if not self.banner_asked and self.loop.time() >= banner_at:
                    await self._post_banner()
                if park_at is not None and self.loop.time() >= park_at:
                    self.parked = True  # the dialog, tied to this call, is withdrawn; not the file
                    raise Parked(
                        self.kind.noun, self.request.id, round(self.loop.time() - held_from, 3)
                    )
            if dialog is not None and dialog.done():
                answer = _result(dialog)
                if answer is not None:
                    return Settled("answered", answer, "elicitation")
                dialog = None  # it could not ask: the file alone answers now
            if dialog is None and not self.filed:
                return Settled("failed", reason=self.kind.no_way_left(self.desk.out_of_band))
            pause = POLL_SECONDS
            if self.deadline is not None:
                pause = min(pause, self.deadline - self.loop.time())
                if pause <= 0:
                    return Settled("timed-out")
            if dialog is not None:
                await asyncio.wait({dialog}, timeout=pause)
            else:
                await asyncio.sleep(pause)

    async def _post_banner(self) -> None:
        """Ask the face's notifier to tell the person the request waits; ``banner`` says
        ``posted`` only when a route posted it."""
        self.banner_asked = True
        if self.desk.notify is None:
            return
        title = f"wisp: {self.kind.name} waiting"
        body = self.kind.banner_body(self.request)
        event = await self.desk.notify(title, body, source=self.kind.source, sound=True)
        if getattr(event, "outcome", None) == "posted":
            self.banner = "posted"

    def _record_filing(self, outcome: str, reason: str | None = None) -> None:
        desk = self.desk
        # The delay matters only while the face's dialog may answer first.
        delay = desk.banner_delay if desk.alongside is not None else 0
        event = self.kind.pending_event(
            self.request, outcome, reason, alongside=desk.alongside is not None, delay=delay
        )
        if event is not None:
            self.recorded = True
            desk.record(event)

    def _settle(self, settled: Settled) -> None:
        if not self.recorded:
            return  # nothing was filed (out of band is off), or the kind records its own end
        seconds = round(self.loop.time() - self.started, 3)
        event = self.kind.settled_event(self.request, settled, seconds, self.banner)
        if event is not None:
            self.desk.record(event)


def _result(task: asyncio.Task[Any]) -> Any:
    """The dialog's answer; None when it failed or was cancelled (it could not ask)."""
    if task.cancelled() or task.exception() is not None:
        return None
    return task.result()
