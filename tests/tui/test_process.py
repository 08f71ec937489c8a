"""wisp-tui and the wisp process it runs (docs/tui.md, "Process and start-up", "Stopping and
quitting").

Each test runs a real process: a small fake wisp (a `sh` script passed as `command=`) that logs
the lines it is sent and ends as the test needs, or the real `wisp` under the real `wisp-tui`
on a pseudo-terminal. What is printed once the screen is gone is checked through `leave`, the
part of `wisp_tui.__main__.main` that runs after the app, and end to end on a terminal.
"""

from __future__ import annotations

import io
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import wisp_tui.backend
from tests.cli.test_chat_handover import PtyRun
from tests.hang import HANG
from tests.tui.conftest import app_env
from wisp_tui.__main__ import leave
from wisp_tui.app import WispApp

WISP_TUI = Path(sys.executable).parent / "wisp-tui"
READY = """echo '{"type":"note","text":"ready"}'"""
LOGS_UNTIL_QUIT = """\
while IFS= read -r line; do
  printf '%s\\n' "$line" >> "$LOG"
  case $line in *'"/quit"'*) {on_quit};; esac
done
"""

FakeWisp = Callable[[str], WispApp]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    """Where a fake wisp writes each line it was sent."""
    return tmp_path / "sent.jsonl"


@pytest.fixture
def fake_wisp(tmp_path: Path, log: Path) -> FakeWisp:
    """A WispApp whose wisp is the `sh` script `body` (with $LOG naming the log)."""

    def make(body: str) -> WispApp:
        script = tmp_path / "fake-wisp"
        script.write_text(f"#!/bin/sh\nLOG='{log}'\n{body}")
        script.chmod(0o755)
        return WispApp([], env=app_env(tmp_path / "home"), cwd=tmp_path, command=str(script))

    return make


def sent(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def printed_after(app: WispApp) -> tuple[int, str]:
    """The exit status and what `wisp-tui` prints on stderr once the screen is gone."""
    stderr = io.StringIO()
    return leave(app, stderr), stderr.getvalue()


async def quit_at_idle(app: WispApp, pilot, wait_for, transcript_text) -> None:
    await wait_for(pilot, lambda: "ready" in transcript_text(app))
    await pilot.press("ctrl+c")
    await wait_for(pilot, lambda: app.return_code is not None)


async def test_quitting_sends_quit_and_waits_for_wisp_to_exit(
    fake_wisp: FakeWisp, log: Path, wait_for, transcript_text
) -> None:
    app = fake_wisp(READY + "\n" + LOGS_UNTIL_QUIT.format(on_quit="exit 7"))
    async with app.run_test() as pilot:
        await quit_at_idle(app, pilot, wait_for, transcript_text)
    lines = sent(log)
    assert [line["type"] for line in lines] == ["hello", "message"]
    assert lines[-1] == {"type": "message", "text": "/quit"}
    assert (app.backend.returncode, app.backend.was_killed) == (7, False)
    assert printed_after(app) == (7, "")


async def test_quitting_closes_wisps_stdin_so_reading_to_the_end_ends_it(
    fake_wisp: FakeWisp, log: Path, wait_for, transcript_text
) -> None:
    # Deaf to /quit: only the end of its input ends it, long before the 5 s bound.
    app = fake_wisp(READY + "\n" + LOGS_UNTIL_QUIT.format(on_quit=":"))
    async with app.run_test() as pilot:
        await quit_at_idle(app, pilot, wait_for, transcript_text)
    assert sent(log)[-1] == {"type": "message", "text": "/quit"}
    assert (app.backend.returncode, app.backend.was_killed) == (0, False)
    assert printed_after(app) == (0, "")


async def test_quitting_mid_turn_interrupts_first(
    fake_wisp: FakeWisp, log: Path, wait_for, transcript_text
) -> None:
    turn = """\
echo '{"type":"turn","phase":"start","turn":1}'
echo '{"type":"activity","doing":"thinking","stoppable":true}'
"""
    app = fake_wisp(READY + "\n" + turn + LOGS_UNTIL_QUIT.format(on_quit="exit 0"))
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: "working: thinking" in app.prompt.busy_text)
        await pilot.press("ctrl+c")  # the first press stops the turn: one interrupt
        await wait_for(pilot, lambda: log.exists() and len(sent(log)) == 2)
        app.action_quit_cleanly()  # as wisp's `exit` or the end of its output would
        await wait_for(pilot, lambda: app.return_code is not None)
    assert [line["type"] for line in sent(log)] == ["hello", "interrupt", "interrupt", "message"]
    assert sent(log)[-1] == {"type": "message", "text": "/quit"}
    assert app.return_code == 0


