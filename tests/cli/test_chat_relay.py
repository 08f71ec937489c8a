"""The ``approve-mcp`` relay of a real `wisp chat --json` (docs/protocol.md, "7. Approvals,
choices, questions and stopping"): a request filed by an OutOfBandApprover in this process,
shown to the front end as an `approval` line with `source: "mcp"`, answered from there, or
withdrawn."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.answering.test_approvals import Thread, waiting
from tests.cli.test_chat_json import Front
from tests.desk.fact_thread import FactThread
from tests.hang import HANG
from wisp import protocol as p
from wisp.desk.approval import APPROVAL
from wisp.desk.channel import list_waiting
from wisp.policy.gate import GateResult

HELLO = p.ClientHello(effects=["approve", "approve-mcp", "ask"], client="test", version="1")


@pytest.fixture
def thread(wisp_home: Path) -> Thread:
    wisp_home.mkdir(mode=0o700)
    return Thread(wisp_home)


@pytest.fixture
async def chat(wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path) -> Any:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": "hello"}]}))
    front = await Front.start(wisp_script, wisp_env, tmp_path, "-m", f"script:{script}")
    await front.send(HELLO)
    yield front
    if front.process.returncode is None:
        front.process.stdin.close()  # type: ignore[union-attr]
        await front.finish()


async def relayed(front: Front) -> p.Approval:
    line = await front.until(p.Approval, source="mcp")
    assert isinstance(line, p.Approval)
    return line


async def test_a_waiting_request_is_shown_and_answered_from_the_front_end(
    thread: Thread, chat: Front, audit_lines: Any
) -> None:
    asking = thread.ask()
    request = await waiting(thread.home)

    shown = await relayed(chat)

    assert shown == p.Approval(
        id=f"mcp-{request.id}",
        command="git push origin main",
        line="git push origin main",
        pattern="git push *",
        directory="/srv/app",
        level="moderate",
        reasons=["pushes to a remote"],
        source="mcp",
        thread="release",
        client="claude-code",
        request=request.id,
    )
    await chat.send(p.Answer(id=shown.id, decision="session"))
    assert await asyncio.wait_for(asking, HANG) == GateResult(approved=True)
    settled = thread.settled()
    assert (settled.outcome, settled.via, settled.decision) == ("answered", "tui", "session")
    hello = next(line for line in chat.lines if isinstance(line, p.WispHello))
    while not (isinstance(line := await chat.next(), p.Event) and line.kind == "approval.answered"):
        pass
    [answered] = [line for line in audit_lines() if line["kind"] == "approval.answered"]
    assert answered["session"] == hello.session
    assert answered["details"] == {
        "request": request.id,
        "decision": "session",
        "via": "tui",
        "delivery": "written",
    }


async def test_a_relayed_answer_needs_the_exact_word(thread: Thread, chat: Front) -> None:
    asking = thread.ask()
    shown = await relayed(chat)

    await chat.send(p.Answer(id=shown.id, decision="y"))

    result = await asyncio.wait_for(asking, HANG)
    assert (result.approved, result.reason) == (False, "declined by the user")
    assert thread.settled().decision == "deny"


async def test_a_request_that_stops_waiting_is_withdrawn(thread: Thread, chat: Front) -> None:
    asking = thread.ask()
    shown = await relayed(chat)

    asking.cancel()  # the MCP client cancelled its call
    with pytest.raises(asyncio.CancelledError):
        await asking

    assert await chat.until(p.Withdrawn, id=shown.id)
    assert thread.settled().outcome == "abandoned"
    assert list_waiting(thread.home, APPROVAL) == []


async def test_a_fact_proposed_in_a_server_is_relayed_and_kept_from_the_front_end(
    wisp_script: Path, wisp_env: dict[str, str], wisp_home: Path, tmp_path: Path
) -> None:
    wisp_home.mkdir(mode=0o700)
    thread = FactThread(wisp_home)
    thread.propose()
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": "hello"}]}))
    front = await Front.start(wisp_script, wisp_env, tmp_path, "-m", f"script:{script}")
    await front.send(p.ClientHello(effects=["keep-facts"], client="test", version="1"))
    shown = await relayed(front)
    assert shown.kind == "fact" and shown.pattern == "" and shown.directory == ""
    assert shown.command == "release codename = BLUE HERON"
    assert shown.fact == p.ApprovalFact(
        id="c1", subject="release", name="codename", value="BLUE HERON", source="caller"
    )
    await front.send(p.Answer(id=shown.id, decision="keep"))
    await asyncio.wait_for(thread.keeper.settled(), HANG)
    assert thread.applied == [("c1", "keep")]
    settled = thread.settled()
    assert (settled.outcome, settled.via, settled.decision, settled.kept) == (
        "answered", "tui", "keep", "p1",
    )  # fmt: skip
    front.process.stdin.close()  # type: ignore[union-attr]
    await front.finish()
