"""Finished old entries as pre-rendered lines in one cheap widget
(docs/tui.md, "The transcript and staying fast").

The transcript keeps only its newest entries as widgets; older ones move here. Textual lays
this out as a single widget and asks it only for the lines in view (the Line API), so the cost
of drawing and of adding an entry no longer grows with the transcript's length. Entries keep
their look: the same colours from this widget's component classes, sent lines between their
`▄`/`▀` strips, folds that still open and shut on a click, and replies drawn by Rich's Markdown
styled like the live `Reply`.

Only each entry's height is kept for good; its lines are rendered when they come into view and
kept for the last RENDERED_KEPT entries drawn. Holding every line of thousands of entries would
mean hundreds of thousands of objects for the garbage collector to walk on each full pass, and
that cost would grow with the transcript. A width change measures every entry again.
"""

from __future__ import annotations

import bisect
import io
from collections import OrderedDict
from collections.abc import Iterator
from typing import ClassVar

import msgspec
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from rich.theme import Theme
from textual.events import Click
from textual.geometry import Offset, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from .tool_line import ToolLine

SENT_KINDS = ("user", "command")
PAD = 1
"""The blank column left of every entry's text (`padding: 0 1`, as live entries have)."""
RENDERED_KEPT = 64
"""Entries whose rendered lines are kept: a screen's worth and more, while scrolling."""

Lines = list[list[Segment]]


class ArchivedEntry(msgspec.Struct):
    """One finished entry: what it showed, and its lines at the width last drawn."""

    kind: str
    """note, error, output, user, command, reply or tool."""
    text: str = ""
    """The shown text (a reply's Markdown source); a tool line renders its own."""
    tool_line: ToolLine | None = None
    """The removed widget, kept for its words and fold state (never mounted again)."""
    height: int = 0
    """Its lines at the width last drawn."""

    @property
    def plain(self) -> str:
        """The entry's text as a person reads it."""
        if self.tool_line is not None:
            return self.tool_line.render_text().plain
        return self.text


