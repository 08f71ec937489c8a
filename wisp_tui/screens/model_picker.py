"""The model picker (docs/tui.md, "Dialogs"): `/models` as a table whose rows Space turns on and
off."""

from __future__ import annotations

import msgspec
from msgspec import UnsetType
from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from wisp.protocol import Choice

from .. import palette
from .dialog import Dialog

HINT = "↑↓ to move · Space on or off · u to use · Enter to save · Esc to leave them"
INDENT = 6
"""`▸ [x] ` before the first cell."""
LAST_COLUMN_MIN = 20
"""Columns are dropped until the last one has at least this many cells."""
FIRST_COLUMN_MIN = 12
"""The first column is cut to no fewer cells than this to make room for the last."""


def cut(text: str, width: int) -> str:
    """`text` cut to `width` cells, ending with `…` when it was longer."""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, max(width - 1, 0)) + "…" if width > 0 else ""


def table_rows(choice: Choice, width: int, in_use: str | None = None) -> tuple[str, list[str]]:
    """The heading row and one row per option (without the 6-cell prefix), fitted to `width`.

    `in_use` (default: the choice's `current`) is the value whose first cell is marked `* `.
    """
    in_use = choice.current if in_use is None else in_use
    columns = choice.columns if not isinstance(choice.columns, UnsetType) else []
    headings = [column.heading for column in columns]
    rows: list[list[str]] = []
    for option in choice.options:
        cells = list(option.cells) if not isinstance(option.cells, UnsetType) else [option.label]
        cells += [""] * (len(headings) - len(cells))
        if cells:
            cells[0] = ("* " if option.value == in_use else "  ") + cells[0]
        rows.append(cells)
    count = max([len(headings), *(len(row) for row in rows)], default=0)
    headings += [""] * (count - len(headings))
    if headings:
        headings[0] = "  " + headings[0]  # over the cells, not over their `* ` in-use mark
    kept = list(range(count))
    widths = [max(cell_len(row[i]) for row in [headings, *rows]) + 2 for i in range(count)]

    def last_room() -> int:
        return width - INDENT - sum(widths[i] for i in kept[:-1])

    ranks = sorted((column.drop, i) for i, column in enumerate(columns) if column.drop > 0)
    for _, index in ranks:
        if len(kept) <= 1 or last_room() >= LAST_COLUMN_MIN:
            break
        kept.remove(index)

    # Still short of room (a long first cell): the first column gives up cells, cut with `…`.
    short = LAST_COLUMN_MIN - last_room()
    if short > 0 and len(kept) > 1:
        first = kept[0]
        widths[first] = max(widths[first] - short, FIRST_COLUMN_MIN + 2)

    def line(cells: list[str]) -> str:
        if not kept:
            return ""
        lead = ""
        for i in kept[:-1]:
            cell = cut(cells[i], widths[i] - 2)
            lead += cell + " " * (widths[i] - cell_len(cell))
        return lead + cut(cells[kept[-1]], width - INDENT - cell_len(lead))

    return line(headings).rstrip(), [line(row).rstrip() for row in rows]


class PickerAnswer(msgspec.Struct, frozen=True):
    """The rows left on, in order, and the model to use from now on (None: keep the one in use)."""

    values: list[str]
    use: str | None


class ModelPickerScreen(Dialog[PickerAnswer | None]):
    """Dismisses with a `PickerAnswer` (Enter), or None to leave everything as it was."""

    DEFAULT_CSS = """
    ModelPickerScreen #title { color: $white; }
    ModelPickerScreen #table {
        height: auto; max-height: 10; text-wrap: nowrap; text-overflow: ellipsis;
    }
    ModelPickerScreen #hint { color: $mist; }
    """

    def __init__(self, choice: Choice) -> None:
        super().__init__(choice.id)
        self.choice = choice
        self.on_values = [option.on is True for option in choice.options]
        self.highlighted = 0
        self.in_use = choice.current
        """The row marked `* `: `u` moves the mark, and Enter switches to it."""
        self.table_text = Text()
        """The table as last drawn."""

    def compose(self) -> ComposeResult:
        with Vertical(id="box") as box:
            box.border_title = "choose"
            yield Static(Text(self.choice.title), id="title")
            yield Static(id="table")
            yield Static(HINT, id="hint")

    def on_mount(self) -> None:
        # Textual runs Dialog.on_mount (the grace) after this one: not called here again.
        self._draw()

    def on_resize(self, event: events.Resize) -> None:
        self._draw()

    def _draw(self) -> None:
        table = self.query_one("#table", Static)
        width = table.content_size.width or max(self.size.width - 4, 20)
        heading, rows = table_rows(self.choice, width, self.in_use or "")
        text = Text(" " * INDENT + heading, style=palette.MIST)
        for index, row in enumerate(rows):
            is_on = self.on_values[index]
            is_here = index == self.highlighted
            style = (
                f"bold {palette.WHITE}" if is_here else (palette.WHITE if is_on else palette.MIST)
            )
            text.append("\n")
            text.append("▸ " if is_here else "  ", style=f"bold {palette.GLOW}")
            text.append("[x] " if is_on else "[ ] ", style=palette.WISP)
            text.append(row, style=style)
        self.table_text = text
        table.update(text)

    def take_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        count = len(self.choice.options)
        if event.key in ("up", "down") and count:
            step = -1 if event.key == "up" else 1
            self.highlighted = min(max(self.highlighted + step, 0), count - 1)
        elif event.key == "space" and count:
            self.on_values[self.highlighted] = not self.on_values[self.highlighted]
        elif event.key == "u" and count:
            self.in_use = self.choice.options[self.highlighted].value
            self.on_values[self.highlighted] = True  # the model in use is always on
        elif event.key == "enter":
            self.dismiss(self.answer())
            return
        elif event.key == "escape":
            self.dismiss(None)
            return
        else:
            return
        self._draw()

    def answer(self) -> PickerAnswer:
        options = self.choice.options
        values = [o.value for o, on in zip(options, self.on_values, strict=True) if on]
        use = self.in_use if self.in_use != self.choice.current else None
        return PickerAnswer(values, use)

    def action_cancel(self) -> None:
        self.dismiss(None)
