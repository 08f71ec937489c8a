"""A notification in a real terminal (tmux): wisp-tui with `WISP_NOTIFY=osc9` (inside tmux
nothing would be sent otherwise, docs/tui.md, "Notifications") writes the OSC 9 bytes of a
turn's end when the terminal has reported focus out, and none while it is focused.

What the program writes is read raw from tmux's pipe of the pane, the same pipe the harness
waits on; every wait is on those bytes or the screen.
"""

from __future__ import annotations

import os
import select
import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.hang import HANG
from tests.tui.conftest import write_script
from tests.tui.tmux_terminal import TmuxTerminal

WISP_TUI = Path(sys.executable).parent / "wisp-tui"
IDLE = "Ask wisp to do anything"
FOCUS_OUT = ("1b", "5b", "4f")
"""`ESC [ O`: what a terminal reporting focus (`CSI ? 1004 h`) writes when it loses focus."""
ENTER = "0d"

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class RecordingTerminal(TmuxTerminal):
    """The harness's terminal, keeping every byte the program writes."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.written = bytearray()

    def _wait_for_drawing(self, seconds: float) -> None:
        readable, _, _ = select.select([self._reader], [], [], seconds)
        if readable:
            while True:
                try:
                    chunk = os.read(self._reader, 65536)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                self.written += chunk

    def wait_for_bytes(self, needle: bytes) -> None:
        """Block until the program has written `needle`; fail only at a hang."""
        deadline = time.monotonic() + HANG
        while needle not in self.written:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"waited {HANG:.0f} s for {needle!r}:\n{self.screen()}")
            self._wait_for_drawing(min(left, 0.25))


def test_a_turn_that_ends_while_unfocused_is_notified_by_osc9(tmp_path: Path) -> None:
    home = tmp_path / "home"
    work = home / "work"
    work.mkdir(parents=True)
    script = write_script(work, [{"text": "Focused reply."}, {"text": "Away reply."}])
    env = {"HOME": str(home), "WISP_HOME": str(home / ".wisp"), "WISP_NOTIFY": "osc9"}
    command = ["env", "-u", "WISP_LOG", "-u", "WISP_BIN", str(WISP_TUI), "-m"]
    with RecordingTerminal(
        [*command, f"script:{script.name}"], env=env, cwd=work, folder=tmp_path
    ) as terminal:
        terminal.wait_until(lambda screen: IDLE in screen, "the input")
        terminal.wait_until(lambda screen: "script:" in screen, "wisp's hello")

        # Focused: the turn's notice is dropped.
        terminal.type("one")
        terminal.press("Enter")
        terminal.wait_until(lambda screen: "Focused reply." in screen, "the first reply")
        terminal.wait_until(lambda screen: IDLE in screen, "the input free again")
        assert b"\x1b]9;" not in terminal.written

        # Enter, then focus out in the same write: the turn runs while the terminal is away
        # (a key typed would count as focus again).
        terminal.type("two")
        terminal.press("-H", ENTER, *FOCUS_OUT)
        terminal.wait_for_bytes(b"\x1b]9;wisp: turn finished: Away reply.\x07")
        terminal.wait_until(lambda screen: "Away reply." in screen, "the second reply")
        assert terminal.written.count(b"\x1b]9;") == 1

        terminal.press("C-c")
        assert terminal.wait_for_exit() == 0