class Archive(Widget):
    """The old part of the transcript, drawn line by line from pre-rendered strips."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "archive--note",
        "archive--error",
        "archive--output",
        "archive--user",
        "archive--command",
        "archive--tool",
        "archive--tool-error",
        "archive--heading",
        "archive--code",
        "archive--bullet",
    }

    # The same colours as the live entries (Entry, ToolLine, Reply in their DEFAULT_CSS).
    DEFAULT_CSS = """
    Archive {
        height: auto;
        & > .archive--note { color: $mist; }
        & > .archive--error { color: $ember; }
        & > .archive--output { color: $white; }
        & > .archive--user { color: $white; text-style: bold; background: $sent; }
        & > .archive--command { color: $white; text-style: bold; background: $command-sent; }
        & > .archive--tool { color: $mist; }
        & > .archive--tool-error { color: $ember; }
        & > .archive--heading { color: $glow; text-style: bold; }
        & > .archive--code { color: $wisp; }
        & > .archive--bullet { color: $mist; }
    }
    """

    def __init__(self) -> None:
        super().__init__(id="archive")
        self._entries: list[ArchivedEntry] = []
        self._starts: list[int] = []  # each entry's first line, in step with _entries
        self._line_count = 0
        # Segments, not Strips: a Strip carries seven caches, made only for the lines in view.
        self._rendered: OrderedDict[int, Lines] = OrderedDict()  # entry index → its lines
        self._width = 0  # the width the heights were measured at; 0: not yet known
        self._theme: Theme | None = None  # the reply's Markdown styles, made once
        self._rich_console = Console(
            file=io.StringIO(), color_system="truecolor", force_terminal=True, highlight=False
        )

    # What the transcript asks of it.

    @property
    def entries(self) -> list[ArchivedEntry]:
        return self._entries

    @property
    def line_count(self) -> int:
        return self._line_count

    def folds(self) -> Iterator[ToolLine]:
        """The archived tool and thought lines, oldest first."""
        for entry in self._entries:
            if entry.tool_line is not None:
                yield entry.tool_line

    def extend(self, entries: list[ArchivedEntry]) -> None:
        """Append finished entries below the others."""
        for entry in entries:
            self._entries.append(entry)
            self._starts.append(self._line_count)
            if self._width:
                self._measure(len(self._entries) - 1)
                self._line_count += entry.height
        self.refresh(layout=True)

    def set_all_folds(self, is_open: bool) -> None:
        changed = [
            index
            for index, entry in enumerate(self._entries)
            if entry.tool_line is not None and _set_fold(entry.tool_line, is_open)
        ]
        if changed:
            self._rerender(changed)

    # Drawing: Textual asks for the height at a width, then for the lines in view.

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._measure_all(width)
        return self._line_count

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if width != self._width:
            self._measure_all(width)
        if 0 <= y < self._line_count:
            index = bisect.bisect_right(self._starts, y) - 1
            line = self._lines_of(index)[y - self._starts[index]]
            strip = self._selected(Strip(line, width), y).apply_style(self.rich_style)
            # The offsets tell Textual which character is under the mouse, so a drag selects.
            return strip.apply_offsets(0, y)
        return Strip.blank(width, self.rich_style)

    # Selecting with the mouse, as in the live entries: the rows' text as drawn.

    def _selected(self, strip: Strip, y: int) -> Strip:
        selection = self.text_selection
        span = selection.get_span(y) if selection is not None else None
        if span is None:
            return strip
        start, end = span
        end = strip.cell_length if end == -1 else end
        if end <= start:
            return strip
        style = self.screen.get_component_rich_style("screen--selection")
        before, chosen, after = strip.divide([start, end, strip.cell_length])
        # Over the entry's own colours (a sent line's tint), as on live text.
        chosen = Strip(Segment.apply_style(chosen, post_style=style), chosen.cell_length)
        return Strip.join([before, chosen, after])

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected rows' text, without the padding, the rows' ends or a sent line's strips."""
        first = 0 if selection.start is None else selection.start.y
        last = self._line_count - 1 if selection.end is None else selection.end.y
        first, last = max(first, 0), min(last, self._line_count - 1)
        if last < first:
            return None
        rows = [self._row_text(y) for y in range(first, last + 1)]
        # The offsets count from the archive's top and its left edge, the padding column
        # included: here they count from `first` and from the text.
        start, end = selection
        moved = Selection(
            None if start is None else Offset(max(start.x - PAD, 0), start.y - first),
            None if end is None else Offset(max(end.x - PAD, 0), end.y - first),
        )
        # A space on each row: extract() drops a row's end that is empty after splitting.
        text = moved.extract("\n".join(f"{row} " for row in rows))
        kept = [row.rstrip() for row in text.split("\n") if not _is_strip(row)]
        return "\n".join(kept).strip("\n"), "\n"

    def _row_text(self, y: int) -> str:
        index = bisect.bisect_right(self._starts, y) - 1
        row = "".join(segment.text for segment in self._lines_of(index)[y - self._starts[index]])
        return row[PAD:]

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    # A click on an archived fold opens or shuts it, as on a live one.

    def on_click(self, event: Click) -> None:
        index = bisect.bisect_right(self._starts, event.y) - 1
        if event.chain != 1 or not 0 <= index < len(self._entries):
            return
        tool_line = self._entries[index].tool_line
        if tool_line is not None and _set_fold(tool_line, not tool_line.is_open):
            self._rerender([index])
            self.post_message(ToolLine.Toggled(tool_line, tool_line.is_open))

    # Rendering.

    def _measure_all(self, width: int) -> None:
        if width == self._width or width <= 0:
            return
        self._width = width
        self._rendered.clear()
        for index in range(len(self._entries)):
            self._measure(index)
        self._find_starts()

    def _rerender(self, indices: list[int]) -> None:
        """Render some entries again (a fold changed), then find every entry's first line."""
        if not self._width:
            return
        for index in indices:
            self._rendered.pop(index, None)
            self._measure(index)
        self._find_starts()
        self.refresh(layout=True)

    def _find_starts(self) -> None:
        self._starts = []
        self._line_count = 0
        for entry in self._entries:
            self._starts.append(self._line_count)
            self._line_count += entry.height

    def _measure(self, index: int) -> None:
        """Render an entry at the current width for its height; keep its lines a while."""
        self._entries[index].height = len(self._lines_of(index))

    def _lines_of(self, index: int) -> Lines:
        """An entry's lines at the current width: kept from a recent render, or rendered."""
        lines = self._rendered.get(index)
        if lines is None:
            lines = self._render(self._entries[index], self._width)
            self._rendered[index] = lines
            while len(self._rendered) > RENDERED_KEPT:
                self._rendered.popitem(last=False)
        else:
            self._rendered.move_to_end(index)
        return lines

    def _render(self, entry: ArchivedEntry, width: int) -> Lines:
        renderable = self._renderable(entry, width)
        options = self._rich_console.options.update(width=width, min_width=width, height=None)
        return self._rich_console.render_lines(renderable, options, pad=True)

    def _renderable(self, entry: ArchivedEntry, width: int) -> RenderableType:
        kind = entry.kind
        if kind == "reply":
            return self._padded(self._reply(entry.text, width - 2), Style())
        if kind == "tool":
            assert entry.tool_line is not None
            is_error = entry.tool_line.has_class("-error")
            # The colour goes under the line's own spans, as the live widget's does.
            style = self._style("tool-error" if is_error else "tool")
            return self._padded(entry.tool_line.render_text(), style)
        style = self._style(kind)
        body = self._padded(Text(entry.text), style)
        if kind not in SENT_KINDS:
            return body
        strip = Style(color=style.bgcolor)  # the tint as foreground: half a row each side
        return Group(Text("▄" * width, strip), body, Text("▀" * width, strip))

    def _reply(self, source: str, width: int) -> RenderableType:
        """A reply's Markdown, coloured like the live Reply."""
        self._rich_console.push_theme(self._markdown_theme())
        try:
            # Rendered here, while the theme is in place; a paragraph's margin below, as live.
            options = self._rich_console.options.update_width(max(width, 1))
            # Imported at the first archived reply: markdown-it and Rich's Markdown are not
            # needed to start, and start-up is measured (docs/performance.md).
            from .archived_markdown import ReplyMarkdown

            markdown = ReplyMarkdown(source, style=self._style("output"))
            lines = self._rich_console.render_lines(markdown, options, pad=False)
        finally:
            self._rich_console.pop_theme()
        return _Lines([*lines, []])

    def _markdown_theme(self) -> Theme:
        if self._theme is None:
            heading, code, bullet = (self._style(name) for name in ("heading", "code", "bullet"))
            styles = {f"markdown.h{level}": heading for level in range(1, 7)}
            styles.update(
                {
                    "markdown.h1.border": heading,
                    "markdown.code": code,
                    "markdown.code_block": code,
                    "markdown.item.bullet": bullet,
                    "markdown.item.number": bullet,
                    "markdown.strong": Style(bold=True),
                    "markdown.em": Style(italic=True),
                    "markdown.paragraph": Style(),
                    "markdown.text": Style(),
                }
            )
            self._theme = Theme(styles, inherit=True)
        return self._theme

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"archive--{name}", partial=True)

    @staticmethod
    def _padded(renderable: RenderableType, style: Style) -> RenderableType:
        return Padding(renderable, (0, PAD), style=style, expand=True)


class _Lines:
    """Lines already rendered, as a renderable."""

    def __init__(self, lines: list[list[Segment]]) -> None:
        self._lines = lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        new_line = Segment.line()
        for line in self._lines:
            yield from line
            yield new_line


def _is_strip(row: str) -> bool:
    """A sent line's half-row strip above or below its text."""
    return bool(row.strip()) and not row.strip().strip("▄▀")


def _set_fold(tool_line: ToolLine, is_open: bool) -> bool:
    """Open or shut an archived fold without its widget machinery; whether it changed."""
    if not tool_line.is_foldable or tool_line.is_open == is_open:
        return False
    tool_line.set_reactive(ToolLine.is_open, is_open)
    return True
