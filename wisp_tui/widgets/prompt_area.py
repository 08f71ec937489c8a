"""The input box's editor: a multi-line TextArea with readline-like keys, growing with its text.

Lines are the text's own lines, not the rows they wrap into. The box grows one row per line up to
``MAX_ROWS``, then scrolls, and shrinks only when emptied, so it does not jump while editing. What
the keys do beyond editing (send, recall, complete, hold while busy) is the box's, reached
through ``PromptOwner``.
"""

from __future__ import annotations

from typing import ClassVar, Protocol, cast

from textual import events, on
from textual.widgets import TextArea
from textual.widgets.text_area import Location

from .prompt_keys import BUSY_IGNORED, EDIT_KEYS, Held, is_character

PLACEHOLDER = "Ask wisp to do anything"

MAX_ROWS = 6
"""The box grows one row per line up to this, then scrolls."""
LONG_LINE = 10_000
"""Code points beyond which a line is not soft-wrapped: TextArea re-divides a wrapped line for
every row it draws, so a 1 MB one-line paste would take seconds per key."""


class PromptOwner(Protocol):
    """What the editor asks of the box around it."""

    is_busy: bool
    is_command_mode: bool

    def hold(self, event: Held) -> bool: ...
    def submit(self) -> None: ...
    def recall(self, step: int) -> None: ...
    def ask_completion(self) -> None: ...


def normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


