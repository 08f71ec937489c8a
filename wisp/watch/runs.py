"""The watch's loop (docs/watch.md, "Runs"): the command at start, after each batch of changes
and on the interval; each run shown, read and recorded as ``watch.run``; a change of state
notified.

A run is one launch that ended by itself (or by ``--timeout``). A launch that a restart or the
end of the watch stopped is not a run: it has no verdict, so it gets no number, no event and no
place in the pass/fail history (its ``policy.decision`` is in the log all the same).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import msgspec

from wisp.audit.kinds import WatchRun
from wisp.watch.lines import (
    changed_words,
    restart_line,
    run_line,
    same_failure_line,
    triage_lines,
)
from wisp.watch.pending import Pending
from wisp.watch.types import Finished, Launch, Notifier, State, Triage, Triaged, Trigger
from wisp.watch.watcher import Watcher

_TIMES = re.compile(r"\d+(?:\.\d+)?\s?(?:ms|us|µs|s|secs?|seconds?)\b")
"""Durations in a command's output (``1 failed in 0.03s``): they differ on every run, and a
failure is the same failure whatever they say."""


class WatchOptions(msgspec.Struct, frozen=True, kw_only=True):
    command: str
    """The command's line, as shown and recorded."""
    interval: float | None = None
    """``--interval``: a run this many seconds after the last ended, when nothing changed."""
    restart: bool = False
    """``--restart``: a change stops the running command and starts it again."""
    base: Path = Path()
    """Changed paths are named beneath this folder (the working folder)."""


class History(msgspec.Struct, kw_only=True):
    """What the runs so far leave the next one."""

    runs: int = 0
    state: State | None = None
    failure: str | None = None
    """The last failed run's output, its durations masked."""
    failed_run: int = 0
    told_unposted: bool = False
    """Whether the person was told once why a notification could not be posted."""


