"""Interrupt always works (docs/turn.md, "Stopping a turn"): a line of thousands of parts, under the
length limit, keeps the policy busy; an `interrupt` read meanwhile stops it before anything runs.

`wisp chat --json` runs for real. The line's first part needs the person's approval, and the
answer goes out in one write with the interrupt, so the interrupt is in wisp's input while the
gate still has the rest of the line to clear: no wall clock decides the outcome.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_chat_json import Front
from wisp import protocol as p
from wisp.policy.gate import STOPPED
from wisp.policy.pacing import YIELD_EVERY
from wisp.tools.command_line import MAX_LINE_BYTES

# Distinct parts (a repeated one is cleared once), each safe, so none is asked about.
SAFE_PARTS = ";".join(f"echo {n}" for n in range(YIELD_EVERY * 30))
LINE = f"touch made.txt;{SAFE_PARTS}"


async def test_an_interrupt_during_the_gate_stops_the_turn_and_nothing_runs(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, audit_lines
) -> None:
    assert len(LINE.encode()) <= MAX_LINE_BYTES  # refused before the policy reads it otherwise
    call = {"name": "run_command", "arguments": {"command": LINE}}
    model = tmp_path / "script.json"
    model.write_text(json.dumps({"responses": [{"tool_calls": [call]}, {"text": "ran it"}]}))
    chat = await Front.start(wisp_script, wisp_env, tmp_path, "-m", f"script:{model}")
    await chat.send(p.ClientHello(effects=["approve"], client="test", version="1"))
    await chat.until(p.Status)
    await chat.send(p.Message(text="run it"))

    approval = await chat.until(p.Approval)  # the gate is at work on the line
    assert approval.command == "touch made.txt"
    assert chat.process.stdin is not None
    chat.process.stdin.write(
        p.encode_line(p.Answer(id=approval.id, decision="once")) + p.encode_line(p.Interrupt())
    )
    await chat.process.stdin.drain()
    end = await chat.until(p.Turn, phase="end")
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0

    assert end.outcome == "stopped"
    assert not (tmp_path / "made.txt").exists()
    events = audit_lines()
    kinds = [event["kind"] for event in events]
    assert "command.outcome" not in kinds  # no process was started
    [decision] = [e["details"] for e in events if e["kind"] == "policy.decision"]
    assert (decision["verdict"], decision["reason"]) == ("disapproved", STOPPED)
    assert decision["command"] == LINE  # the whole line, once
