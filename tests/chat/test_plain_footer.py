"""The plain chat's turn footer says how full the model's window is, from the last `context`
line, when the window is known."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

from tests.hang import HANG
from wisp import protocol as p
from wisp.chat.plain import PlainFace, fill_text


def chat(wisp_script: Path, env: dict[str, str], folder: Path, script: dict) -> str:
    """`wisp chat --plain` on a script model, one line piped in; its stderr."""
    (folder / "work").mkdir()
    path = folder / "script.json"
    path.write_text(json.dumps(script))
    result = subprocess.run(
        [str(wisp_script), "chat", "--plain", "-m", f"script:{path}"],
        env=env, cwd=folder / "work", input="hello\n/quit\n", capture_output=True, text=True,
        timeout=HANG,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stderr


def footer_line(stderr: str) -> str:
    (line,) = [line for line in stderr.splitlines() if line.startswith("  0.") or " s · " in line]
    return line


def test_the_footer_says_the_share_of_a_known_window(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path
) -> None:
    reply = {"text": "Hi.", "usage": {"input": 1720, "output": 4}}
    stderr = chat(wisp_script, wisp_env, tmp_path, {"contextSize": 4096, "responses": [reply]})
    assert footer_line(stderr).endswith(" s · ↓1,720 ↑4 · 42% of 4,096 tokens")


def test_an_unknown_window_adds_nothing(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path
) -> None:
    reply = {"text": "Hi.", "usage": {"input": 1720, "output": 4}}
    stderr = chat(wisp_script, wisp_env, tmp_path, {"responses": [reply]})
    assert footer_line(stderr).endswith(" s · ↓1,720 ↑4")


def test_the_last_context_line_counts() -> None:
    err = io.StringIO()
    face = PlainFace(io.StringIO(), err)
    face.write(p.ContextFill(tokens=3000, window=4096, used=0.732))
    face.write(p.ContextFill(tokens=2000, window=4096, used=0.488))  # after a condensation
    face.write(p.Turn(phase="end", turn=3, seconds=1.25, outcome="ok"))
    assert err.getvalue() == "  1.2 s · 49% of 4,096 tokens\n"
    assert fill_text(p.ContextFill(tokens=2000)) is None
