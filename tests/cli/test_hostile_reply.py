"""A reply's escape sequences never reach the person's terminal: a model (or a file it read)
may write `ESC ] 0 ;` (the window title), `ESC [ 2 J` (clear the screen) or `ESC ] 52 ;` (the
clipboard) into its reply. Plain chat draws the reply without control characters; one-shot does
on a terminal, and passes the reply on as written when it is piped (it is then data)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli.test_chat_handover import PtyRun
from tests.hang import HANG

HOSTILE = "Hello \x1b]0;pwned\x07there \x1b[2Jfriend\x1b]52;c;ZXZpbA==\x07."
SEEN = "Hello ]0;pwnedthere [2Jfriend]52;c;ZXZpbA==."
"""What is left: the words, never a control character."""


def script(folder: Path, *first: dict) -> str:
    path = folder / "script.json"
    path.write_text(json.dumps({"responses": [*first, {"text": HOSTILE}]}))
    return f"script:{path}"


def test_plain_chat_draws_the_reply_without_its_escape_sequences(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path
) -> None:
    done = subprocess.run(
        [str(wisp_script), "chat", "--plain", "-m", script(tmp_path)],
        env=wisp_env, cwd=tmp_path, input="hi\n", capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert SEEN in done.stdout
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout


async def test_one_shot_on_a_terminal_writes_no_escape_of_the_reply(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path
) -> None:
    run = await PtyRun.start(
        [str(wisp_script), "-m", script(tmp_path), "hi"], wisp_env, cwd=tmp_path
    )
    assert await run.finish() == 0, run.text
    assert SEEN.encode() in run.raw
    assert b"\x1b" not in run.raw and b"\x07" not in run.raw


def test_plain_chat_draws_a_tool_line_without_the_arguments_escape_sequences(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path
) -> None:
    path = "notes\x1b]0;pwned\x07.txt"
    call = {"tool_calls": [{"name": "read_file", "arguments": {"path": path}}]}
    done = subprocess.run(
        [str(wisp_script), "chat", "--plain", "-m", script(tmp_path, call)],
        env=wisp_env, cwd=tmp_path, input="hi\n", capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "notes]0;pwned.txt" in done.stderr
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr


def test_one_shot_piped_passes_the_reply_on_as_written(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path
) -> None:
    done = subprocess.run(
        [str(wisp_script), "-m", script(tmp_path), "hi"],
        env=wisp_env, cwd=tmp_path, capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == HOSTILE + "\n"
