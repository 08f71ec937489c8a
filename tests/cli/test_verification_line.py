"""The third line under a reply, `claimed but not done: …`, on the faces a real `wisp` process
serves: `wisp chat --json`'s turn end, plain `wisp chat` and one-shot `wisp "prompt"` on stderr
under `ran:` (docs/turn.md, "Lines under a reply")."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.hang import HANG
from wisp import protocol as p

CALL = {"tool_calls": [{"name": "current_date", "arguments": {}}]}
CLAIM = {"text": "I ran the tests and they pass. I have also updated config.ini."}
LINE = (
    "claimed but not done: ran the tests (no command ran); "
    "updated config.ini (no edit of config.ini)"
)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def script(tmp_path: Path):
    def write(*responses: dict) -> str:
        path = tmp_path / "script.json"
        path.write_text(json.dumps({"responses": list(responses)}))
        return f"script:{path}"

    return write


def run(wisp_script: Path, env: dict[str, str], cwd: Path, *args: str, stdin: str = ""):
    done = subprocess.run(
        [str(wisp_script), *args], env=env, cwd=cwd, input=stdin,
        capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_the_json_turn_end_carries_the_line(wisp_script, wisp_env, work, script) -> None:
    message = p.encode_line(p.Message(text="run the tests")).decode()
    done = run(wisp_script, wisp_env, work, "chat", "--json", "-m", script(CALL, CLAIM),
               stdin=message)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [line for raw in done.stdout.splitlines() if (line := p.decode_outbound(raw.encode()))]
    (end,) = [line for line in lines if isinstance(line, p.Turn) and line.phase == "end"]
    assert end.ran == "ran: current_date"
    assert end.verification == LINE
    kinds = [line.kind for line in lines if isinstance(line, p.Event)]
    assert kinds[-2:] == ["response", "response.verification"]


def test_a_turn_end_without_a_claim_has_no_line(wisp_script, wisp_env, work, script) -> None:
    message = p.encode_line(p.Message(text="hi")).decode()
    done = run(wisp_script, wisp_env, work, "chat", "--json", "-m", script({"text": "Hello!"}),
               stdin=message)  # fmt: skip
    (end,) = [
        line
        for raw in done.stdout.splitlines()
        if isinstance(line := p.decode_outbound(raw.encode()), p.Turn) and line.phase == "end"
    ]
    assert end.verification is p.UNSET


def test_plain_chat_prints_it_under_ran(wisp_script, wisp_env, work, script) -> None:
    done = run(wisp_script, wisp_env, work, "chat", "--plain", "-m", script(CALL, CLAIM),
               stdin="run the tests\n")  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stderr.splitlines()]
    at = lines.index("ran: current_date")
    assert lines[at + 1] == LINE
    assert lines[at + 2].endswith(" s")  # the time comes after


def test_one_shot_prints_it_on_stderr_under_ran(wisp_script, wisp_env, work, script) -> None:
    done = run(wisp_script, wisp_env, work, "-m", script(CALL, CLAIM), "run the tests")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == CLAIM["text"]
    assert done.stderr.splitlines()[-2:] == ["ran: current_date", LINE]


def test_mode_off_shows_and_records_nothing(
    wisp_script, wisp_env, wisp_home, work, script, audit_lines
) -> None:
    wisp_home.mkdir(mode=0o700, exist_ok=True)
    (wisp_home / "config.json").write_text(json.dumps({"verification": {"mode": "off"}}))
    done = run(wisp_script, wisp_env, work, "-m", script(CALL, CLAIM), "run the tests")
    assert done.returncode == 0, done.stderr
    assert "claimed but not done" not in done.stderr
    kinds = [line["kind"] for line in audit_lines()]
    assert "response" in kinds and "response.verification" not in kinds
