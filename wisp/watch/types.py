"""What the watch's loop is handed, as contracts the CLI fills: the command's launch, the
triage and the notifier. The loop knows neither the runner nor the models nor the routes."""

from __future__ import annotations

import asyncio
from typing import Literal, Protocol

import msgspec

from wisp.audit.kinds import Notification

Trigger = Literal["start", "change", "interval"]
"""Why a run began: the watch started, a file changed, the interval came round."""
State = Literal["pass", "fail"]


class Finished(msgspec.Struct, frozen=True, kw_only=True):
    """How one launch of the command ended."""

    exit_status: int
    """The exit code, or the negated signal number for a signal death (``-15``, ``-9``)."""
    timed_out: bool
    """``--timeout`` ran out."""
    stopped: bool
    """A restart or the end of the watch stopped it: not a run, and never recorded as one."""
    output: str
    """stdout, then stderr."""
    seconds: float


class Launch(Protocol):
    """Runs the command once: ``stop`` ends it with SIGTERM (then SIGKILL after a grace),
    ``kill_now`` with SIGKILL at once."""

    async def __call__(self, *, stop: asyncio.Event, kill_now: asyncio.Event) -> Finished: ...


class Problem(msgspec.Struct, frozen=True):
    """One distinct problem a triage names."""

    what: str
    where: str = ""
    """``file:line`` as the output names it; empty when it names none."""


class Triaged(msgspec.Struct, frozen=True, kw_only=True):
    """What a triage made of a failed run's output."""

    model: str = ""
    """The model that read it; empty when none could be had."""
    problems: list[Problem] = msgspec.field(default_factory=list)
    error: str | None = None
    """Why there is no answer: the model failed, or its answer did not fit."""

    @property
    def findings(self) -> int | None:
        """How many distinct problems; None when the triage failed."""
        return None if self.error is not None else len(self.problems)


class Triage(Protocol):
    """Reads a failed run's output for what failed and where."""

    async def read(self, output: str) -> Triaged: ...


class Notifier(Protocol):
    """Posts one notification and records it (``wisp.notify.notifier.Notifier``)."""

    async def post(self, title: str, body: str, *, source: str) -> Notification: ...
