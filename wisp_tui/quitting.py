"""Ctrl-C and Ctrl-D: close what is on top, stop the turn, kill its work, clear the input, or quit.

One key does each in turn: a panel closes first, a dialog is cancelled next; during a turn the
first press stops the turn, the second kills the work it started, and a third quits. Between
turns a half-typed line is cleared first (kept in the history, so Up brings it back), and only a
press on an empty input quits: a draft is never lost to a quit. Quitting
interrupts a running turn first, so that wisp ends it at once and saves it, then waits for wisp
to exit and leaves with its exit code. ``WispApp`` binds the keys; this mixin acts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from .screens.dialog import Dialog

if TYPE_CHECKING:
    from .app import WispApp


class Quitting:
    """The stop-or-quit key and the clean quit of ``WispApp``."""

    async def action_stop_or_quit(self: WispApp) -> None:
        if self.is_panel_shown:
            self.screen.action_close()  # a panel closes before anything else
            return
        if isinstance(self.screen, Dialog):
            self.screen.cancel()
            return
        activity = self.activity
        is_running = activity is not None and (activity.stoppable or activity.stopping)
        if is_running and self.interrupts < 2:
            # The first press stops the turn, the second kills its work, a third quits.
            self.interrupts += 1
            self.prompt.busy_text = (
                "… stopping the turn · Ctrl-C again kills it"
                if self.interrupts == 1
                else "… stopping the turn · Ctrl-C again quits"
            )
            await self.backend.interrupt()
            return
        if self._clear_draft():
            return
        self.action_quit_cleanly()

    def _clear_draft(self: WispApp) -> bool:
        """Clear a half-typed line into the history and say the next press quits; False: none."""
        prompt = self.prompt
        if prompt.is_busy or not prompt.display or not prompt.clear_draft():
            return False
        self.notify("input cleared (Up brings it back) · Ctrl-C again quits", timeout=4)
        return True

    def action_quit_cleanly(self: WispApp) -> None:
        if self.is_quitting:
            return
        self.is_quitting = True
        if self.is_panel_shown:
            self.pop_screen()
        self.status_bar.message = "quitting: waiting for wisp to save…"
        self.prompt.display = False
        self._quit()

    @work(exclusive=True, group="quit")
    async def _quit(self: WispApp) -> None:
        activity = self.activity
        if activity is not None and (activity.stoppable or activity.stopping):
            for _ in range(2 - self.interrupts):
                await self.backend.interrupt()  # end the turn at once so that it is saved
        code = await self.backend.quit()
        self.exit(return_code=code)
