"""wisp starts before Textual is imported, and the app adopts it (docs/tui.md, "Process and
start-up"): wisp's start then runs on the other core while Textual's runs, so its hello is
there when the first frame is drawn. Checked by order, never by timing.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
from pathlib import Path

from tests.cli.test_chat_handover import ESCAPES, PtyRun
from tests.hang import HANG
from tests.tui.conftest import app_env
from wisp_tui.app import WispApp
from wisp_tui.spawn import start

# Run in a fresh interpreter: the first of "wisp is spawned" and "textual (or asyncio, which
# alone takes longer to import than the spawn) is imported" ends it (an audit hook sees both;
# exiting inside the hook means the spawn never happens).
FIRST_OF_THE_TWO = """\
import os, sys

def hook(event, args):
    if event == "import" and args[0] in ("textual", "asyncio"):
        print(args[0], flush=True)
        os._exit(0)
    if event in ("os.posix_spawn", "subprocess.Popen"):
        print("wisp " + " ".join(map(str, args[1])), flush=True)
        os._exit(0)

sys.addaudithook(hook)
from wisp_tui.__main__ import main
main(["-m", "script:x.json"])
"""


def test_wisp_tui_spawns_wisp_before_it_imports_textual_or_asyncio(tmp_path: Path) -> None:
    env = {**app_env(tmp_path / "home"), "WISP_BIN": "/bin/true"}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_OF_THE_TWO],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert done.stdout == "wisp /bin/true chat --json -m script:x.json\n", done.stderr


async def test_a_missing_wisp_bin_is_said_on_the_screen_of_the_real_wisp_tui(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "no-such-wisp"
    env = {**app_env(tmp_path / "home"), "WISP_BIN": str(missing), "TERM": "xterm-256color"}
    for name in ("COLUMNS", "LINES"):  # Textual would believe them over the terminal's size
        env.pop(name, None)
    run = await PtyRun.start([str(Path(sys.executable).parent / "wisp-tui")], env, cwd=tmp_path)
    try:
        await run.wait_for("wisp could not start")  # the status line (80 columns: no wrap)
        run.type(b"\x03")  # Ctrl-C
        assert await run.finish() == 127
    finally:
        run.close()
    assert "error: cannot run" in run.text
    assert "Traceback" not in run.text


FAKE_WISP = """\
#!/bin/sh
echo '{"type":"note","text":"started early, pid '$$'"}'
while IFS= read -r line; do
  printf '%s\\n' "$line" >> "$LOG"
  case $line in *'"/quit"'*) exit 3;; esac
done
"""


async def test_the_app_adopts_a_wisp_started_before_it(
    tmp_path: Path, wait_for, transcript_text
) -> None:
    script = tmp_path / "fake-wisp"
    script.write_text(FAKE_WISP)
    script.chmod(0o755)
    log = tmp_path / "sent.jsonl"
    env = {**app_env(tmp_path / "home"), "LOG": str(log)}
    started = start([str(script)], env, tmp_path)
    # A command that cannot run: had the app started a wisp of its own, it would say so.
    app = WispApp([], env=env, cwd=tmp_path, command=str(tmp_path / "not-run"))
    app.backend.adopt(started)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: f"pid {started.pid}" in transcript_text(app))
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.backend.returncode == 3  # its exit was seen (and it was reaped)
    assert started.returncode == 3
    assert [json.loads(line)["type"] for line in log.read_text().splitlines()] == [
        "hello",
        "message",
    ]
    assert "cannot run" not in transcript_text(app)


async def test_a_wisp_started_early_is_not_left_behind_when_the_app_ends_at_once(
    tmp_path: Path,
) -> None:
    started = start(["sleep", "60"])
    app = WispApp([], env=app_env(tmp_path / "home"), cwd=tmp_path, command="sleep")
    app.backend.adopt(started)
    app.backend.is_quitting = True  # the person quit before the first frame
    assert await app.backend.quit() == 0
    assert started.returncode is not None


SAYS_HELLO_AT_ONCE = """\
#!/bin/sh
printf '%s\\n' \\
  '{"type":"hello","version":"0","session":"s","model":"x","tools":[]}' \\
  '{"type":"note","text":"wisp 0 · x · 0 tools"}' \\
  '{"type":"status","model":"x","directory":"~","approval":"approve at moderate","sandbox":true}'
exec cat >/dev/null
"""
"""A wisp whose hello, notes and first status are out before wisp-tui has imported Textual:
one write of a few hundred bytes, where Textual's import takes a hundred milliseconds and more
on any machine."""


async def test_what_wisp_said_before_the_screen_was_built_is_in_the_first_frame(
    tmp_path: Path,
) -> None:
    script = tmp_path / "fake-wisp"
    script.write_text(SAYS_HELLO_AT_ONCE)
    script.chmod(0o755)
    env = {**app_env(tmp_path / "home"), "WISP_BIN": str(script), "TERM": "xterm-256color"}
    for name in ("COLUMNS", "LINES"):
        env.pop(name, None)
    run = await PtyRun.start([str(Path(sys.executable).parent / "wisp-tui")], env, cwd=tmp_path)
    try:
        await run.wait_for("approve at moderate")
        run.type(b"\x03")  # Ctrl-C
        await run.finish()
    finally:
        run.close()
    # The first frame paints every row from the top; the next one starts at the top again.
    home = b"\x1b[1;1H"
    first = run.raw.index(home)
    end = run.raw.find(home, first + len(home))
    frame = ESCAPES.sub(b"", run.raw[first : end if end > 0 else None]).decode(errors="replace")
    assert "Ask wisp to do anything" in frame, frame  # the input
    assert "wisp 0 · x · 0 tools" in frame, frame  # the note, in the transcript
    assert "approve at moderate" in frame, frame  # the status line


SPLIT_LINE = """\
import sys
out = sys.stdout.buffer
# One write: a note, and the first half of the next one.
out.write(b'{"type":"note","text":"said first"}\\n{"type":"note","te'); out.flush()
sys.stdin.readline()  # wisp-tui's hello: it has adopted us
out.write(b'xt":"said after"}\\n'); out.flush()
sys.stdin.read()
"""


async def test_a_line_half_written_before_the_screen_was_built_is_read_whole_later(
    tmp_path: Path, wait_for, transcript_text
) -> None:
    started = start([sys.executable, "-c", SPLIT_LINE], app_env(tmp_path / "home"), tmp_path)
    select.select([started.stdout], [], [])  # its one write is there, whole
    app = WispApp([], env=app_env(tmp_path / "home"), cwd=tmp_path, command="not-run")
    app.backend.adopt(started)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: "said after" in transcript_text(app))
        text = transcript_text(app)
        assert text.index("said first") < text.index("said after")
        await app.backend.quit()
