"""The input box (§9): `› ` then a multi-line editor; `!` at the start switches to command mode.

While a turn runs the editor is hidden behind the busy line, which takes the focus and holds
the characters, edits and pastes typed meanwhile; they are replayed in order once the box takes
typing again (§9.4).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from textual import events, on
from textual._xterm_parser import XTermParser
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static, TextArea
from textual.widgets.text_area import Location

from ..history import History

PLACEHOLDER = "Ask wisp to do anything"
COMMAND_PLACEHOLDER = "Run a command yourself: sandboxed, no approval, the model is told"
UNSANDBOXED_COMMAND_PLACEHOLDER = (
    "Run a command yourself: not sandboxed, no approval, the model is told"
)

MAX_ROWS = 6
"""The box grows one row per line up to this, then scrolls (§2)."""
LONG_LINE = 10_000
"""Code points beyond which a line is not soft-wrapped: TextArea re-divides a wrapped line for
every row it draws, so a 1 MB one-line paste would take seconds per key."""

NEWLINE_KEYS = frozenset({"ctrl+j", "alt+enter", "shift+enter"})
MODIFIERS = ("alt+", "ctrl+", "super+", "meta+", "hyper+")

Held = events.Key | events.Paste
"""A key or paste typed while the box was busy, kept to be replayed."""


def _report_alt_enter() -> None:
    """Make Textual's parser report ESC CR (Alt-Enter in most terminals) as `alt+enter`.

    Textual 8 drops the Alt of keys it maps through its table (Enter among them), so Alt-Enter
    would arrive as Enter and send the message instead of starting a new line (§9.1).
    """
    original = XTermParser._sequence_to_key_events
    if getattr(original, "_wisp_alt_enter", False):
        return

    def sequence_to_key_events(
        self: XTermParser, sequence: str, alt: bool = False
    ) -> Iterable[events.Key]:
        if alt and sequence == "\r":
            return [events.Key("alt+enter", None)]
        return original(self, sequence, alt)

    sequence_to_key_events._wisp_alt_enter = True  # type: ignore[attr-defined]
    XTermParser._sequence_to_key_events = sequence_to_key_events  # type: ignore[method-assign]


_report_alt_enter()


def is_character(event: events.Key) -> bool:
    """A printable character typed alone (Shift aside): Alt-x or Ctrl-x do nothing (§14)."""
    return event.is_printable and not event.key.startswith(MODIFIERS)


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


class PromptArea(TextArea, inherit_bindings=False):
    """The editor: readline-like keys (§14) in place of TextArea's own bindings."""

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

    EDITS: ClassVar[dict[str, str]] = {
        "left": "action_cursor_left",
        "right": "action_cursor_right",
        "ctrl+left": "action_cursor_word_left",
        "alt+left": "action_cursor_word_left",
        "alt+b": "action_cursor_word_left",
        "ctrl+right": "action_cursor_word_right",
        "alt+right": "action_cursor_word_right",
        "alt+f": "action_cursor_word_right",
        "home": "line_start",
        "ctrl+a": "line_start",
        "end": "line_end",
        "ctrl+e": "line_end",
        "backspace": "backspace",
        "delete": "delete_forward",
        "ctrl+w": "delete_word_back",
        "alt+backspace": "delete_word_back",
        "ctrl+backspace": "delete_word_back",
        "ctrl+u": "delete_to_line_start",
        "ctrl+k": "delete_to_line_end",
        **dict.fromkeys(NEWLINE_KEYS, "newline"),
    }
    """Keys that edit or move (§14); the busy box holds exactly these and characters."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            tab_behavior="focus",
            highlight_cursor_line=False,
            placeholder=PLACEHOLDER,
        )
        self.rows = 1
        """The height now: it grows with the text and shrinks only when emptied (§2)."""

    @property
    def prompt(self) -> Prompt:
        assert isinstance(self.parent, Prompt)
        return self.parent

    def on_mount(self) -> None:
        # Headless (tests, snapshots), a blinking cursor would make each picture a coin toss.
        self.cursor_blink = not self.app.is_headless

    # Keys.

    async def _on_key(self, event: events.Key) -> None:
        # Busy, the busy line has the focus; should the editor get it back (Esc on a fold),
        # its keys are still held, never typed unseen.
        prompt = self.prompt
        if prompt.is_busy:
            is_taken = prompt.hold(event) or event.key in BusyLine.IGNORED
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
        """Insert typed or pasted text; a `!` at the very start enters command mode (§9.2)."""
        is_at_start = self.cursor_location == (0, 0)
        if text.startswith("!") and is_at_start and not self.prompt.is_command_mode:
            self.prompt.is_command_mode = True
            text = text[1:]
        if text:
            self.replace(text, *self.selection, maintain_selection_offset=False)

    def paste(self, text: str) -> None:
        """A paste goes in whole, newlines kept, and never sends (§9.1)."""
        text = _normalise_newlines(text)
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

    # Edits (§14): lines are the text's own lines, not the rows they wrap into.

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
        """The cursor as one code-point index over the whole text (§9.6)."""
        return self.document.get_index_from_location(self.cursor_location)

    def location_of(self, index: int) -> Location:
        return self.document.get_location_from_index(index)

    def show_text(self, text: str) -> None:
        """Replace the whole text, the cursor at its end."""
        text = _normalise_newlines(text)
        self.soft_wrap = max(map(len, text.split("\n"))) <= LONG_LINE
        self.load_text(text)
        self.move_cursor(self.document.end)

    @on(TextArea.Changed)
    def _fit(self) -> None:
        """Grow to the rows the text needs, up to MAX_ROWS; shrink only when empty (§2)."""
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


class BusyLine(Static, can_focus=True):
    """The busy box's text (§9.3); focused while busy, so typed keys land here and are held."""

    DEFAULT_CSS = """
    BusyLine { width: 1fr; height: 1; color: $mist; text-style: dim; }
    """

    IGNORED: ClassVar[frozenset[str]] = frozenset(
        {"enter", "tab", "shift+tab", "up", "down", "escape"}
    )
    """Keys that do nothing while busy (§14); Enter is not held, so nothing is sent unseen."""

    @property
    def prompt(self) -> Prompt:
        assert isinstance(self.parent, Prompt)
        return self.parent

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        return character is not None and character.isprintable()

    def on_key(self, event: events.Key) -> None:
        if self.prompt.hold(event) or event.key in self.IGNORED:
            event.stop()
            event.prevent_default()

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        self.prompt.hold(event)


