"""A real-terminal smoke test: `wisp-tui` in a detached tmux session, read off the screen.

The Pilot tests drive the app headless; this one proves the installed console script starts in a
real terminal (120×40), takes typed keys, draws the reply with its `ran:` and `cited` lines, and
leaves with status 0 on Ctrl-C. It runs on its own tmux server (`-L`), so it never touches anyone
else's sessions, and that server is always killed.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tui.conftest import write_script

WISP_TUI = Path(sys.executable).parent / "wisp-tui"
POLL = 0.05

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

REPLY_WITH_CITATION = [
    {"text": "", "tool_calls": [{"name": "current_date", "arguments": {}}]},
    {"text": "All done, as entry 42 says."},
]


def test_wisp_tui_in_a_real_terminal_replies_and_quits_with_status_0(tmp_path: Path) -> None:
    home = tmp_path / "home"
    # Work beside WISP_HOME, as in conftest: the sandbox keeps the way down to it read-only.
    work = home / "work"
    script = write_script(work, REPLY_WITH_CITATION)
    exit_file = tmp_path / "exit"
    name = f"wisp-tui-{uuid.uuid4().hex[:8]}"
    inner = (
        f"{shlex.quote(str(WISP_TUI))} -m {shlex.quote('script:' + script.name)}; "
        f"echo EXIT=$? > {shlex.quote(str(exit_file))}"
    )
    # COLUMNS and LINES are dropped: under pytest they reach the pane as 80×24, and Textual would
    # believe them over the terminal's real size.
    command = shlex.join(
        ["env", "-u", "WISP_LOG", "-u", "WISP_BIN", "-u", "COLUMNS", "-u", "LINES",
         f"HOME={home}", f"WISP_HOME={home / '.wisp'}", "sh", "-c", inner]
    )  # fmt: skip

    def tmux(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", name, *args], capture_output=True, text=True, check=check, timeout=10
        )

    def screen() -> str:
        return tmux("capture-pane", "-p", "-t", name, check=False).stdout

    def wait_until(condition: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}:\n{screen()}")
            time.sleep(POLL)

    try:
        # No user config (-f /dev/null): the size and the keys are tmux's defaults.
        tmux(
            "-f", "/dev/null",
            "new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", str(work), command,
        )  # fmt: skip
        size = tmux("display-message", "-p", "-t", name, "#{window_width}x#{window_height}")
        assert size.stdout.strip() == "120x40"
        # Ready: wisp's status line (`… · ~/work`, the folder under HOME) is under the empty input.
        wait_until(
            lambda: "Ask wisp to do anything" in screen() and "~/work" in screen(),
            "the input to be ready",
        )
        tmux("send-keys", "-t", name, "-l", "hello")
        tmux("send-keys", "-t", name, "Enter")

        def turn_ended() -> bool:
            # The notes are drawn, and below them the input is idle again (its placeholder back).
            text = screen()
            cited = text.find("cited but not in this conversation")
            return cited >= 0 and "Ask wisp to do anything" in text[cited:]

        wait_until(turn_ended, "the turn to end")
        text = screen()
        lines = [line.strip() for line in text.splitlines()]
        assert "› hello" in lines
        assert "All done, as entry 42 says." in lines
        assert "ran: current_date" in lines
        assert "cited but not in this conversation: entry 42" in lines
        assert (
            text.index("› hello")
            < text.index("All done")
            < text.index("ran: current_date")
            < text.index("cited but not")
        )

        tmux("send-keys", "-t", name, "C-c")
        # The pane's process (sh) ends once wisp-tui has quit, and with it the session.
        wait_until(
            lambda: exit_file.exists() and "\n" in exit_file.read_text(),
            "wisp-tui to exit",
            timeout=5.0,
        )
        wait_until(
            lambda: tmux("has-session", "-t", name, check=False).returncode != 0,
            "the session to end",
            timeout=5.0,
        )
        assert exit_file.read_text().strip() == "EXIT=0"
    finally:
        tmux("kill-server", check=False)
        socket_folder = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (socket_folder / name).unlink(missing_ok=True)
