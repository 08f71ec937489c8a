"""Ctrl-C (SIGINT) stops the running turn (docs/turn.md, "Stopping a turn"), in one-shot and in
chat."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

from tests.hang import HANG

SLOW = {"text": "a slow reply that goes on " * 40, "delay_ms": 50}


async def start(wisp_script: Path, env: dict[str, str], *args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        str(wisp_script), *args, env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


async def test_ctrl_c_stops_a_one_shot_turn(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, audit_lines
) -> None:
    script = tmp_path / "slow.json"
    script.write_text(json.dumps({"responses": [SLOW]}))
    process = await start(wisp_script, wisp_env, "-m", f"script:{script}", "go")
    assert process.stdout is not None
    first = await asyncio.wait_for(process.stdout.read(4), timeout=HANG)  # the reply has begun
    assert first == b"a sl"
    process.send_signal(signal.SIGINT)
    _, stderr = await asyncio.wait_for(process.communicate(), timeout=HANG)
    assert process.returncode == 130
    assert b"(stopped)" in stderr and b"Traceback" not in stderr
    kinds = [event["kind"] for event in audit_lines()]
    assert kinds[-2:] == ["prompt", "turn.stopped"]
    assert "response" not in kinds


async def test_ctrl_c_in_chat_stops_the_turn_and_the_chat_goes_on(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, audit_lines
) -> None:
    script = tmp_path / "slow.json"
    script.write_text(json.dumps({"responses": [SLOW, {"text": "second reply"}]}))
    process = await start(wisp_script, wisp_env, "chat", "-m", f"script:{script}")
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"first\n")
    await process.stdin.drain()
    # Notes may come first (the sandbox's, when WISP_HOME lies in a writable root).
    await asyncio.wait_for(process.stdout.readuntil(b"a sl"), timeout=HANG)
    process.send_signal(signal.SIGINT)
    process.stdin.write(b"again\n/quit\n")
    await process.stdin.drain()
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=HANG)
    assert process.returncode == 0, stderr
    assert b"stopped after" in stderr and b"second reply" in stdout
    kinds = [event["kind"] for event in audit_lines()]
    assert kinds.count("turn.stopped") == 1 and kinds[-1] == "response"