class Watch:
    """One watch: its command, what reads a failure, what notifies, where it all goes."""

    def __init__(
        self,
        options: WatchOptions,
        launch: Launch,
        *,
        record: Callable[[Any], Any],
        notifier: Notifier,
        triage: Triage | None,
        out: TextIO,
        err: TextIO,
        clock: Callable[[], str],
    ) -> None:
        self.options = options
        self.launch = launch
        self.record = record
        self.notifier = notifier
        self.triage = triage
        self.out = out
        self.err = err
        self.clock = clock
        self.history = History()
        self.ending = asyncio.Event()
        """Set by the first Ctrl-C: the running command gets SIGTERM and the watch ends."""
        self._kill_now = asyncio.Event()

    def end(self) -> None:
        """Ctrl-C: the first ends the watch (the command SIGTERM, SIGKILL after a grace), a
        second kills the command at once."""
        if self.ending.is_set():
            self._kill_now.set()
        self.ending.set()

    async def run(self, pending: Pending) -> None:
        """Run until ``end``: at start, then on each change and interval."""
        trigger: Trigger | None = "start"
        restarted = False
        while trigger is not None:
            changed = pending.take()
            if trigger == "change" and not changed and not restarted:
                trigger = await self._next(pending)  # what came is gone already: no change
                continue
            finished = await self._launch(pending)
            if self.ending.is_set():
                return
            restarted = finished.stopped
            if restarted:  # the changes that stopped it start it again
                self._say(restart_line(self.clock(), self._named(pending), finished))
                trigger = "change"
                continue
            await self._report(trigger, changed, finished)
            trigger = await self._next(pending)

    async def _launch(self, pending: Pending) -> Finished:
        """One launch; under ``--restart`` a change while it runs kills it."""
        self._kill_now = asyncio.Event()
        if not self.options.restart:
            return await self.launch(stop=self.ending, kill_now=self._kill_now)
        restarting = asyncio.ensure_future(_set_when(pending.arrived, self._kill_now))
        try:
            return await self.launch(stop=self.ending, kill_now=self._kill_now)
        finally:
            restarting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await restarting

    async def _next(self, pending: Pending) -> Trigger | None:
        """What starts the next run: a change, else the interval; None once the watch ends."""
        if self.ending.is_set():
            return None
        arrived = asyncio.ensure_future(pending.arrived.wait())
        ending = asyncio.ensure_future(self.ending.wait())
        try:
            await asyncio.wait(
                {arrived, ending},
                timeout=self.options.interval,
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            arrived.cancel()
            ending.cancel()
        if self.ending.is_set():
            return None
        return "change" if pending.arrived.is_set() else "interval"

    async def _report(self, trigger: Trigger, changed: list[Path], finished: Finished) -> None:
        """The run's line, its output on failure, the triage, the notification, the event."""
        history = self.history
        number = history.runs + 1
        state: State = "pass" if finished.exit_status == 0 and not finished.timed_out else "fail"
        previous = history.state
        is_changed = previous is not None and state != previous
        words = changed_words(changed, self.options.base)
        self._say(run_line(self.clock(), number, trigger, words, state, finished))
        triaged = None
        if state == "fail":
            if finished.output:
                self._say(finished.output.rstrip("\n"))
            triaged = await self._triage(number, finished.output)
        notified = await self._notify(number, state, finished, triaged) if is_changed else False
        self.record(
            WatchRun(
                command=self.options.command,
                run=number,
                trigger=trigger,
                exit_status=finished.exit_status,
                timed_out=finished.timed_out,
                state=state,
                previous=previous,
                changed=is_changed,
                seconds=round(finished.seconds, 3),
                findings=None if triaged is None else triaged.findings,
                triage_error=None if triaged is None else triaged.error,
                notified=notified,
            )
        )
        history.runs, history.state = number, state

    async def _triage(self, number: int, output: str) -> Triaged | None:
        """The failure read by the model, unless it is the last failure's over again."""
        history = self.history
        masked = _TIMES.sub("", output)
        repeated = masked == history.failure
        if not repeated:
            history.failure, history.failed_run = masked, number
        if self.triage is None:
            return None
        if repeated:
            self._say(same_failure_line(history.failed_run))
            return None
        triaged = await self._read(output)
        self._say("\n".join(triage_lines(triaged)))
        return triaged

    async def _read(self, output: str) -> Triaged:
        """The triage, unless the watch ends first: Ctrl-C never waits on a model."""
        assert self.triage is not None
        reading = asyncio.ensure_future(self.triage.read(output))
        ending = asyncio.ensure_future(self.ending.wait())
        try:
            await asyncio.wait({reading, ending}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ending.cancel()
        if not reading.done():
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reading
            return Triaged(error="the watch ended before the triage did")
        return reading.result()

    async def _notify(
        self, number: int, state: State, finished: Finished, triaged: Triaged | None
    ) -> bool:
        """One notification for a change of state; whether it was posted."""
        command = self.options.command
        if state == "pass":
            title, body = f"passes again: {command}", f"run {number} passed"
        else:
            title = f"fails: {command}"
            body = f"run {number}: {_ended(finished)}"
            if triaged is not None and triaged.problems:
                first = triaged.problems[0]
                body += f"; {first.where + ': ' if first.where else ''}{first.what}"
        notification = await self.notifier.post(title, body, source="watch")
        if notification.outcome == "posted":
            return True
        if not self.history.told_unposted:
            self.history.told_unposted = True
            why = notification.reason or "refused"
            if notification.skipped:
                why += f" ({'; '.join(notification.skipped)})"
            self._say(f"wisp: a change of state could not be notified: {why}", err=True)
        return False

    def _named(self, pending: Pending) -> str:
        # Peeked, not taken: the next launch takes them as its changes.
        return changed_words(list(pending.peek()), self.options.base)

    def _say(self, text: str, *, err: bool = False) -> None:
        stream = self.err if err else self.out
        print(text, file=stream, flush=True)


def _ended(finished: Finished) -> str:
    if finished.timed_out:
        return "timed out"
    if finished.exit_status < 0:
        return f"killed by signal {-finished.exit_status}"
    return f"exit {finished.exit_status}"


async def _set_when(event: asyncio.Event, then: asyncio.Event) -> None:
    await event.wait()
    then.set()


async def watch_changes(watch: Watch, watcher: Watcher, pending: Pending) -> None:
    """The watcher feeding ``pending`` and the watch running on it, from once the kernel
    watches every path until the watch ends; an error in either ends both."""
    ready = asyncio.Event()
    feeding = asyncio.ensure_future(watcher.feed(pending, ready))
    waiting = asyncio.ensure_future(ready.wait())
    running: asyncio.Future[None] | None = None
    try:
        await asyncio.wait({feeding, waiting}, return_when=asyncio.FIRST_COMPLETED)
        if not feeding.done():
            running = asyncio.ensure_future(watch.run(pending))
            await asyncio.wait({feeding, running}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (running, waiting, feeding):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
    for task in (feeding, running):
        if task is not None and task.done() and not task.cancelled():
            task.result()  # the error that ended it, if any
