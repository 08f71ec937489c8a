"""The input box: `› ` then a multi-line editor; `!` at the start switches to command mode.

Enter sends the text (or runs it as a command); Up and Down recall the lines sent
(``prompt_history``); Tab in a `/` line asks wisp for completions. While a turn runs the editor
(``prompt_area``) is hidden behind the busy line, which takes the focus and holds the characters,
edits and pastes typed meanwhile (``held_keys``); they are replayed in order once the box takes
typing again.

The box also knows the running turn (the app shows it what wisp says the turn is doing), for
the main screen's steps of Ctrl-C: stop the turn (``stop_turn``), else clear a half-typed line
(``clear_draft``).
"""

from __future__ import annotations

import os

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from wisp.protocol import Activity

from ..history import History
from .held_keys import BusyLine, HeldKeys
from .prompt_area import PLACEHOLDER, PromptArea
from .prompt_history import Recall
from .prompt_keys import Held

__all__ = ["COMMAND_PLACEHOLDER", "UNSANDBOXED_COMMAND_PLACEHOLDER", "Prompt"]

COMMAND_PLACEHOLDER = "Run a command yourself: sandboxed, no approval, the model is told"
UNSANDBOXED_COMMAND_PLACEHOLDER = (
    "Run a command yourself: not sandboxed, no approval, the model is told"
)


class Prompt(Horizontal):
    """The input box; posts `Prompt.Submitted` on Enter. The app sets it busy and shows it the
    turn's activity."""

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
    """The box runs the typed text as a `!` command."""
    is_busy: reactive[bool] = reactive(False, init=False)
    """A turn or command runs: keys are held, Enter sends nothing."""
    busy_text: reactive[str] = reactive("… working…", init=False)
    """What the busy box says, before the count of held keys."""
    is_sandboxed: reactive[bool] = reactive(True, init=False)
    """From `status.sandbox`: the command placeholder never claims a sandbox that is not there."""

    class Submitted(Message):
        """A line to send: chat text, or a command to run when `is_command`."""

        def __init__(self, text: str, is_command: bool) -> None:
            super().__init__()
            self.text = text
            self.is_command = is_command

    class CompletionAsked(Message):
        """Tab in a `/` line: ask wisp for completions of `text` at `cursor`."""

        def __init__(self, text: str, cursor: int) -> None:
            super().__init__()
            self.text = text
            self.cursor = cursor

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.history = History(None)
        self.held = HeldKeys()
        """Keys and pastes typed while busy, oldest first."""
        self._recall = Recall()
        self.activity: Activity | None = None
        """What the running turn is doing; None when nothing is left to stop."""
        self.interrupts = 0
        """Ctrl-C presses during this turn: the first stops it, the second kills its work."""

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
        """The cursor as one code-point index over the whole text."""
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
        self.query_one(BusyLine).update(self.busy_text + self.held.count_text())

    # The turn.

    def set_busy(self, is_busy: bool) -> None:
        """A turn or command runs (or no longer does): keys are held, Enter sends nothing."""
        self.is_busy = is_busy
        if is_busy:
            self.busy_text = "… working…"

    def show_activity(self, activity: Activity) -> None:
        """What wisp says the turn is doing, and whether Ctrl-C can stop it."""
        self.activity = activity if activity.doing is not None else None
        if activity.doing is None:
            return
        if activity.stopping:
            self.busy_text = "… stopping the turn · Ctrl-C again kills it"
        else:
            stop = " · Ctrl-C stops it" if activity.stoppable else ""
            self.busy_text = f"… working: {activity.doing}{stop}"

    def turn_ended(self) -> None:
        self.activity = None
        self.interrupts = 0

    @property
    def is_stoppable(self) -> bool:
        """A turn runs that wisp can stop, or is stopping."""
        activity = self.activity
        return activity is not None and (activity.stoppable or activity.stopping)

    @property
    def interrupts_left(self) -> int:
        """The interrupts that would still end the running turn at once (none: no turn)."""
        return 2 - self.interrupts if self.is_stoppable else 0

    def stop_turn(self) -> bool:
        """Ctrl-C during a turn: True when wisp is to be interrupted, the first press to stop
        the turn, the second to kill its work; a third is not taken here (False)."""
        if not self.is_stoppable or self.interrupts >= 2:
            return False
        self.interrupts += 1
        self.busy_text = (
            "… stopping the turn · Ctrl-C again kills it"
            if self.interrupts == 1
            else "… stopping the turn · Ctrl-C again quits"
        )
        return True

    def close(self) -> None:
        """wisp is gone: no input is offered that nothing would read, nothing is left to stop."""
        self.activity = None  # the next Ctrl-C quits
        self.set_busy(False)
        self.display = False

    # Held keys.

    def hold(self, event: Held) -> bool:
        """Keep a character, edit or paste typed while the box cannot take it; False: not one."""
        if not self.held.hold(event):
            return False
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
        self.held.replay_into(self.input)
        self._show_busy_text()

    def _screen_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self.call_after_refresh(self.replay)

    # Sending.

    def submit(self) -> None:
        """Enter: post the text, or the command to run; an empty line sends nothing."""
        text = self.text.strip()
        is_command = self.is_command_mode
        if not is_command and text.startswith("!"):
            text, is_command = text[1:].strip(), True  # `!pwd` typed in the normal box
        if self.is_busy or not text:
            return
        self.post_message(self.Submitted(text, is_command))
        self.history.add(f"!{text}" if is_command else text)
        self._recall.reset()
        self.text = ""
        self.is_command_mode = False

    def clear_draft(self) -> bool:
        """Ctrl-C on a half-typed line: empty the box, the line kept in the history (as sent
        lines are), so Up brings it back; False when there is nothing to clear, or the box is
        busy or closed."""
        text = self.text
        is_command = self.is_command_mode
        if self.is_busy or not self.display or (not text.strip() and not is_command):
            return False
        if text.strip():
            self.history.add(f"!{text}" if is_command else text)
        self._recall.reset()
        self.text = ""
        self.is_command_mode = False
        return True

    # History and completion.

    def recall(self, step: int) -> None:
        """Up (-1) / Down (+1): the previous or next line sent; Down past the newest: the draft."""
        if self.is_busy:
            return
        current = (self.text, self.is_command_mode)
        shown = self._recall.step(self.history.lines, step, current)
        if shown is None:
            return
        text, is_command = shown
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
        self.put_word(start, cursor, word)

    def put_word(self, start: int, end: int, word: str) -> None:
        """Replace `text[start:end]` with `word`, the cursor after it."""
        area = self.input
        area.replace(
            word, area.location_of(start), area.location_of(end), maintain_selection_offset=False
        )
