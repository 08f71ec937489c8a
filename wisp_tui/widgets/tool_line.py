"""An event's line, with its output folded under it (docs/tui.md, "Folds").

A click on it, or Enter or Space when it has the focus (Shift-Tab from the input reaches the
folds, Tab goes back), opens and shuts one fold; the main screen's Ctrl-G opens or shuts them all
(``screens/chat.py``), and Ctrl-O shows the last output in a panel.
"""

from __future__ import annotations

import re
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.events import Click
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from wisp.protocol import EventOutput

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_output(text: str) -> str:
    """Output that can never drive the terminal: tabs as 4 spaces, other controls removed."""
    return _CONTROL.sub("", text.replace("\t", "    ").replace("\r\n", "\n"))


FOLD_KEYS = "click opens · ctrl-g all folds · ctrl-o panel"
SHUT_KEYS = "click shuts · ctrl-g all folds"


class ToolLine(Static, can_focus=True):
    """The line wisp words for an event, muted (EMBER for errors), and its folded output."""

    FOCUS_ON_CLICK = False
    """A click opens or shuts the fold; the focus stays in the input, so typing goes on."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "toggle", "open or shut the output", show=False),
        # Shift-Tab (the main screen's) steps to older folds, Tab to newer ones, then back to
        # the input.
        Binding("tab", "screen.step_fold(1)", show=False),
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

    class Toggled(Message):
        """The fold was opened or shut."""

        def __init__(self, tool_line: ToolLine, is_open: bool) -> None:
            super().__init__()
            self.tool_line = tool_line
            self.is_open = is_open

    def __init__(self, text: str | None, output: EventOutput | None, *, is_error: bool) -> None:
        super().__init__(classes="-error" if is_error else "")
        self._text = text
        self._output = output
        self.can_focus = self.is_foldable  # the keyboard stops only where there is a fold

    @property
    def has_output(self) -> bool:
        return self._output is not None

    @property
    def output(self) -> EventOutput | None:
        return self._output

    @property
    def is_foldable(self) -> bool:
        """Shut, it hides some of its output; a short output is always shown whole."""
        output = self._output
        return output is not None and output.lines > max(output.shown_lines, 0)

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
        if not self.is_open and more > 0:
            noun = "line" if more == 1 else "lines"
            lines.append(f"    … {more} more {noun} · {FOLD_KEYS}")
        elif self.is_open and output.truncated:
            lines.append(
                f"    … truncated: {output.lines} lines, {output.bytes} bytes in all · {SHUT_KEYS}"
            )
        elif self.is_open and self.is_foldable:
            lines.append(f"    ▴ {SHUT_KEYS}")
        return lines

    def on_mount(self) -> None:
        self.update(self.render_text())

    def watch_is_open(self) -> None:
        self.update(self.render_text())

    def on_click(self, event: Click) -> None:
        # A drag that selected text ends in a click too; it is a copy, not a toggle.
        if event.chain == 1 and self.text_selection is None:
            self.action_toggle()

    def action_toggle(self) -> None:
        self.set_open(not self.is_open)

    def set_open(self, is_open: bool) -> None:
        """Open or shut the fold; one with nothing hidden stays as it is."""
        if not self.is_foldable or is_open == self.is_open:
            return
        self.is_open = is_open
        self.post_message(self.Toggled(self, self.is_open))