class Prompt(Horizontal):
    """The input box; posts `Prompt.Submitted` on Enter. The app sets `is_busy`."""

    DEFAULT_CSS = """
    Prompt {
        height: auto;
        background: $deep;
        border-top: inner $deep;
        border-bottom: inner $deep;
        padding: 0 1;
    }
    Prompt > #mark { width: 2; color: $glow; text-style: bold; }
    Prompt > BusyLine { display: none; }
    Prompt.-busy > BusyLine { display: block; }
    Prompt.-busy > PromptArea { display: none; }
    Prompt.-command { background: $command; border-top: inner $command;
                      border-bottom: inner $command; }
    Prompt.-command > #mark { color: $black; }
    Prompt.-command PromptArea { color: $black; }
    Prompt.-command PromptArea .text-area--placeholder { color: $black; }
    """

    is_command_mode: reactive[bool] = reactive(False, init=False)
    """The box runs the typed text as a `!` command (§9.2)."""
    is_busy: reactive[bool] = reactive(False, init=False)
    """A turn or command runs: keys are held, Enter sends nothing (§9.3, §9.4)."""
    busy_text: reactive[str] = reactive("… working…", init=False)
    """What the busy box says, before the count of held keys."""
    is_sandboxed: reactive[bool] = reactive(True, init=False)
    """From `status.sandbox`: the command placeholder never claims a sandbox that is not there."""

    @dataclass
    class Submitted(Message):
        """A line to send: chat text, or a command to run when `is_command`."""

        text: str
        is_command: bool

    @dataclass
    class CompletionAsked(Message):
        """Tab in a `/` line: ask wisp for completions of `text` at `cursor` (§9.6)."""

        text: str
        cursor: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.history = History(None)
        self.held: list[Held] = []
        """Keys and pastes typed while busy, oldest first (§9.4)."""
        self._recalled: int | None = None  # index into history.lines; None: the fresh line
        self._draft: tuple[str, bool] = ("", False)

    def compose(self) -> ComposeResult:
        yield Static("› ", id="mark")
        yield PromptArea(id="input")
        yield BusyLine(self.busy_text, id="busy")

    def on_mount(self) -> None:
        self.app.screen_change_signal.subscribe(self, self._screen_changed)

    @property
    def input(self) -> PromptArea:
        return self.query_one(PromptArea)

    @property
    def text(self) -> str:
        """The whole text typed, lines joined by `\\n`."""
        return self.input.text

    @text.setter
    def text(self, text: str) -> None:
        self.input.show_text(text)

    @property
    def cursor_index(self) -> int:
        """The cursor as one code-point index over the whole text (§9.6)."""
        return self.input.cursor_index

    @cursor_index.setter
    def cursor_index(self, index: int) -> None:
        self.input.move_cursor(self.input.location_of(index))

    # Looks.

    def watch_is_command_mode(self, is_command_mode: bool) -> None:
        self.set_class(is_command_mode, "-command")
        self.query_one("#mark", Static).update("! " if is_command_mode else "› ")
        self._show_placeholder()

    def watch_is_sandboxed(self) -> None:
        self._show_placeholder()

    def watch_is_busy(self, is_busy: bool) -> None:
        if not self.query(PromptArea):
            return  # the app is closing and its widgets are going: a late line changes nothing
        (self.query_one(BusyLine) if is_busy else self.input).focus()
        self.set_class(is_busy, "-busy")
        self._show_busy_text()
        if not is_busy:
            self.call_after_refresh(self.replay)

    def watch_busy_text(self) -> None:
        self._show_busy_text()

    def _show_placeholder(self) -> None:
        if not self.is_command_mode:
            self.input.placeholder = PLACEHOLDER
        elif self.is_sandboxed:
            self.input.placeholder = COMMAND_PLACEHOLDER
        else:
            self.input.placeholder = UNSANDBOXED_COMMAND_PLACEHOLDER

    def _show_busy_text(self) -> None:
        count = len(self.held)
        held = "" if not count else f" · {count} key{'s' if count > 1 else ''} held"
        self.query_one(BusyLine).update(self.busy_text + held)

    # Held keys (§9.4).

    def hold(self, event: Held) -> bool:
        """Keep a character, edit or paste typed while the box cannot take it; False: not one."""
        if isinstance(event, events.Key) and not (
            is_character(event) or event.key in PromptArea.EDITS
        ):
            return False
        self.held.append(event)
        self._show_busy_text()
        return True

    @property
    def is_taking_typing(self) -> bool:
        """No turn running and no dialog or panel over the box."""
        return not self.is_busy and self.app.screen is self.screen

    def replay(self) -> None:
        """Type the held keys in order, as if typed now, once the box takes typing."""
        if not self.held or not self.is_taking_typing:
            return
        held, self.held = self.held, []
        for event in held:
            if isinstance(event, events.Paste):
                self.input.paste(event.text)
            else:
                self.input.take_key(event)
        self._show_busy_text()

    def _screen_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self.call_after_refresh(self.replay)

    # Sending.

    def submit(self) -> None:
        """Enter: post the text, or the command to run; an empty line sends nothing (§9.2)."""
        text = self.text.strip()
        is_command = self.is_command_mode
        if not is_command and text.startswith("!"):
            text, is_command = text[1:].strip(), True  # `!pwd` typed in the normal box
        if self.is_busy or not text:
            return
        self.post_message(self.Submitted(text, is_command))
        self.history.add(f"!{text}" if is_command else text)
        self._recalled = None
        self.text = ""
        self.is_command_mode = False

    # History (§9.5) and completion (§9.6).

    def recall(self, step: int) -> None:
        """Up (-1) / Down (+1): the previous or next line sent; Down past the newest: the draft."""
        lines = self.history.lines
        if self.is_busy or not lines:
            return
        if self._recalled is None:
            if step > 0:
                return
            self._draft = (self.text, self.is_command_mode)
            index: int | None = len(lines) - 1
        else:
            index = max(0, self._recalled + step)
            if index >= len(lines):
                index = None
        self._recalled = index
        if index is None:
            text, is_command = self._draft
        else:
            line = lines[index]
            is_command = line.startswith("!")
            text = line[1:] if is_command else line
        self.is_command_mode = is_command
        self.text = text

    def ask_completion(self) -> None:
        text = self.text
        if self.is_busy or self.is_command_mode or not text.startswith("/"):
            return
        self.post_message(self.CompletionAsked(text, self.cursor_index))

    def complete(self, start: int, cursor: int, candidates: list[str]) -> None:
        """Replace `text[start:cursor]` with the one candidate and a space, or the common prefix."""
        text = self.text
        if not candidates or cursor > len(text) or start > cursor:
            return
        if len(candidates) == 1:
            word = candidates[0] + " "
        else:
            word = os.path.commonprefix(candidates)  # noqa: RUF071 (characters are meant)
            if len(word) <= cursor - start:
                return
        area = self.input
        area.replace(
            word, area.location_of(start), area.location_of(cursor), maintain_selection_offset=False
        )
