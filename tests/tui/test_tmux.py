"""wisp-tui in a real terminal (tmux, 120×40): what a person sees, checked off the screen.

The Pilot tests drive the app headless; these run the installed `wisp-tui` console script, with a
real `wisp chat --json -m script:FILE` behind it, type into a real terminal and read what it draws.

Every wait is on the screen or the program's exit. A dialog's grace (500 ms of keyboard quiet,
docs/tui.md, "Dialogs") is the one place where time is the behaviour: the test that types into it
runs wisp-tui with a grace longer than any test, and the ones that wait it out press a key whose
effect shows on the screen, pressing it again after a longer quiet if it landed in the grace after
all (a busy machine). How soon wisp-tui quits or shows wisp's death is measured by bench/tui.py (g),
(h).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hang import HANG
from tests.tui.conftest import write_script
from tests.tui.tmux_terminal import TmuxTerminal

BIN = Path(sys.executable).parent
WISP_TUI = BIN / "wisp-tui"
IDLE = "Ask wisp to do anything"
WITH_GRACE = (
    "import sys; from wisp_tui.screens.dialog import Dialog; "
    "Dialog.grace_seconds = float(sys.argv.pop(1)); "
    "from wisp_tui.__main__ import run; run()"
)
"""wisp-tui with its dialogs' grace set to the first argument."""

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

REPLY_WITH_CITATION = [
    {"text": "", "tool_calls": [{"name": "current_date", "arguments": {}}]},
    {"text": "All done, as entry 42 says."},
]


class Setup:
    """A home under tmp_path with a `work` folder beside WISP_HOME (the sandbox keeps the way
    down to WISP_HOME read-only), and the environment wisp runs with."""

    def __init__(self, tmp_path: Path) -> None:
        self.folder = tmp_path
        self.home = tmp_path / "home"
        self.work = self.home / "work"
        self.work.mkdir(parents=True)
        self.env = {"HOME": str(self.home), "WISP_HOME": str(self.home / ".wisp")}

    def terminal(
        self, responses: list[dict[str, Any]], *, grace: float | None = None
    ) -> TmuxTerminal:
        """wisp-tui on `responses`; `grace`: its dialogs' grace in seconds, if not the 0.5 s."""
        script = write_script(self.work, responses)
        tui = [str(WISP_TUI)] if grace is None else [sys.executable, "-c", WITH_GRACE, str(grace)]
        command = ["env", "-u", "WISP_LOG", "-u", "WISP_BIN", *tui, "-m"]
        return TmuxTerminal(
            [*command, f"script:{script.name}"], env=self.env, cwd=self.work, folder=self.folder
        )

    def wisp(self, *args: str) -> str:
        environment = {k: v for k, v in os.environ.items() if k not in ("WISP_LOG", "WISP_BIN")}
        done = subprocess.run(
            [str(BIN / "wisp"), *args], env={**environment, **self.env}, cwd=self.work,
            capture_output=True, text=True, timeout=HANG, check=True,
        )  # fmt: skip
        return done.stdout


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    yield Setup(tmp_path)


def ready(terminal: TmuxTerminal) -> None:
    """wisp's status line (its approval mode on the right) is under the empty input."""
    terminal.wait_until(lambda s: IDLE in s and "approve at moderate" in s, "the input to be ready")


def send(terminal: TmuxTerminal, text: str) -> None:
    terminal.type(text)
    terminal.press("Enter")


def press_after_the_quiet(terminal: TmuxTerminal, key: str, taken: Callable[[str], bool]) -> None:
    """Press `key` in a dialog after a quiet that outlasts its grace, until `taken(screen)`
    shows the dialog took it. On a busy machine the grace may outlast the quiet, and a key in it
    is dropped (and starts the grace again): then it is pressed again after twice the quiet.
    A key taken but drawn late may still be pressed twice: the callers' keys allow for it."""
    quiet = 0.6
    while True:
        terminal.stay_quiet(quiet)
        if taken(terminal.screen()):  # the last one was taken, and drawn late
            return
        terminal.press(key)
        if terminal.holds_within(taken, quiet):
            return
        if quiet > HANG:
            raise AssertionError(f"{key!r} was never taken:\n{terminal.screen()}")
        quiet *= 2


def idle_after(marker: str):
    """The screen shows `marker`, and below it the input is idle again (its placeholder back)."""

    def condition(screen: str) -> bool:
        at = screen.find(marker)
        return at >= 0 and IDLE in screen[at:]

    return condition


