"""The JSON face reads the conversation's own stream, never the audit log: with the audit log
off (``audit.enabled`` false) a turn's ``event`` lines are the same as with it on."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.hang import HANG
from wisp import protocol as p


def script_with_calls(path: Path, workdir: Path) -> Path:
    (workdir / "notes.md").write_text("# notes\nremember the milk\n")
    calls = [
        {"name": "read_file", "arguments": {"path": "notes.md"}},
        {"name": "run_command", "arguments": {"command": "echo hello"}},
    ]
    responses = [{"tool_calls": [call]} for call in calls]
    responses.append({"thinking": "The note says milk.", "text": "Milk, and hello."})
    path.write_text(json.dumps({"responses": responses}))
    return path


def event_lines(wisp_script: Path, env: dict[str, str], workdir: Path, script: Path) -> list:
    done = subprocess.run(
        [str(wisp_script), "chat", "--json", "--yes", "-m", f"script:{script}"],
        input=json.dumps({"type": "message", "text": "what do my notes say?"}) + "\n",
        env=env, cwd=workdir, capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [p.decode_outbound(line.encode()) for line in done.stdout.splitlines()]
    return [
        (line.kind, _untimed(line.text), line.details.get("tool"), _output_text(line.output))
        for line in lines
        if isinstance(line, p.Event)
    ]


def _untimed(text: str | None) -> str | None:
    """A line with its durations left out: two runs take their own time."""
    return None if text is None else re.sub(r"\d+\.\d s\b", "_ s", text)


def _output_text(output: object) -> str | None:
    return output.text if isinstance(output, p.EventOutput) else None


def test_the_event_lines_do_not_depend_on_the_audit_log(
    wisp_script: Path, wisp_env: dict[str, str], wisp_home: Path, tmp_path: Path, run_wisp
) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    script = script_with_calls(tmp_path / "s.json", workdir)
    with_audit = event_lines(wisp_script, wisp_env, workdir, script)
    assert run_wisp("config", "set", "audit.enabled", "false").returncode == 0
    written = log_bytes(wisp_home)
    without_audit = event_lines(wisp_script, wisp_env, workdir, script)
    assert log_bytes(wisp_home) == written  # the second chat wrote nothing to the log
    kinds = [kind for kind, *_ in with_audit]
    assert {"tool.call", "tool.result", "policy.decision", "command.outcome"} <= set(kinds)
    assert ("tool.call", "⚙ run_command echo hello", "run_command", None) in with_audit
    assert ("model.reasoning", "∴ thought for _ s, 5 tokens", None, "The note says milk.") in (
        with_audit
    )
    assert without_audit == with_audit


def log_bytes(home: Path) -> int:
    return sum(path.stat().st_size for path in (home / "logs").rglob("*") if path.is_file())


def test_the_activity_says_writing_the_reply_once_text_streams(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path
) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"responses": [{"text": "A reply of a few fragments."}]}))
    done = subprocess.run(
        [str(wisp_script), "chat", "--json", "-m", f"script:{script}"],
        input=json.dumps({"type": "message", "text": "hi"}) + "\n",
        env=wisp_env, cwd=tmp_path, capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [p.decode_outbound(line.encode()) for line in done.stdout.splitlines()]
    first_delta = next(i for i, line in enumerate(lines) if isinstance(line, p.Delta))
    doing = [line.doing for line in lines if isinstance(line, p.Activity)]
    assert doing[:2] == ["waiting for the model", "writing the reply"]
    assert doing.count("writing the reply") == 1
    assert isinstance(lines[first_delta - 1], p.Activity)
    assert lines[first_delta - 1].doing == "writing the reply"
