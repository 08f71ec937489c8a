"""The input box (§9): `› ` then the text; `!` at the start switches to command mode."""

from __future__ import annotations

import os
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.events import Key
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Static

from ..history import History

PLACEHOLDER = "Ask wisp to do anything"
COMMAND_PLACEHOLDER = "Run a command yourself: sandboxed, no approval, the model is told"


class PromptInput(Input):
    """The one-line editor; Backspace at column 0 in command mode leaves command mode."""

    DEFAULT_CSS = """
    PromptInput {
        border: none;
        height: 1;
        padding: 0;
        background: transparent;
        color: $white;
        text-style: bold;
    }
    PromptInput:focus { border: none; background-tint: transparent; }
    PromptInput > .input--placeholder { color: $mist; text-style: not bold; }
    """

    async def _on_key(self, event: Key) -> None:
        prompt = self.parent
        if (
            isinstance(prompt, Prompt)
            and prompt.is_command_mode
            and self.cursor_position == 0
            and (event.key == "backspace" or (event.key == "delete" and not self.value))
        ):
            event.stop()
            event.prevent_default()
            prompt.is_command_mode = False
            return
        if isinstance(prompt, Prompt) and event.key in ("up", "down", "tab"):
            event.stop()
            event.prevent_default()
            if event.key == "tab":
                prompt.ask_completion()
            else:
                prompt.recall(-1 if event.key == "up" else 1)
            return
        await super()._on_key(event)


class Prompt(Horizontal):
    """The input box; posts `Prompt.Submitted` on Enter. The app sets `is_busy`."""

    DEFAULT_CSS = """
    Prompt {
        height: 3;
        background: $deep;
        border-top: inner $deep;
        border-bottom: inner $deep;
        padding: 0 1;
    }
    Prompt > #mark { width: 2; color: $glow; text-style: bold; }
    Prompt.-command { background: $command; border-top: inner $command;
                      border-bottom: inner $command; }
    Prompt.-command > #mark { color: $black; }
    Prompt.-command PromptInput { color: $black; }
    Prompt.-command PromptInput > .input--placeholder { color: $black; }
    Prompt.-busy PromptInput { text-style: dim; color: $mist; }
    """

    is_command_mode: reactive[bool] = reactive(False)
    """The box runs the typed text as a `!` command (§9.2)."""
    is_busy: reactive[bool] = reactive(False)
    """A turn or command runs: Enter sends nothing (§9.3)."""
    busy_text: reactive[str] = reactive("… working…")
    """What the busy box says."""

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
        self._recalled: int | None = None  # index into history.lines; None: the fresh line
        self._draft: tuple[str, bool] = ("", False)

    def compose(self) -> ComposeResult:
        yield Static("› ", id="mark")
        yield PromptInput(placeholder=PLACEHOLDER, id="input", select_on_focus=False)

    @property
    def input(self) -> PromptInput:
        return self.query_one(PromptInput)

    def watch_is_command_mode(self, is_command_mode: bool) -> None:
        self.set_class(is_command_mode, "-command")
        self.query_one("#mark", Static).update("! " if is_command_mode else "› ")
        self._show_placeholder()

    def watch_is_busy(self, is_busy: bool) -> None:
        self.set_class(is_busy, "-busy")
        self.input.disabled = is_busy
        if not is_busy:
            self.input.focus()
        self._show_placeholder()

    def watch_busy_text(self) -> None:
        self._show_placeholder()

    def _show_placeholder(self) -> None:
        if self.is_busy:
            self.input.placeholder = self.busy_text
        else:
            self.input.placeholder = COMMAND_PLACEHOLDER if self.is_command_mode else PLACEHOLDER

    @on(Input.Changed, "#input")
    def _enter_command_mode(self, event: Input.Changed) -> None:
        if not self.is_command_mode and event.value.startswith("!"):
            self.is_command_mode = True
            self.input.value = event.value[1:]
            self.input.cursor_position = 0

    @on(Input.Submitted, "#input")
    def _submit(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if self.is_busy or not text:
            return  # Enter is not held while busy (§9.4); an empty line sends nothing
        self.post_message(self.Submitted(text, self.is_command_mode))
        self.history.add(f"!{text}" if self.is_command_mode else text)
        self._recalled = None
        self.input.value = ""
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
            self._draft = (self.input.value, self.is_command_mode)
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
        self._show(text, is_command)

    def _show(self, text: str, is_command: bool) -> None:
        self.is_command_mode = is_command
        with self.input.prevent(Input.Changed):
            self.input.value = text
        self.input.cursor_position = len(text)

    def ask_completion(self) -> None:
        text = self.input.value
        if self.is_busy or self.is_command_mode or not text.startswith("/"):
            return
        self.post_message(self.CompletionAsked(text, self.input.cursor_position))

    def complete(self, start: int, cursor: int, candidates: list[str]) -> None:
        """Replace `text[start:cursor]` with the one candidate and a space, or the common prefix."""
        text = self.input.value
        if not candidates or cursor > len(text) or start > cursor:
            return
        if len(candidates) == 1:
            word = candidates[0] + " "
        else:
            word = os.path.commonprefix(candidates)  # noqa: RUF071 (characters are meant)
            if len(word) <= cursor - start:
                return
        self.input.value = text[:start] + word + text[cursor:]
        self.input.cursor_position = start + len(word)
