"""An event's line, with its output folded under it; a click or Enter opens and shuts it (§6)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from wisp.protocol import EventOutput

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_output(text: str) -> str:
    """Output that can never drive the terminal: tabs as 4 spaces, other controls removed."""
    return _CONTROL.sub("", text.replace("\t", "    ").replace("\r\n", "\n"))


class ToolLine(Static, can_focus=True):
    """The line wisp words for an event, muted (EMBER for errors), and its folded output."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "toggle", "open or shut the output", show=False)
    ]

    DEFAULT_CSS = """
    ToolLine {
        color: $mist;
        padding: 0 1;
        height: auto;
    }
    ToolLine.-error { color: $ember; }
    ToolLine:focus { background: $sent; }
    """

    is_open: reactive[bool] = reactive(False)
    """The whole output is shown, not only its first `shownLines` lines."""

    @dataclass
    class Toggled(Message):
        """The fold was opened or shut."""

        tool_line: ToolLine
        is_open: bool

    def __init__(self, text: str | None, output: EventOutput | None, *, is_error: bool) -> None:
        super().__init__(classes="-error" if is_error else "")
        self._text = text
        self._output = output

    @property
    def has_output(self) -> bool:
        return self._output is not None

    def render_text(self) -> Text:
        lines = [self._text] if self._text is not None else []
        if self._output is not None:
            lines.extend(self._fold(self._output))
        return Text("\n".join(lines))

    def _fold(self, output: EventOutput) -> list[str]:
        body = clean_output(output.text).split("\n")
        if body and body[-1] == "":
            body.pop()
        shown = body if self.is_open else body[: max(output.shown_lines, 0)]
        lines = [f"    {line}" for line in shown]
        more = output.lines - len(shown)
        if more > 0:
            noun = "line" if more == 1 else "lines"
            lines.append(f"    … {more} more {noun} · click or Enter shows all")
        elif self.is_open and output.truncated:
            lines.append(f"    … truncated: {output.lines} lines, {output.bytes} bytes in all")
        return lines

    def on_mount(self) -> None:
        self.update(self.render_text())

    def watch_is_open(self) -> None:
        self.update(self.render_text())

    def on_click(self) -> None:
        self.action_toggle()

    def action_toggle(self) -> None:
        if self._output is None:
            return
        self.is_open = not self.is_open
        self.post_message(self.Toggled(self, self.is_open))
