"""A panel (docs/tui.md, "Panels"): a whole text in a rounded box of at most 16 rows, scrolled,
closed with Esc, Ctrl-C or Ctrl-D. A context panel steps between turns with Left and Right. The
app opens it (``panels``)."""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.events import Key, Resize
from textual.geometry import Size
from textual.message import Message
from textual.screen import ModalScreen
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from wisp.protocol import EventOutput, View

from ..keys import STOP_KEYS
from ..widgets.tool_line import clean_output
from .chat import PANEL_BINDINGS

ROWS = 16
"""The most text rows a panel shows; PageUp and PageDown move this many."""

HINT = " ↑↓ scroll · esc close "
CONTEXT_HINT = " ↑↓ scroll · ←→ turns · esc close "


VIEW_TITLES = {"turns": "context · turns", "facts": "facts", "summary": "summary"}


def output_text(output: EventOutput) -> str:
    """An output whole, and how much of it wisp's copy left out."""
    if not output.truncated:
        return output.text
    return (
        f"{output.text.rstrip(chr(10))}\n"
        f"… truncated: {output.lines} lines, {output.bytes} bytes in all"
    )


def view_title(view: View) -> str:
    """The panel title for a `view` line."""
    if view.kind in ("context", "thinking"):
        if view.turn is None:
            return "context · next request" if view.kind == "context" else "thinking"
        return f"{view.kind} · turn {view.turn}"
    return VIEW_TITLES.get(view.kind, view.kind)


def stepped_turn(turn: int | None, turns: int, step: int) -> int | None:
    """The context a Left (-1) or Right (+1) shows after `turn` (None: the next request) of a
    conversation of `turns` turns: Left from the next request is the latest turn and never goes
    below turn 1; Right past the latest turn is the next request again. The same value back means
    there is nowhere to go."""
    if turn is None:
        return turns if step < 0 and turns >= 1 else None
    if step < 0:
        return max(turn - 1, 1)
    return turn + 1 if turn < turns else None


def wrap_rows(lines: list[str], width: int) -> list[str]:
    """Each line cut into rows of at most `width` cells (a hard wrap, as a terminal does)."""
    if width <= 0:
        return list(lines)
    rows: list[str] = []
    for line in lines:
        if len(line) <= width and (line.isascii() or cell_len(line) <= width):
            rows.append(line)  # most lines: no measuring beyond this
        elif line.isascii():
            rows.extend(line[start : start + width] for start in range(0, len(line), width))
        else:
            rows.extend(chop_cells(line, width))
    return rows


class PanelText(ScrollView, can_focus=False):
    """The panel's text, drawn a row at a time: only visible rows are ever rendered, so a
    10,000-line output opens at once. Selectable with the mouse like the transcript."""

    ALLOW_SELECT = True
    DEFAULT_CSS = """
    PanelText {
        height: auto;
        color: $white;
        background: transparent;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        lines = clean_output(text).split("\n")
        if len(lines) > 1 and lines[-1] == "":
            lines.pop()
        self._lines = lines
        self.rows: list[str] = []
        self._wrapped_at = -1

    def on_resize(self, event: Resize) -> None:
        self._wrap(self.scrollable_content_region.width)

    def watch_show_vertical_scrollbar(self) -> None:
        # The scrollbar takes a column once the text is taller than the box: wrap again, or
        # each long row's last character would be drawn under it.
        self.call_after_refresh(lambda: self._wrap(self.scrollable_content_region.width))

    def _wrap(self, width: int) -> None:
        if width == self._wrapped_at:
            return
        self._wrapped_at = width
        self.rows = wrap_rows(self._lines, width)
        self.virtual_size = Size(width, len(self.rows))
        self.refresh()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(wrap_rows(self._lines, width)) if self._wrapped_at != width else len(self.rows)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = self.scroll_offset.y + y
        style = self.rich_style
        if index >= len(self.rows):
            return Strip.blank(width, style)
        row = self.rows[index]
        segments = [Segment(row, style)]
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(index)) is not None:
            segments = self._selected(row, span, style)
        return Strip(segments).crop_extend(0, width, style).apply_offsets(0, index)

    def _selected(self, row: str, span: tuple[int, int], style: object) -> list[Segment]:
        start, end = span
        end = len(row) if end == -1 else end
        selected = self.rich_style + self.screen.get_component_rich_style("screen--selection")
        parts = [(row[:start], style), (row[start:end], selected), (row[end:], style)]
        return [Segment(text, part_style) for text, part_style in parts if text]  # type: ignore[arg-type]

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract("\n".join(self.rows)), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()


class Panel(ModalScreen[None]):
    """` title ` over the text; Up/Down, PageUp/PageDown scroll; Esc, Ctrl-C or Ctrl-D closes it;
    typing does nothing. In a context panel Left and Right ask the app for the turn before or
    after (`StepTurn`). Ctrl-O, Ctrl-T and F1 are the app's, as on the main screen: its own key
    closes a panel, another swaps it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # A panel is the first thing Ctrl-C closes (docs/tui.md, "Stopping and quitting").
        Binding(STOP_KEYS, "close", show=False, priority=True),
        *PANEL_BINDINGS,
        Binding("escape", "close", "close", show=False),
        Binding("up", "scroll_rows(-1)", show=False),
        Binding("down", "scroll_rows(1)", show=False),
        Binding("pageup", f"scroll_rows({-ROWS})", show=False),
        Binding("pagedown", f"scroll_rows({ROWS})", show=False),
        Binding("left", "step_turn(-1)", show=False),
        Binding("right", "step_turn(1)", show=False),
    ]

    class StepTurn(Message):
        """Left or Right in a context panel: show the context of `turn` (None: the next
        request)."""

        def __init__(self, turn: int | None) -> None:
            super().__init__()
            self.turn = turn

    DEFAULT_CSS = """
    Panel {
        align: center bottom;
        background: transparent;
    }
    Panel > #box {
        width: 100%;
        height: auto;
        max-height: 18;  /* 16 rows of text inside the border */
        margin: 0 0 2 0;
        border: round $wisp;
        border-title-color: $wisp;
        border-subtitle-color: $mist;
        padding: 0 1;
        background: $background;
    }
    """

    def __init__(
        self,
        title: str,
        text: str,
        *,
        kind: str = "output",
        turn: int | None = None,
        turns: int = 0,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.kind = kind
        """What the panel shows (`output`, or a view's kind), so a second Ctrl-O knows it."""
        self.turn = turn
        """The turn whose context a context panel shows; None for the next request."""
        self.turns = turns
        """How many turns the conversation had when the view was made."""

    @property
    def is_context(self) -> bool:
        return self.kind == "context"

    def compose(self) -> ComposeResult:
        box = PanelText(self.text)
        box.id = "box"
        box.border_title = f" {self.title_text} "
        box.border_subtitle = CONTEXT_HINT if self.is_context else HINT
        yield box

    @property
    def body(self) -> PanelText:
        return self.query_one(PanelText)

    def action_scroll_rows(self, rows: int) -> None:
        body = self.body
        body.scroll_to(y=body.scroll_offset.y + rows, animate=False, immediate=True)

    def action_step_turn(self, step: int) -> None:
        if not self.is_context:
            return
        turn = stepped_turn(self.turn, self.turns, step)
        if turn != self.turn:
            self.post_message(self.StepTurn(turn))

    def action_close(self) -> None:
        self.dismiss(None)

    def on_key(self, event: Key) -> None:
        # Typing and Enter do nothing here, and never reach the input underneath.
        if event.is_printable or event.key == "enter":
            event.stop()
            event.prevent_default()
