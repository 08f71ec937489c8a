"""What the running turn or typed command is doing: the ``activity`` lines and the plain chat's
working line (both described in docs/protocol.md).

The tracker follows a turn's recorded events, matched by their Details type, and says when the
activity changed; the caller writes the ``activity`` line before the ``event`` that changed it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import msgspec
from msgspec import UNSET

from wisp import protocol as p
from wisp.audit.details import Details
from wisp.audit.kinds import (
    ApprovalDecided,
    ApprovalRequested,
    CommandOutcome,
    ContextCondensation,
    Error,
    InquiryRequested,
    InquirySettled,
    ModelReasoning,
    ToolResult,
)
from wisp.audit.kinds import ToolCall as ToolCallEvent
from wisp.chat.event_text import call_summary, shorten

WAITING = "waiting for the model"
WRITING = "writing the reply"


def activity(
    doing: str,
    *,
    asking: bool = False,
    turn_seconds: float = 0.0,
    thinking: bool = False,
    stoppable: bool = False,
    stopping: bool = False,
) -> p.Activity:
    """An ``activity`` line of a running turn: ``asking`` and ``turnSeconds`` always sent,
    the other flags only when true."""
    return p.Activity(
        doing=doing,
        asking=asking,
        turn_seconds=turn_seconds,
        thinking=True if thinking else UNSET,
        stoppable=True if stoppable else UNSET,
        stopping=True if stopping else UNSET,
    )


def _is_same(one: p.Activity, other: p.Activity) -> bool:
    """The same text and flags, whenever each began."""
    return msgspec.structs.replace(one, turn_seconds=other.turn_seconds) == other


class ActivityTracker:
    """The activity of one turn or typed command at a time, on an injected monotonic clock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._current: p.Activity | None = None
        self._started = 0.0
        """When the turn or typed command started, on the clock."""
        self._began = 0.0
        """When the current activity began, on the clock."""
        self._typed: str | None = None
        """The running typed command, shortened; None during a turn."""

    @property
    def current(self) -> p.Activity | None:
        """What runs now, or None between turns and typed commands."""
        return self._current

    def start_turn(self) -> p.Activity:
        """A chat turn starts: it waits for the model."""
        self._typed = None
        return self._start(WAITING)

    def start_typed(self, command: str) -> p.Activity:
        """A ``!`` command starts: ``running <command>``, shortened."""
        self._typed = shorten(command)
        return self._start(f"running {self._typed}")

    def on_event(self, details: Details) -> p.Activity | None:
        """Follows one recorded event; the new activity when it changed, else None."""
        # While a typed command runs, or once stopping, events leave the activity as it is.
        if self._current is None or self._typed is not None or self._current.stopping is True:
            return None
        following = _following(details)
        return None if following is None else self._change(following)

    def on_text(self) -> p.Activity | None:
        """The reply's text is streaming: ``writing the reply``, when the turn was waiting for
        the model (a change only once, not per fragment)."""
        current = self._current
        if current is None or self._typed is not None or current.doing != WAITING:
            return None
        return self._change(_running(WRITING))

    def stopping(self) -> p.Activity | None:
        """An ``interrupt`` arrived: ``stopping the turn`` or ``stopping <command>``; None when
        nothing runs or it is stopping already."""
        if self._current is None or self._current.stopping is True:
            return None
        doing = "stopping the turn" if self._typed is None else f"stopping {self._typed}"
        return self._change(activity(doing, stopping=True))

    def end(self) -> p.Activity:
        """The turn or typed command has ended: ``{doing: null}``."""
        self._current = None
        self._typed = None
        return p.Activity(doing=None)

    def working_line(self, now: float | None = None) -> str | None:
        """The plain chat's working line at ``now`` (the clock's time by default), as
        ``12 s · running git status (8 s) · Ctrl-C stops it``; None while asking or idle."""
        current = self._current
        if current is None or current.doing is None or current.asking is True:
            return None
        now = self._clock() if now is None else now
        turn = int(max(0.0, now - self._started))
        doing = int(max(0.0, now - self._began))
        line = f"{turn} s · {current.doing}"
        if self._began - self._started > 0.5 and doing != turn:
            line += f" ({doing} s)"
        if current.stoppable is True:
            line += " · Ctrl-C stops it"
        if current.stopping is True:
            line += " · Ctrl-C again kills it"
        return line

    def _start(self, doing: str) -> p.Activity:
        self._started = self._began = self._clock()
        self._current = activity(doing, stoppable=True)
        return self._current

    def _change(self, following: p.Activity) -> p.Activity | None:
        """Makes ``following`` current, timed now, unless it is what runs already."""
        if self._current is not None and _is_same(following, self._current):
            return None
        now = self._clock()
        self._current = msgspec.structs.replace(
            following, turn_seconds=round(now - self._started, 1)
        )
        self._began = now
        return self._current


def _following(details: Details) -> p.Activity | None:
    """The activity a recorded event of a running turn sets, or None for one that sets none.
    Its ``turn_seconds`` is left for the tracker."""
    match details:
        case ToolCallEvent():
            return _running(_calling(details))
        case ApprovalRequested():
            return _running("waiting for your approval", asking=True)
        case InquiryRequested():
            return _running("waiting for your answer", asking=True)
        case ContextCondensation():
            return _running("condensing the context")
        case ModelReasoning(phase="start"):
            return _running("thinking", thinking=True)
        case ModelReasoning(phase="end"):
            return _running(WAITING)
        case ToolResult() | CommandOutcome() | ApprovalDecided() | InquirySettled() | Error():
            return _running(WAITING)  # back to the model
        case _:
            return None


def _running(doing: str, *, asking: bool = False, thinking: bool = False) -> p.Activity:
    return activity(doing, asking=asking, thinking=thinking, stoppable=True)


def _calling(details: ToolCallEvent) -> str:
    """A call as an activity: its summary, and run_command's as ``running <command>``."""
    call = call_summary(details)
    if call.startswith("run_command "):
        return "running " + call.removeprefix("run_command ")
    return call
