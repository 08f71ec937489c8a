"""The main screen (docs/tui.md, "Layout"): the transcript over the input box and the status
line, and the keys that act on them while no dialog or panel is over it.

Ctrl-G opens or shuts every fold, Shift-Tab and Tab step through the folds and Esc returns to
the input (the transcript finds the folds, the screen moves the focus), PageUp and PageDown
scroll the transcript while the input keeps the keys; Ctrl-O, Ctrl-T and F1 open a panel (the
app's `toggle_panel`). Ctrl-C and Ctrl-D stop the turn, else clear a half-typed line, else quit
(docs/tui.md, "Stopping and quitting"): the input box knows the turn and the draft, and the
app, told by `Interrupt` and `Quit` (posted in the order pressed), sends wisp the interrupt or
quits. A panel or a dialog over this screen binds these keys itself, so none of them reaches
past it. The app composes the widgets into it.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen

from ..keys import PANEL_KEYS, STOP_KEYS
from ..widgets.prompt import Prompt
from ..widgets.transcript import Transcript

PANEL_BINDINGS: list[BindingType] = [
    Binding(key, f"app.toggle_panel({kind!r})", show=False, priority=True)
    for key, kind in PANEL_KEYS
]
"""Ctrl-O, Ctrl-T and F1, on this screen and on a panel (docs/tui.md, "Panels")."""


class ChatScreen(Screen[None]):
    """The screen under every dialog and panel: its keys act only while it is on top."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the input's own Ctrl-D (delete right) never sees them.
        Binding(STOP_KEYS, "stop_or_quit", show=False, priority=True),
        # Keys no input, terminal or multiplexer takes (TextArea has Ctrl-Y for redo).
        *PANEL_BINDINGS,
        Binding("ctrl+g", "toggle_all_folds", show=False, priority=True),
        Binding("pageup", "scroll_transcript(-1)", show=False),
        Binding("pagedown", "scroll_transcript(1)", show=False),
        # Before the input, which would otherwise take Shift-Tab; a fold binds Tab back.
        Binding("shift+tab", "step_fold(-1)", show=False, priority=True),
        Binding("escape", "focus_input", show=False),
    ]

    class Interrupt(Message):
        """Ctrl-C or Ctrl-D during a turn: wisp is to stop it (the second time: kill its work)."""

    class Quit(Message):
        """Ctrl-C or Ctrl-D with no turn to stop and no draft to clear: the app quits."""

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def prompt(self) -> Prompt:
        return self.query_one(Prompt)

    def action_stop_or_quit(self) -> None:
        """Stop the turn (twice: kill its work), else clear a half-typed line, else quit."""
        prompt = self.prompt
        if prompt.stop_turn():
            self.post_message(self.Interrupt())
            return
        if prompt.clear_draft():
            self.notify("input cleared (Up brings it back) · Ctrl-C again quits", timeout=4)
            return
        self.post_message(self.Quit())

    async def action_toggle_all_folds(self) -> None:
        await self.transcript.toggle_all_folds()

    def action_scroll_transcript(self, pages: int) -> None:
        """PageUp, PageDown: the transcript a page up or down, the input keeping the keys."""
        if pages < 0:
            self.transcript.scroll_page_up(animate=False)
        else:
            self.transcript.scroll_page_down(animate=False)

    def action_step_fold(self, step: int) -> None:
        """Shift-Tab (-1) and a fold's Tab (+1); past the newest fold, the keys go back to the
        input."""
        if not self.transcript.step_fold(step):
            self.action_focus_input()

    def action_focus_input(self) -> None:
        """Esc on a fold gives the keys back to the input."""
        self.prompt.input.focus()
