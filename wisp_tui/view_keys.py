"""The keys that reach back into what was shown: folds, panels and copying.

Ctrl-O opens the last tool output in a panel, Ctrl-T the context the next request carries (Left
and Right in it step through the turns), F1 the keys (``keys``), PageUp and PageDown scroll the
transcript, Ctrl-G opens or shuts every fold (or says there is none), Shift-Tab and Tab
step through the folds and Esc returns to the input, Ctrl-R copies the last reply's Markdown
source, and text selected with the mouse is copied as the button comes up. Under a dialog or a
panel these keys are theirs, not the transcript's. ``WispApp`` binds the keys; this mixin acts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from textual import events, work

from wisp.protocol import Activity, Completions, Delta, Event, EventOutput, View, Withdrawn

from .screens.dialog import Dialog
from .widgets.tool_line import ToolLine

if TYPE_CHECKING:
    from .app import WispApp
    from .screens.panel import Panel

ContextAsked = Literal["key", "step"]
"""Who asked for the context view wisp has yet to answer: Ctrl-T, or Left/Right in the panel."""


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
    context_asked: ContextAsked | None = None
    """An `/inspect context` sent by Ctrl-T or Left/Right and not answered yet: one at a time.
    A `view` or a `note` (a turn wisp does not have) answers it."""

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
        """A `view` from `/inspect …` opens in a panel, at the top, unless a dialog is shown.
        The answer to a Left or Right is dropped when its panel was closed meanwhile."""
        asked, self.context_asked = self.context_asked, None
        if isinstance(self.screen, Dialog) or self.is_quitting:
            return
        if asked == "step" and not self._is_context_panel_shown:
            return
        if self.is_panel_shown:
            await self.pop_screen()
        from .screens.panel import Panel, view_title

        panel = Panel(view_title(view), view.text, kind=view.kind, turn=view.turn, turns=view.turns)
        await self.push_screen(panel)

    @property
    def _is_context_panel_shown(self: WispApp) -> bool:
        return self.is_panel_shown and self.screen.kind == "context"

    async def action_context_panel(self: WispApp) -> None:
        """Ctrl-T: between turns, ask wisp for the context the next request carries (not echoed
        in the transcript); its `view` opens the panel. In the context panel: close it."""
        if isinstance(self.screen, Dialog) or self.is_quitting:
            return
        if self._is_context_panel_shown:
            await self.pop_screen()
            return
        if self.prompt.is_busy or self.context_asked is not None or self.backend.is_gone:
            return  # wisp answers between turns, one request at a time
        await self._ask_context(None, "key")

    async def on_panel_step_turn(self: WispApp, message: Panel.StepTurn) -> None:
        """Left or Right in a context panel; ignored while an earlier one is unanswered."""
        if self.context_asked is None and not self.is_quitting:
            await self._ask_context(message.turn, "step")

    async def _ask_context(self: WispApp, turn: int | None, asked: ContextAsked) -> None:
        self.context_asked = asked
        await self.backend.message(f"/inspect context {'next' if turn is None else turn}")

    async def action_toggle_all_folds(self: WispApp) -> None:
        """Ctrl-G: open every fold when any is shut, else shut them all."""
        if self.is_over_the_main_screen:
            return
        folds = [fold for fold in self.transcript.folds() if fold.is_foldable]
        if not folds:
            self.notify("nothing to fold yet: no output or thinking shown", timeout=3)
            return
        await self.transcript.set_all_folds(any(not fold.is_open for fold in folds))

    async def action_keys_panel(self: WispApp) -> None:
        """F1: the keys in a panel (nothing is sent), or close it; under a dialog, nothing."""
        if isinstance(self.screen, Dialog) or self.is_quitting:
            return
        if self.is_panel_shown:
            was_keys = self.screen.kind == "keys"
            await self.pop_screen()
            if was_keys:
                return
        from .keys import keys_text
        from .screens.panel import Panel

        await self.push_screen(Panel("keys", keys_text(), kind="keys"))

    def action_scroll_transcript(self: WispApp, pages: int) -> None:
        """PageUp, PageDown: the transcript a page up or down, the input keeping the keys."""
        if self.is_over_the_main_screen:
            return
        if pages < 0:
            self.transcript.scroll_page_up(animate=False)
        else:
            self.transcript.scroll_page_down(animate=False)

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