def test_a_reply_shows_its_ran_and_cited_lines_and_ctrl_c_leaves_a_clean_terminal(
    setup: Setup,
) -> None:
    with setup.terminal(REPLY_WITH_CITATION) as terminal:
        assert terminal.pane("window_width") + "x" + terminal.pane("window_height") == "120x40"
        ready(terminal)
        assert terminal.pane("alternate_on") == "1"  # full screen
        send(terminal, "hello")
        terminal.wait_until(idle_after("cited but not in this conversation"), "the turn to end")
        text = terminal.screen()
        lines = terminal.lines()
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

        terminal.press("C-c")
        assert terminal.wait_for_exit() == 0
        # Clean: out of the alternate screen, the cursor shown, no mouse reporting left on.
        assert terminal.pane("alternate_on") == "0"
        assert terminal.pane("cursor_flag") == "1"
        assert terminal.pane("mouse_any_flag") == "0"
        assert terminal.pane("mouse_all_flag") == "0"


MAKE_A_FILE = [
    {"text": "", "tool_calls": [{"name": "run_command", "arguments": {"command": "touch made"}}]},
    {"text": "Made it."},
]


def test_an_approval_takes_no_key_typed_in_its_grace(setup: Setup) -> None:
    # A grace longer than the test: the y is in it however slow the machine. Ctrl-C, never
    # delayed, then refuses; had the y answered, it would have approved first.
    with setup.terminal(MAKE_A_FILE, grace=HANG) as terminal:
        ready(terminal)
        send(terminal, "make a file")
        terminal.wait_until(lambda s: "approve · moderate" in s, "the approval dialog")
        terminal.type("y")
        terminal.press("C-c")
        # On a busy machine Ctrl-C, never delayed, can overtake the y, which then lands in the
        # input once the dialog is gone: never an answer either way.
        terminal.wait_until(
            lambda s: "Made it." in s and "ran: run_command (1 declined)" in s,
            "the refusal and the reply",
        )
        lines = terminal.lines()
        assert "⚠ refused: touch made" in lines
        assert not any(line.startswith("⚠ approved") for line in lines)
        assert not (setup.work / "made").exists()
        # Either way the y lands in the input, a draft: the first Ctrl-C clears it, the next quits.
        terminal.wait_until(lambda s: "› y" in s, "the y in the input")
        terminal.press("C-c")
        terminal.wait_until(lambda s: IDLE in s, "the input cleared")
        terminal.press("C-c")
        assert terminal.wait_for_exit() == 0


def test_an_approval_takes_y_after_a_quiet(setup: Setup) -> None:
    with setup.terminal(MAKE_A_FILE) as terminal:
        ready(terminal)
        send(terminal, "make a file")
        terminal.wait_until(lambda s: "approve · moderate" in s, "the approval dialog")
        press_after_the_quiet(terminal, "y", idle_after("Made it."))
        lines = terminal.lines()
        assert "⚠ approved for this turn: touch made" in lines
        assert "⚙ run_command touch made" in lines
        assert (setup.work / "made").exists()
        terminal.press("C-c")
        assert terminal.wait_for_exit() == 0


ASK = [
    {"text": "", "tool_calls": [{"name": "ask", "arguments": {"question": "Which branch?"}}]},
    {"text": "Thanks."},
]


def test_the_answer_typed_into_the_question_dialog_reaches_the_model(setup: Setup) -> None:
    with setup.terminal(ASK) as terminal:
        ready(terminal)
        send(terminal, "ask me")
        terminal.wait_until(lambda s: "Which branch?" in s, "the question dialog")
        # A letter shows the dialog takes keys (its input's placeholder goes); it is rubbed out.
        press_after_the_quiet(terminal, "x", lambda s: not shows_placeholder(s))
        terminal.press(*["BSpace"] * 8)
        terminal.wait_until(shows_placeholder, "the answer's input empty again")
        send(terminal, "staging")
        terminal.wait_until(idle_after("Thanks."), "the reply after the answer")
        assert "answered: staging" in terminal.screen()
        terminal.press("C-c")
        assert terminal.wait_for_exit() == 0
    # What the model was sent: the ask tool's result in the audit log carries the answer.
    results = [
        event
        for line in setup.wisp("logs", "--kind", "tool.result", "--json").splitlines()
        if (event := json.loads(line))["details"].get("tool") == "ask"
    ]
    assert results and "staging" in json.dumps(results[-1]["details"])


