"""The barrier of approvals out of band (docs/policy.md, "Approvals out of band"): a command the
model runs is confined by the real sandbox, so it can neither write an answer into
WISP_HOME/pending nor release a request with `wisp approvals`, even with the deny list empty
and a pseudo-terminal of its own."""

from __future__ import annotations

import asyncio
import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.cli.answering.test_approvals import Thread, waiting
from tests.conftest import WISP
from tests.hang import HANG
from wisp.desk.approval import APPROVAL
from wisp.desk.channel import answer_path, list_waiting
from wisp.sandbox.plan import probe_uncached


def run_command(line: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "run_command", "arguments": {"command": line}}]}


async def test_a_confined_command_cannot_release_a_waiting_request(
    wisp_home: Path, wisp_env: dict[str, str], tmp_path: Path, audit_lines: Any
) -> None:
    if probe_uncached().landlock_abi is None:
        pytest.skip("this kernel has no Landlock")
    wisp_home.mkdir(mode=0o700)
    # Only the sandbox stands in the way: the deny list, which refuses `wisp approvals
    # approve`, is emptied.
    (wisp_home / "config.json").write_text(json.dumps({"commandPolicy": {"deny": []}}))
    thread = Thread(wisp_home)
    asking = thread.ask()
    request = await waiting(wisp_home)
    answer = {"id": request.id, "decision": "always", "via": "cli", "binding": request.binding}
    target = answer_path(wisp_home, APPROVAL, request.id)
    approve = shlex.join([str(WISP), "approvals", "approve", request.id, "--scope", "always"])
    lines = [
        f"printf %s {shlex.quote(json.dumps(answer))} > {shlex.quote(str(target))}",
        approve,
        f"script -qec {shlex.quote(approve)} /dev/null",
    ]
    script = tmp_path / "script.json"
    responses = [run_command(line) for line in lines] + [{"text": "done"}]
    script.write_text(json.dumps({"responses": responses}))
    work = tmp_path / "work"
    work.mkdir()

    model = await asyncio.create_subprocess_exec(
        str(WISP), "--yes", "-m", f"script:{script}", "approve it yourself",
        cwd=work, env=wisp_env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with asyncio.timeout(HANG):
        _, err = await model.communicate()
    assert model.returncode == 0, err.decode()

    decisions = [e["details"] for e in audit_lines() if e["kind"] == "policy.decision"]
    assert [(d["verdict"], d["sandbox"]) for d in decisions] == [("allowed", True)] * 3
    outcomes = [e["details"] for e in audit_lines() if e["kind"] == "command.outcome"]
    assert len(outcomes) == 3 and all(o["exitStatus"] != 0 for o in outcomes), outcomes
    assert not target.exists()
    assert [r.id for r in list_waiting(wisp_home, APPROVAL)] == [request.id]
    assert not asking.done()
    assert [e for e in audit_lines() if e["kind"] == "approval.answered"] == []
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
