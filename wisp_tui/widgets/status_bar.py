"""The status line (§8): model, directory, branch on the left; mode and turn on the right."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from wisp.protocol import Status

from .. import palette


@dataclass(frozen=True)
class TurnState:
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

    def render(self) -> Text:
        if self.message is not None:
            return Text(self.message, style=palette.MIST)
        if self.status is None:
            return Text("connecting…", style=palette.MIST)
        left, right = self._left(self.status), self._right(self.status)
        gap = self.size.width - left.cell_len - right.cell_len
        if gap < 3:
            return Text.assemble(left, (" · ", palette.MIST), right)
        return Text.assemble(left, " " * gap, right)

    def _left(self, status: Status) -> Text:
        text = Text(status.model, style=palette.WISP)
        if status.context_used is not None:
            share = round(status.context_used * 100)
            colour = palette.MIST if share < 50 else palette.GLOW if share < 80 else palette.AMBER
            text.append(f":{share}% used", style=colour)
        text.append(" · ", style=palette.MIST)
        text.append(status.directory, style=palette.WISP)
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
        if not status.sandbox:
            text.append("no sandbox · ", style=palette.AMBER)
        text.append(status.approval, style=palette.MIST)
        turn = self.turn
        if turn.is_running:
            text.append(" · ", style=palette.MIST)
            text.append(f"turn {turn.number}…", style=palette.WISP)
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


def _last(turn: TurnState) -> tuple[str, str]:
    seconds = turn.seconds or 0.0
    match turn.outcome:
        case "error":
            return f"last:failed {seconds:.1f}s", palette.EMBER
        case "stopped":
            return f"last:stopped {seconds:.1f}s", palette.AMBER
    return f"last:{seconds:.1f}s", palette.MIST