class PromptArea(TextArea, inherit_bindings=False):
    """The editor: readline-like keys in place of TextArea's own bindings."""

    DEFAULT_CSS = """
    PromptArea {
        width: 1fr;
        height: 1;
        border: none;
        padding: 0;
        background: transparent;
        color: $white;
        text-style: bold;
        scrollbar-size: 0 0;
    }
    PromptArea:focus { border: none; background-tint: transparent; }
    PromptArea .text-area--placeholder { color: $mist; text-style: not bold; }
    PromptArea .text-area--cursor-line { background: transparent; }
    """

    EDITS: ClassVar[dict[str, str]] = EDIT_KEYS

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            tab_behavior="focus",
            highlight_cursor_line=False,
            placeholder=PLACEHOLDER,
        )
        self.rows = 1
        """The height now: it grows with the text and shrinks only when emptied."""

    @property
    def prompt(self) -> PromptOwner:
        return cast(PromptOwner, self.parent)

    def on_mount(self) -> None:
        # Headless (tests, snapshots), a blinking cursor would make each picture a coin toss.
        self.cursor_blink = not self.app.is_headless

    # Keys.

    async def _on_key(self, event: events.Key) -> None:
        # Busy, the busy line has the focus; should the editor get it back (Esc on a fold),
        # its keys are still held, never typed unseen.
        prompt = self.prompt
        if prompt.is_busy:
            is_taken = prompt.hold(event) or event.key in BUSY_IGNORED
        else:
            is_taken = self.take_key(event)
        if is_taken:
            event.stop()
            event.prevent_default()

    def take_key(self, event: events.Key) -> bool:
        """Act on a key as typed now; False leaves it to the app (Ctrl-O, PageUp, …)."""
        key = event.key
        if is_character(event):
            assert event.character is not None
            self.type_text(event.character)
        elif key == "enter":
            self.prompt.submit()
        elif key in ("up", "down"):
            self.up_or_down(-1 if key == "up" else 1)
        elif key == "tab":
            self.prompt.ask_completion()
        elif key in self.EDITS:
            getattr(self, self.EDITS[key])()
        else:
            return key == "shift+tab"  # not Textual's focus move: it does nothing here
        return True

    async def _on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()
        if self.prompt.is_busy:
            self.prompt.hold(event)
        else:
            self.paste(event.text)

    def type_text(self, text: str) -> None:
        """Insert typed or pasted text; a `!` at the very start enters command mode."""
        is_at_start = self.cursor_location == (0, 0)
        if text.startswith("!") and is_at_start and not self.prompt.is_command_mode:
            self.prompt.is_command_mode = True
            text = text[1:]
        if text:
            self.replace(text, *self.selection, maintain_selection_offset=False)

    def paste(self, text: str) -> None:
        """A paste goes in whole, newlines kept, and never sends."""
        text = normalise_newlines(text)
        if self.soft_wrap and max(map(len, text.split("\n"))) > LONG_LINE:
            self.soft_wrap = False  # before the insert, which would wrap it first
        self.type_text(text)

    def up_or_down(self, step: int) -> None:
        """History on the first (Up) or last (Down) row; elsewhere, move within the text."""
        row = self.wrapped_document.location_to_offset(self.cursor_location).y
        if (step < 0 and row == 0) or (step > 0 and row >= self.virtual_size.height - 1):
            self.prompt.recall(step)
        elif step < 0:
            self.action_cursor_up()
        else:
            self.action_cursor_down()

    # Edits: lines are the text's own lines, not the rows they wrap into.

    def newline(self) -> None:
        self.replace("\n", *self.selection, maintain_selection_offset=False)

    def line_start(self) -> None:
        self.move_cursor((self.cursor_location[0], 0))

    def line_end(self) -> None:
        row = self.cursor_location[0]
        self.move_cursor((row, len(self.document[row])))

    def backspace(self) -> None:
        if self.prompt.is_command_mode and self.cursor_location == (0, 0):
            self.prompt.is_command_mode = False  # the text stays, as a message
        else:
            self.action_delete_left()

    def delete_forward(self) -> None:
        if self.prompt.is_command_mode and self.is_empty:
            self.prompt.is_command_mode = False
        else:
            self.action_delete_right()

    def delete_word_back(self) -> None:
        """Back to the previous whitespace, like readline's Ctrl-W."""
        row, column = self.cursor_location
        if column == 0:
            self.action_delete_left()
            return
        before = self.document[row][:column].rstrip()
        start = max(before.rfind(" "), before.rfind("\t")) + 1
        self.delete((row, start), (row, column), maintain_selection_offset=False)

    def delete_to_line_start(self) -> None:
        row, column = self.cursor_location
        self.delete((row, 0), (row, column), maintain_selection_offset=False)

    def delete_to_line_end(self) -> None:
        """To the end of the line; at its end, the line break (so Ctrl-K joins the next line)."""
        row, column = self.cursor_location
        end = len(self.document[row])
        if column < end:
            self.delete((row, column), (row, end), maintain_selection_offset=False)
        elif row + 1 < self.document.line_count:
            self.delete((row, column), (row + 1, 0), maintain_selection_offset=False)

    # Text, cursor and height.

    @property
    def is_empty(self) -> bool:
        return self.document.line_count == 1 and not self.document[0]

    @property
    def cursor_index(self) -> int:
        """The cursor as one code-point index over the whole text."""
        return self.document.get_index_from_location(self.cursor_location)

    def location_of(self, index: int) -> Location:
        return self.document.get_location_from_index(index)

    def show_text(self, text: str) -> None:
        """Replace the whole text, the cursor at its end."""
        text = normalise_newlines(text)
        self.soft_wrap = max(map(len, text.split("\n"))) <= LONG_LINE
        self.load_text(text)
        self.move_cursor(self.document.end)

    @on(TextArea.Changed)
    def _fit(self) -> None:
        """Grow to the rows the text needs, up to MAX_ROWS; shrink only when empty."""
        self.soft_wrap = max(map(len, self.document.lines)) <= LONG_LINE
        if self.is_empty:
            self.rows = 1
        else:
            self.rows = min(MAX_ROWS, max(self.rows, self.virtual_size.height))
        if self.styles.height is None or self.styles.height.value != self.rows:
            self.styles.height = self.rows
            self.call_after_refresh(self.scroll_cursor_visible)

    def _on_resize(self) -> None:
        super()._on_resize()
        self._fit()