def test_disabling_a_model_in_the_picker_shows_in_wisp_models(setup: Setup) -> None:
    terminal = setup.terminal([{"text": "Hi."}])
    # The default model cannot be disabled: make the script the default, so `local` can be.
    setup.wisp("config", "set", "model", f"script:{setup.work / 'script.json'}")
    assert json.loads(setup.wisp("models", "--json"))["models"][0]["selection"] == "local"
    with terminal:
        ready(terminal)
        send(terminal, "/models")
        terminal.wait_until(lambda s: "MODEL" in s and "local" in s, "the model picker")
        rows = [line for line in terminal.lines() if "[x]" in line or "[ ]" in line]
        local = next(i for i, row in enumerate(rows) if " local " in f" {row} ")
        # A move shows the picker takes keys: its highlight (▸) leaves the top row, then goes
        # back (Up stops at the top).
        press_after_the_quiet(terminal, "Down", lambda s: highlighted_row(s) not in (0, None))
        terminal.press(*["Up"] * len(rows))
        terminal.wait_until(lambda s: highlighted_row(s) == 0, "the highlight back on top")
        terminal.press(*["Down"] * local, "Space")
        terminal.wait_until(
            lambda s: any(" local " in line and "[ ]" in line for line in s.splitlines()),
            "local turned off",
        )
        terminal.press("Enter")
        terminal.wait_until(lambda s: "MODEL" not in s and IDLE in s, "the picker saved")
        terminal.press("C-c")
        assert terminal.wait_for_exit() == 0
    models = {m["selection"]: m for m in json.loads(setup.wisp("models", "--json"))["models"]}
    assert models["local"]["enabled"] is False


def test_killing_the_backend_mid_turn_shows_an_error(setup: Setup) -> None:
    slow = [{"text": "word " * 400, "delay_ms": 20}]
    with setup.terminal(slow) as terminal:
        ready(terminal)
        send(terminal, "talk")
        terminal.wait_until(lambda s: "word word word" in s, "the reply streaming")
        os.kill(terminal.descendant_pid("chat --json"), signal.SIGKILL)
        terminal.wait_until(lambda s: "wisp stopped unexpectedly" in s, "the error")
        assert "word word word" in terminal.screen()  # the transcript is still there to read
        terminal.press("C-c")
        assert terminal.wait_for_exit() == 1  # wisp died from a signal


def test_alt_enter_and_ctrl_j_start_new_lines_and_enter_sends_them_all(setup: Setup) -> None:
    with setup.terminal([{"text": "Three lines."}]) as terminal:
        ready(terminal)
        terminal.type("first")
        terminal.press("M-Enter")  # ESC CR, as a terminal sends Alt-Enter
        terminal.type("second")
        terminal.press("C-j")
        terminal.type("third")
        terminal.wait_until(
            lambda s: _rows_from(s, "› first", 3) == ["› first", "second", "third"],
            "three rows in the input",
        )
        terminal.press("Enter")
        terminal.wait_until(idle_after("Three lines."), "the reply")
        assert _rows_from(terminal.screen(), "› first", 3) == ["› first", "second", "third"]
        terminal.press("C-c")
        assert terminal.wait_for_exit() == 0


def shows_placeholder(screen: str) -> bool:
    """Whether the question's input is empty: it shows its placeholder on a row of its own."""
    return any(line.strip(" │") == "type an answer" for line in screen.splitlines())


def highlighted_row(screen: str) -> int | None:
    """Which of the picker's rows (0 the first) has the highlight, `▸`."""
    rows = [line for line in screen.splitlines() if "[x]" in line or "[ ]" in line]
    return next((i for i, row in enumerate(rows) if "▸" in row), None)


def _rows_from(screen: str, first: str, count: int) -> list[str]:
    """`count` rows of the screen, stripped, from the first that starts with `first`."""
    rows = [row.strip() for row in screen.splitlines()]
    at = next((i for i, row in enumerate(rows) if row.startswith(first)), None)
    return [] if at is None else rows[at : at + count]


def test_ctrl_c_clears_a_draft_first_and_f1_shows_the_keys(setup: Setup) -> None:
    with setup.terminal([{"text": "Hi."}]) as terminal:
        ready(terminal)
        terminal.type("a draft to keep")
        terminal.wait_until(lambda s: "› a draft to keep" in s, "the draft in the input")
        # The first Ctrl-C clears the draft, says the next one quits, and does not quit.
        terminal.press("C-c")
        terminal.wait_until(
            lambda s: "Ctrl-C again quits" in s and IDLE in s, "the input cleared, and the hint"
        )
        terminal.press("Up")
        terminal.wait_until(lambda s: "› a draft to keep" in s, "the draft back with Up")
        history = (setup.home / ".wisp" / "history").read_text()
        assert json.loads(history.splitlines()[-1]) == "a draft to keep"

        # F1: the keys in a panel, nothing sent; Esc closes it. A printable key still types.
        terminal.press("F1")
        terminal.wait_until(lambda s: "this list of keys" in s and " keys " in s, "the keys")
        assert "Ctrl-C, Ctrl-D" in terminal.screen()
        terminal.press("Escape")
        terminal.wait_until(lambda s: "this list of keys" not in s, "the panel closed")
        terminal.type("?")
        terminal.wait_until(lambda s: "› a draft to keep?" in s, "the ? typed")

        terminal.press("C-c")
        terminal.wait_until(lambda s: IDLE in s, "the input cleared again")
        terminal.press("C-c")  # on the empty input: quit, as before
        assert terminal.wait_for_exit() == 0