async def test_a_wisp_that_does_not_exit_is_stopped_after_the_bound(
    fake_wisp: FakeWisp, wait_for, transcript_text, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wisp_tui.backend, "QUIT_TIMEOUT", 0.3)
    app = fake_wisp(READY + "\nexec sleep 30\n")
    async with app.run_test() as pilot:
        await quit_at_idle(app, pilot, wait_for, transcript_text)
    assert app.backend.was_killed
    assert app.backend.returncode == -signal.SIGKILL  # reaped
    code, printed = printed_after(app)
    assert code == 1
    assert printed == "wisp-tui: wisp did not exit within 0.3 s of /quit, so it was stopped\n"


async def test_the_rest_of_stderr_is_read_to_its_end(
    fake_wisp: FakeWisp, wait_for, transcript_text
) -> None:
    # What wisp says while it quits never reaches the screen: it is printed afterwards.
    on_quit = "echo 'saved as work' >&2; echo 'goodbye' >&2; exit 0"
    warns = "echo 'a warning while it runs' >&2\n"
    app = fake_wisp(warns + READY + "\n" + LOGS_UNTIL_QUIT.format(on_quit=on_quit))
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: "a warning while it runs" in transcript_text(app))
        await quit_at_idle(app, pilot, wait_for, transcript_text)
        assert "goodbye" not in transcript_text(app)
    assert printed_after(app) == (0, "saved as work\ngoodbye\n")


async def test_the_wait_for_the_rest_of_stderr_is_bounded_when_it_never_closes(
    fake_wisp: FakeWisp, tmp_path: Path, wait_for, transcript_text
) -> None:
    # wisp leaves a child holding its stderr (and stdout) open: the wait ends after 1 s anyway,
    # while the child still holds it (it sleeps past any wait of the test's).
    holder = tmp_path / "holder.pid"
    on_quit = f"sleep {2 * HANG:.0f} & echo $! > '{holder}'; echo 'last words' >&2; exit 0"
    app = fake_wisp(READY + "\n" + LOGS_UNTIL_QUIT.format(on_quit=on_quit))
    try:
        async with app.run_test() as pilot:
            await wait_for(pilot, lambda: "ready" in transcript_text(app))
            began = time.monotonic()
            await pilot.press("ctrl+c")
            await wait_for(pilot, lambda: app.return_code is not None)
            waited = time.monotonic() - began
            assert Path(f"/proc/{holder.read_text().strip()}").exists()  # still holding it
    finally:
        if holder.exists():
            os.kill(int(holder.read_text()), signal.SIGKILL)
    assert waited >= wisp_tui.backend.STDERR_CLOSE_TIMEOUT * 0.9  # the rest was waited for
    assert printed_after(app) == (0, "last words\n")


@pytest.mark.parametrize(
    ("on_quit", "status"), [("exit 0", 0), ("exit 64", 64), ("kill -TERM $$", 1)]
)
async def test_wisp_tui_leaves_with_wisps_status_when_it_failed(
    fake_wisp: FakeWisp, wait_for, transcript_text, on_quit: str, status: int
) -> None:
    app = fake_wisp(READY + "\n" + LOGS_UNTIL_QUIT.format(on_quit=on_quit))
    async with app.run_test() as pilot:
        await quit_at_idle(app, pilot, wait_for, transcript_text)
    assert printed_after(app) == (status, "")


async def test_a_non_json_line_and_stderr_lines_are_notes(
    fake_wisp: FakeWisp, wait_for, transcript_text
) -> None:
    says = "echo 'this is not json'\necho 'first on stderr' >&2\necho 'second on stderr' >&2\n"
    app = fake_wisp(says + READY + "\n" + LOGS_UNTIL_QUIT.format(on_quit="exit 0"))
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: "second on stderr" in transcript_text(app))
        await wait_for(pilot, lambda: "ready" in transcript_text(app))
        text = transcript_text(app)
        assert "this is not json" in text
        assert text.index("first on stderr") < text.index("second on stderr")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert printed_after(app) == (0, "")  # every line was shown: nothing is printed twice


async def test_a_wisp_that_fails_at_once_says_why_on_screen_and_after(
    fake_wisp: FakeWisp, wait_for, transcript_text
) -> None:
    app = fake_wisp("echo 'wisp: no such model' >&2\nexit 2\n")
    async with app.run_test() as pilot:
        # The news with its reason, at once and without a key pressed (waited for whole: the
        # reason's line may land a frame after the first).
        news = "error: wisp could not start (exit code 2):\n  wisp: no such model\n"
        await wait_for(pilot, lambda: transcript_text(app).startswith(news))
        assert app.return_code is None  # the transcript stays to be read
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert printed_after(app) == (2, "wisp: no such model\n")


