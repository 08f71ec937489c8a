"""Ctrl-C and Ctrl-D: close what is on top, stop the turn, kill its work, or quit.

One key does each in turn: a panel closes first, a dialog is cancelled next; during a turn the
first press stops the turn, the second kills the work it started, and a third quits. Quitting
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
        self.action_quit_cleanly()

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
