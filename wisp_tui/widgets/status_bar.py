"""The status line (docs/tui.md, "Status line"): model, context meter, directory, branch on the
left; mode and turn on the right."""

from __future__ import annotations

import math
import time

import msgspec
from rich.text import Text
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from wisp.protocol import Status

from .. import palette


class TurnState(msgspec.Struct, frozen=True):
    """The running turn, or how the last one ended."""

    number: int | None = None
    is_running: bool = False
    seconds: float | None = None
    outcome: str = "ok"
    input_tokens: int | None = None
    output_tokens: int | None = None
    doing: str | None = None


class StatusBar(Widget):
    """One row; the app sets `status`, `turn` and `quitting`, and it draws them."""

    DEFAULT_CSS = """
    StatusBar { height: 1; padding: 0 1; color: $mist; }
    """

    status: reactive[Status | None] = reactive(None, always_update=True)
    """The latest `status` line; None before the first (`connecting…`)."""
    turn: reactive[TurnState] = reactive(TurnState)
    """The running or last turn."""
    message: reactive[str | None] = reactive(None)
    """A whole-line message that replaces the rest, e.g. the quit state."""
    waiting: reactive[int] = reactive(0)
    """How many requests from `wisp mcp` servers wait behind a half-typed line."""
    context_used: reactive[float | None] = reactive(None)
    """The share of the model's window in use, 0..1, from the latest `status` or `context` line
    (a `context` line comes after every model request, so the meter moves while a turn runs);
    None when the window is unknown: no meter."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._turn_began = 0.0  # time.monotonic() at the running turn's start, on our clock
        self._ticker: Timer | None = None
        self._shown_seconds = -1

    def watch_turn(self, turn: TurnState) -> None:
        """A running turn's seconds tick once a second; nothing ticks between turns."""
        if turn.is_running and self._ticker is None:
            self._turn_began = time.monotonic()
            self._shown_seconds = 0
            self._ticker = self.set_interval(1.0, self._tick)
        elif not turn.is_running and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def sync_seconds(self, turn_seconds: float) -> None:
        """wisp's `activity.turnSeconds`: the turn's age by wisp's clock, carried on by ours.
        Nonsense (NaN, negative, beyond a day) is clamped, never trusted."""
        if not math.isfinite(turn_seconds):
            return
        self._turn_began = time.monotonic() - min(max(turn_seconds, 0.0), 86_400.0)
        self._tick()

    @property
    def turn_seconds(self) -> int:
        """Whole seconds the running turn has taken so far."""
        return int(time.monotonic() - self._turn_began)

    def _tick(self) -> None:
        if self.turn_seconds != self._shown_seconds:  # redraw only when the text changes
            self._shown_seconds = self.turn_seconds
            self.refresh()

    def render(self) -> Text:
        if self.message is not None:
            return Text(self.message, style=palette.MIST)
        if self.status is None:
            return Text("connecting…", style=palette.MIST)
        width = self.size.width
        right = self._right(self.status)
        left = self._left(self.status)
        if left.cell_len + right.cell_len + 3 > width:
            # Fitting: the directory gives way first, then the model's name is cut.
            left = self._left(self.status, short_directory=True)
            over = left.cell_len + right.cell_len + 3 - width
            if over > 0:
                model_room = max(len(self.status.model) - over, 8)
                left = self._left(self.status, short_directory=True, model_room=model_room)
        gap = width - left.cell_len - right.cell_len
        if gap < 3:
            return Text.assemble(left, (" · ", palette.MIST), right)
        return Text.assemble(left, " " * gap, right)

    def _left(
        self, status: Status, *, short_directory: bool = False, model_room: int | None = None
    ) -> Text:
        text = Text(status.model, style=palette.WISP)
        if model_room is not None:
            text.truncate(model_room, overflow="ellipsis")
        if self.context_used is not None and math.isfinite(self.context_used):
            text.append(*context_meter(self.context_used))
        text.append(" · ", style=palette.MIST)
        directory = status.directory
        if short_directory and "/" in directory.rstrip("/"):
            directory = "…/" + directory.rstrip("/").rsplit("/", 1)[1]
        text.append(directory, style=palette.WISP)
        if status.branch:
            text.append(f":{status.branch}", style=palette.GLOW)
        if status.added or status.removed:
            text.append(f"+{status.added or 0}", style=palette.ADDED)
            text.append(f"-{status.removed or 0}", style=palette.REMOVED)
        elif status.dirty:
            text.append("*", style=palette.AMBER)
        return text

    def _right(self, status: Status) -> Text:
        text = Text()
        if self.waiting:
            text.append(f"⚠ {self.waiting} waiting · ", style=palette.AMBER)
        if not status.sandbox:
            text.append("no sandbox · ", style=palette.AMBER)
        text.append(status.approval, style=palette.MIST)
        turn = self.turn
        if turn.is_running:
            text.append(" · ", style=palette.MIST)
            text.append(f"turn {turn.number}…", style=palette.WISP)
            text.append(f" · {self.turn_seconds} s", style=palette.MIST)
            if turn.doing:
                text.append(f" · {turn.doing}", style=palette.MIST)
        elif turn.seconds is not None:
            text.append(" · ", style=palette.MIST)
            text.append(*_last(turn))
            if turn.input_tokens is not None and turn.output_tokens is not None:
                text.append(" · ", style=palette.MIST)
                text.append(f"↓{turn.input_tokens:,}", style=palette.TOKENS_IN)
                text.append(f" ↑{turn.output_tokens:,}", style=palette.TOKENS_OUT)
        return text


def context_meter(used: float) -> tuple[str, str]:
    """`:42% used`, muted under half the window, brighter from half, amber from 80 %."""
    share = round(min(max(used, 0.0), 9.99) * 100)
    colour = palette.MIST if share < 50 else palette.GLOW if share < 80 else palette.AMBER
    return f":{share}% used", colour


def _last(turn: TurnState) -> tuple[str, str]:
    seconds = turn.seconds or 0.0
    match turn.outcome:
        case "error":
            return f"last:failed {seconds:.1f}s", palette.EMBER
        case "stopped":
            return f"last:stopped {seconds:.1f}s", palette.AMBER
    return f"last:{seconds:.1f}s", palette.MIST