def broken_config_app(tmp_path: Path) -> tuple[WispApp, Path]:
    """The real wisp under a WispApp, with a config.json that is not JSON: wisp cannot start."""
    home = tmp_path / "home"
    config = home / ".wisp" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text("{bad\n")
    app = WispApp([], env=app_env(home), cwd=tmp_path, command=str(WISP_TUI.with_name("wisp")))
    return app, config


async def test_a_wisp_that_cannot_start_shows_its_error_and_closes_the_input(
    tmp_path: Path, wait_for, transcript_text
) -> None:
    # Once, a broken config.json gave "wisp stopped unexpectedly" and an open input.
    app, config = broken_config_app(tmp_path)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: "start wisp-tui again" in transcript_text(app))
        assert transcript_text(app).splitlines() == [
            "error: wisp could not start (exit code 1):",
            f"  wisp: {config}:1:2: not valid JSON (object keys must be strings); fix or remove "
            "the file, it was left as it is",
            "Fix what wisp says, then start wisp-tui again. Ctrl-C quits.",
        ]
        assert not app.prompt.display  # no input that cannot work
        assert app.status_bar.message == "wisp could not start · Ctrl-C quits"
        await pilot.press(*"hi", "enter")
        assert "› hi" not in transcript_text(app)
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 1


async def test_a_wisp_that_dies_later_closes_the_input_too(
    fake_wisp: FakeWisp, wait_for, transcript_text
) -> None:
    app = fake_wisp(READY + "\nsleep 0.3\necho 'out of memory' >&2\nexit 3\n")
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: "stopped unexpectedly" in transcript_text(app))
        text = transcript_text(app)
        assert text.index("out of memory") < text.index(
            "error: wisp stopped unexpectedly (exit code 3); Ctrl-C quits"
        )
        assert not app.prompt.display
        assert app.status_bar.message == "wisp is not running · Ctrl-C quits"


async def test_a_wisp_that_cannot_be_run_is_said_on_screen_and_exits_127(
    tmp_path: Path, wait_for, transcript_text
) -> None:
    missing = tmp_path / "no-such-wisp"
    app = WispApp([], env=app_env(tmp_path / "home"), cwd=tmp_path, command=str(missing))
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: "cannot run" in transcript_text(app))
        assert f"error: cannot run {missing}: No such file or directory; Ctrl-C quits" in (
            transcript_text(app)
        )
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 127


async def test_a_wisp_that_ends_cleanly_on_its_own_ends_the_screen(
    fake_wisp: FakeWisp, wait_for, transcript_text
) -> None:
    app = fake_wisp(READY + "\nexit 0\n")
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.return_code is not None)
    assert printed_after(app) == (0, "")


async def test_a_failed_start_is_printed_on_the_terminal_after_the_screen(
    tmp_path: Path,
) -> None:
    # The real wisp-tui and the real wisp, asked for a model backend that does not exist.
    env = app_env(tmp_path / "home")
    for name in ("COLUMNS", "LINES"):  # Textual would believe them over the terminal's size
        env.pop(name, None)
    env["TERM"] = "xterm-256color"
    run = await PtyRun.start([str(WISP_TUI), "-m", "nosuch:thing"], env, cwd=tmp_path)
    try:
        await run.wait_for("could not start (exit code 1)")
        run.type(b"\x03")  # Ctrl-C
        assert await run.finish() == 1
    finally:
        run.close()
    screen_gone = run.raw.rindex(b"\x1b[?1049l")  # leaving the alternate screen
    after = run.raw[screen_gone:].decode()
    assert "wisp: no model backend 'nosuch' in this build" in after
    assert "Traceback" not in run.text


def test_a_wisp_planted_on_path_in_a_writable_root_is_never_chosen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With no WISP_BIN and no wisp beside this Python, PATH is searched, but never
    # a folder a confined command may write to (an activated .venv/bin in the project).
    work = tmp_path / "work"
    planted = work / ".venv" / "bin"
    planted.mkdir(parents=True)
    (planted / "wisp").write_text("#!/bin/sh\nexit 0\n")
    (planted / "wisp").chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    env = {"PATH": f"{planted}:/nonexistent", "HOME": str(tmp_path)}
    assert wisp_tui.backend.wisp_command(env, str(work)) is None
