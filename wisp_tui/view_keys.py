"""The keys that reach back into what was shown: folds, panels and copying.

Ctrl-O opens the last tool output in a panel, Ctrl-G opens or shuts every fold, Shift-Tab and Tab
step through the folds and Esc returns to the input, Ctrl-R copies the last reply's Markdown
source, and text selected with the mouse is copied as the button comes up. Under a dialog or a
panel these keys are theirs, not the transcript's. ``WispApp`` binds the keys; this mixin acts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events, work

from wisp.protocol import Activity, Completions, Delta, Event, EventOutput, View, Withdrawn

from .screens.dialog import Dialog
from .widgets.tool_line import ToolLine

if TYPE_CHECKING:
    from .app import WispApp


class Remembered:
    """What the keys reach back for: the last output (Ctrl-O) and the last reply (Ctrl-R)."""

    def __init__(self) -> None:
        self.last_output: EventOutput | None = None
        self._reply_parts: list[str] = []
        self._is_replying = False

    @property
    def reply(self) -> str:
        """The last reply's Markdown source, as wisp sent it."""
        return "".join(self._reply_parts).strip()

    def note(self, line: object) -> None:
        """Take what a line from wisp adds: a reply's fragment, or a tool's output."""
        match line:
            case Delta(text=text):
                if not self._is_replying:
                    self._reply_parts = []
                    self._is_replying = True
                self._reply_parts.append(text)
            case Event(output=EventOutput() as output):
                self.last_output = output
                self._is_replying = False
            case Activity() | Completions() | Withdrawn() | Event(text=None):
                pass  # nothing shows between two fragments, so the reply goes on
            case _:
                self._is_replying = False


class ViewKeys:
    """The folds, panels and copying keys of ``WispApp``."""

    _copied: str | None = None
    """The text last copied, so that a later mouse-up over the same selection copies nothing."""

    async def action_output_panel(self: WispApp) -> None:
        """Ctrl-O: open the last output in a panel, or close it; under a dialog, nothing."""
        if isinstance(self.screen, Dialog) or self.is_quitting:
            return
        if self.is_panel_shown:
            was_output = self.screen.kind == "output"
            await self.pop_screen()
            if was_output:
                return  # in another panel Ctrl-O switches to the output
        last_output = self.remembered.last_output
        if last_output is None:
            await self.transcript.add_note("no tool output to show yet")
            return
        from .screens.panel import Panel, output_text

        await self.push_screen(Panel("output", output_text(last_output)))

    async def show_view(self: WispApp, view: View) -> None:
        """A `view` from `/inspect …` opens in a panel, at the top, unless a dialog is shown."""
        if isinstance(self.screen, Dialog) or self.is_quitting:
            return
        if self.is_panel_shown:
            await self.pop_screen()
        from .screens.panel import Panel, view_title

        await self.push_screen(Panel(view_title(view), view.text, kind=view.kind))

    async def action_toggle_all_folds(self: WispApp) -> None:
        """Ctrl-G: open every fold when any is shut, else shut them all."""
        if self.is_over_the_main_screen:
            return
        folds = self.transcript.folds()
        await self.transcript.set_all_folds(any(f.is_foldable and not f.is_open for f in folds))

    def check_action(self: WispApp, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Under a dialog or a panel, Shift-Tab is theirs: the folds are out of reach.
        return not (action == "step_fold" and self.is_over_the_main_screen)

    def action_step_fold(self: WispApp, step: int) -> None:
        """Shift-Tab: from the input to the newest fold, then older; Tab: newer, then the input."""
        folds = [fold for fold in self.transcript.query(ToolLine) if fold.is_foldable]
        focused = self.focused
        if isinstance(focused, ToolLine) and focused in folds:
            index = folds.index(focused) + step
        else:
            index = len(folds) - 1 if step < 0 else len(folds)
        if 0 <= index < len(folds):
            folds[index].focus()
        elif index >= len(folds):
            self.action_focus_input()

    def action_focus_input(self: WispApp) -> None:
        """Esc on a fold gives the keys back to the input."""
        if not self.is_over_the_main_screen:
            self.prompt.input.focus()

    def action_copy_reply(self: WispApp) -> None:
        """Ctrl-R: copy the last reply's Markdown source."""
        reply = self.remembered.reply
        if not reply:
            self.notify("no reply to copy yet", timeout=3)
            return
        self._copy(reply, "the last reply")

    def on_text_selected(self: WispApp, event: events.TextSelected) -> None:
        """Text selected with the mouse is copied as the button comes up; no key needed."""
        text = self.screen.get_selected_text()
        if text and text != self._copied:
            self._copy(text, "the selection")

    @work(group="copy")
    async def _copy(self: WispApp, text: str, what: str) -> None:
        self._copied = text  # a later mouse-up over the same selection copies nothing again
        where = await self.clipboard_writer.copy(text, self.copy_to_clipboard)
        count = len(text)
        self.notify(f"copied {what} ({count} character{'s' if count != 1 else ''}) to {where}")
