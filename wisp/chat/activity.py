"""What the running turn or typed command is doing: the ``activity`` lines and the plain chat's
working line (protocol.md §3.7, §10.7).

The tracker follows a turn's audit events and says when the activity changed; the caller writes
the ``activity`` line before the ``event`` that changed it (§2).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from wisp.chat.event_text import event_text, shorten

WAITING = "waiting for the model"

# Events after which the turn waits for the model again (§3.7).
_BACK_TO_THE_MODEL = frozenset(
    {"tool.result", "command.outcome", "approval.decided", "inquiry.settled", "error"}
)


@dataclass(frozen=True)
class Activity:
    """One ``activity`` line: what runs now, or ``doing`` None when nothing does any more."""

    doing: str | None
    asking: bool = False
    """The person is being asked (an approval or a question); the working line is not drawn."""
    turn_seconds: float = 0.0
    """Seconds from the start of the turn (or typed command) to when this activity began."""
    thinking: bool = False
    stoppable: bool = False
    """An ``interrupt`` would stop it (D8): every activity of a running turn or typed command."""
    stopping: bool = False
    """An ``interrupt`` arrived; a second one kills what still runs."""

    def is_same(self, other: Activity) -> bool:
        """The same text and flags, whenever each began."""
        return replace(self, turn_seconds=other.turn_seconds) == other


class ActivityTracker:
    """The activity of one turn or typed command at a time, on an injected monotonic clock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._current: Activity | None = None
        self._started = 0.0
        """When the turn or typed command started, on the clock."""
        self._began = 0.0
        """When the current activity began, on the clock."""
        self._typed: str | None = None
        """The running typed command, shortened; None during a turn."""

    @property
    def current(self) -> Activity | None:
        """What runs now, or None between turns and typed commands."""
        return self._current

    def start_turn(self) -> Activity:
        """A chat turn starts: it waits for the model."""
        self._typed = None
        return self._start(WAITING)

    def start_typed(self, command: str) -> Activity:
        """A ``!`` command starts: ``running <command>``, shortened."""
        self._typed = shorten(command)
        return self._start(f"running {self._typed}")

    def on_event(self, kind: str, details: Mapping[str, Any], text: str | None) -> Activity | None:
        """Follows one audit event (``text`` is its ``event.text``); the new activity when it
        changed, else None."""
        # While a typed command runs, or once stopping, events leave the activity as it is.
        if self._current is None or self._typed is not None or self._current.stopping:
            return None
        following = _following(kind, details, text)
        return None if following is None else self._change(following)

    def stopping(self) -> Activity | None:
        """An ``interrupt`` arrived: ``stopping the turn`` or ``stopping <command>``; None when
        nothing runs or it is stopping already."""
        if self._current is None or self._current.stopping:
            return None
        doing = "stopping the turn" if self._typed is None else f"stopping {self._typed}"
        return self._change(Activity(doing, stopping=True))

    def end(self) -> Activity:
        """The turn or typed command has ended: ``{doing: null}``."""
        self._current = None
        self._typed = None
        return Activity(doing=None)

    def working_line(self, now: float | None = None) -> str | None:
        """The plain chat's working line at ``now`` (the clock's time by default), as
        ``12 s · running git status (8 s) · Ctrl-C stops it``; None while asking or idle."""
        current = self._current
        if current is None or current.doing is None or current.asking:
            return None
        now = self._clock() if now is None else now
        turn = int(max(0.0, now - self._started))
        doing = int(max(0.0, now - self._began))
        line = f"{turn} s · {current.doing}"
        if self._began - self._started > 0.5 and doing != turn:
            line += f" ({doing} s)"
        if current.stoppable:
            line += " · Ctrl-C stops it"
        if current.stopping:
            line += " · Ctrl-C again kills it"
        return line

    def _start(self, doing: str) -> Activity:
        self._started = self._began = self._clock()
        self._current = Activity(doing, turn_seconds=0.0, stoppable=True)
        return self._current

    def _change(self, following: Activity) -> Activity | None:
        """Makes ``following`` current, timed now, unless it is what runs already."""
        if self._current is not None and following.is_same(self._current):
            return None
        now = self._clock()
        self._current = replace(following, turn_seconds=round(now - self._started, 1))
        self._began = now
        return self._current


def _following(kind: str, details: Mapping[str, Any], text: str | None) -> Activity | None:
    """The activity an event of a running turn sets (§3.7's table), or None for one that sets
    none. Its ``turn_seconds`` is left for the tracker."""
    match kind:
        case "tool.call":
            return _running(_calling(text or event_text(kind, None, details) or "⚙ a tool"))
        case "approval.requested":
            return _running("waiting for your approval", asking=True)
        case "inquiry.requested":
            return _running("waiting for your answer", asking=True)
        case "context.condensation":
            return _running("condensing the context")
        case "model.reasoning" if details.get("phase") == "start":
            return _running("thinking", thinking=True)
        case "model.reasoning" if details.get("phase") == "end":
            return _running(WAITING)
        case _ if kind in _BACK_TO_THE_MODEL:
            return _running(WAITING)
        case _:
            return None


def _running(doing: str, *, asking: bool = False, thinking: bool = False) -> Activity:
    return Activity(doing, asking=asking, thinking=thinking, stoppable=True)


def _calling(line: str) -> str:
    """A ``tool.call`` line as an activity: without ``⚙ ``, and run_command as ``running``."""
    call = line.removeprefix("⚙ ")
    if call.startswith("run_command "):
        return "running " + call.removeprefix("run_command ")
    return call
