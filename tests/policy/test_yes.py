"""`wisp --yes` end to end (docs/policy.md, "Approvers and --yes"): the deny list holds against
spelling, and a program named only when the line runs is never approved by --yes. The real script, a
`script:` model driving run_command, the real sandbox; stdin is not a terminal, so nobody else can
answer."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from tests.hang import HANG
from wisp import protocol as p


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


def run_yes(wisp_script: Path, wisp_env: dict[str, str], workdir: Path, *lines: str) -> None:
    """Have the model ask for each line in turn under ``--yes``."""
    responses: list[dict] = [
        {"tool_calls": [{"name": "run_command", "arguments": {"command": line}}]} for line in lines
    ]
    responses.append({"text": "done"})
    script = workdir.parent / "script.json"
    script.write_text(json.dumps({"responses": responses}))
    result = subprocess.run(
        [str(wisp_script), "--yes", "-m", f"script:{script}", "go"],
        env=wisp_env,
        cwd=workdir,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert result.returncode == 0, result.stderr


def decisions(audit_lines) -> list[dict]:
    return [e["details"] for e in audit_lines() if e["kind"] == "policy.decision"]


# Each would leave a file behind if it ran (the sandbox lets it write the working directory).
SPELLED = [
    "echo 'touch piped' | \"sh\"",
    "echo 'touch piped' | /bin/s\\h",
    "bash -c \"echo 'touch piped' | sh\"",
    "'/usr/bin/env' \\sudo touch escalated",
    "\\su -c 'touch escalated'",
    "env -i sh -c \"echo 'touch piped' | sh\"",
    "timeout --signal KILL 9 sh -c \"echo 'touch piped' | sh\"",
]


def test_a_denied_command_spelled_another_way_is_still_denied(
    wisp_script: Path, wisp_env: dict[str, str], workdir: Path, audit_lines
) -> None:
    run_yes(wisp_script, wisp_env, workdir, *SPELLED)

    found = decisions(audit_lines)
    assert [d["verdict"] for d in found] == ["denied"] * len(SPELLED)
    assert all(d["reason"].startswith("command matches deny pattern") for d in found)
    assert list(workdir.iterdir()) == []


COMPUTED = [
    "T=touch; $T by-variable",
    "$(echo touch) by-substitution",
    'eval "$(echo touch by-eval)"',
]


def test_yes_does_not_approve_a_program_named_when_the_line_runs(
    wisp_script: Path, wisp_env: dict[str, str], workdir: Path, audit_lines
) -> None:
    run_yes(wisp_script, wisp_env, workdir, *COMPUTED, "touch by-name")

    found = decisions(audit_lines)
    assert [d["verdict"] for d in found] == ["disapproved"] * len(COMPUTED) + ["allowed"]
    for decision in found[:-1]:
        assert "--yes never approves a command whose program is only known" in decision["reason"]
    assert [path.name for path in workdir.iterdir()] == ["by-name"]


async def test_yes_puts_a_computed_program_to_the_person_a_front_end_can_ask(
    wisp_script: Path, wisp_env: dict[str, str], workdir: Path
) -> None:
    calls = ["T=touch; $T asked.txt", "touch plain.txt"]
    responses: list[dict] = [
        {"tool_calls": [{"name": "run_command", "arguments": {"command": line}}]} for line in calls
    ]
    script = workdir.parent / "script.json"
    script.write_text(json.dumps({"responses": [*responses, {"text": "done"}]}))
    chat = await asyncio.create_subprocess_exec(
        str(wisp_script), "chat", "--json", "--yes", "-m", f"script:{script}",
        env=wisp_env, cwd=workdir, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, limit=1 << 24,
    )  # fmt: skip
    assert chat.stdin is not None and chat.stdout is not None

    async def send(line: p.Inbound) -> None:
        chat.stdin.write(p.encode_line(line))
        await chat.stdin.drain()

    async def receive() -> p.Outbound | None:
        raw = await asyncio.wait_for(chat.stdout.readline(), HANG)
        assert raw, "wisp closed stdout"
        return p.decode_outbound(raw)

    await send(p.ClientHello(effects=["approve", "ask"], client="test", version="1"))
    await send(p.Message(text="make the files"))
    asked: list[str] = []
    while not isinstance(line := await receive(), p.Turn) or line.phase != "end":
        if isinstance(line, p.Approval):
            asked.append(line.command)
            await send(p.Answer(id=line.id, decision="once"))
    await send(p.Message(text="/quit"))
    await asyncio.wait_for(chat.communicate(), HANG)

    assert asked == ["$T asked.txt"]
    assert sorted(path.name for path in workdir.iterdir()) == ["asked.txt", "plain.txt"]
