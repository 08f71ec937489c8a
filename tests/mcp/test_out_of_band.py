"""Approvals out of band through a real ``wisp mcp``: a client without a dialog (or one whose
era cannot ask mid-call) waits while the person answers with ``wisp approvals`` at a terminal;
nothing the calling agent or wisp's own model does can answer for them."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import WISP
from tests.hang import HANG
from tests.mcp.conftest import (
    ERAS,
    Connect,
    approvals,
    waiting_request,
    write_config,
    write_script,
)

TOUCH = [
    {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch made.txt"}}]},
    {"text": "Done."},
]


@pytest.mark.parametrize("mode", ERAS)
async def test_wisp_approvals_releases_a_waiting_call(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    terminal: int,
    audit_lines: Callable[[], list[dict]],
    mode: str,
) -> None:
    script = write_script(tmp_path, TOUCH)
    async with connect(["-m", f"script:{script}"], mode=mode) as client:
        call = asyncio.create_task(client.call_tool("respond", {"prompt": "make the file"}))
        request = await waiting_request(wisp_home)
        listed = await approvals(wisp_env, "pending", stdin=terminal)
        assert request.id in listed and "touch made.txt" in listed
        await approvals(wisp_env, "approve", request.id, "--scope", "session", stdin=terminal)
        result = await call

    assert not result.is_error
    assert result.structured_content["refusals"] == []
    assert (tmp_path / "work" / "made.txt").exists()
    events = audit_lines()
    [settled] = [e for e in events if e["kind"] == "approval.settled"]
    assert (settled["details"]["outcome"], settled["details"]["via"]) == ("answered", "cli")
    [decided] = [e for e in events if e["kind"] == "approval.decided"]
    assert decided["details"]["scope"] == "session"


async def test_the_models_own_commands_cannot_answer_and_deny_refuses(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    terminal: int,
) -> None:
    # Only a dangerous command asks, so the second thread's tries run without asking.
    write_config(wisp_home, {"approval": {"threshold": "dangerous"}})
    waits = write_script(
        tmp_path,
        [
            {"tool_calls": [{"name": "run_command", "arguments": {"command": "rm -rf gone"}}]},
            {"text": "It was refused."},
        ],
        name="waits",
    )
    (tmp_path / "work" / "gone").mkdir()
    async with connect(["-m", f"script:{waits}"], mode="2026-07-28") as client:
        waiting = asyncio.create_task(
            client.call_tool("respond", {"prompt": "remove gone", "thread_id": "waits"})
        )
        request = await waiting_request(wisp_home)
        answer = json.dumps({"id": request.id, "decision": "always"})
        answer_file = wisp_home / "pending" / f"{request.id}.answer.json"
        tries = write_script(
            tmp_path,
            [
                {"tool_calls": [_run(f"{WISP} approvals approve {request.id} --scope always")]},
                {"tool_calls": [_run(f"echo '{answer}' > {answer_file}")]},
                {"text": "Tried."},
            ],
            name="tries",
        )
        tried = await client.call_tool(
            "respond", {"prompt": "approve it", "thread_id": "tries", "model": f"script:{tries}"}
        )
        # The calling agent has no way either: respond's arguments carry no answer.
        assert not waiting.done()
        still = await waiting_request(wisp_home)
        assert still.id == request.id
        await approvals(wisp_env, "deny", request.id, stdin=terminal)
        result = await waiting

    approve, write = tried.structured_content["calls"]
    assert approve["output"].startswith("error: command denied by policy")
    assert "approvals approve" in tried.structured_content["refusals"][0]["command"]
    assert write["exitStatus"] != 0  # WISP_HOME is hidden from a confined command
    assert not answer_file.exists()
    assert not result.is_error
    [refusal] = result.structured_content["refusals"]
    assert refusal["command"] == "rm -rf gone"
    assert (tmp_path / "work" / "gone").exists()


def _run(command: str) -> dict[str, object]:
    return {"name": "run_command", "arguments": {"command": command}}


async def test_the_dialog_is_withdrawn_when_wisp_approvals_answers_first(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    terminal: int,
    audit_lines: Callable[[], list[dict]],
) -> None:
    import mcp_types as types

    script = write_script(tmp_path, TOUCH)
    shown = asyncio.Event()
    withdrawn = asyncio.Event()

    async def person(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        shown.set()
        try:
            await asyncio.Event().wait()  # the person never answers in the dialog
        except asyncio.CancelledError:
            withdrawn.set()
            raise
        raise AssertionError("unreachable")

    async with connect(["-m", f"script:{script}"], elicitation=person) as client:
        call = asyncio.create_task(client.call_tool("respond", {"prompt": "make the file"}))
        request = await waiting_request(wisp_home)
        async with asyncio.timeout(HANG):
            await shown.wait()
        await approvals(wisp_env, "approve", request.id, stdin=terminal)
        result = await call
        async with asyncio.timeout(HANG):
            await withdrawn.wait()

    assert not result.is_error
    assert (tmp_path / "work" / "made.txt").exists()
    [settled] = [e for e in audit_lines() if e["kind"] == "approval.settled"]
    assert settled["details"]["via"] == "cli"


async def test_a_cancelled_call_abandons_its_request(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    audit_lines: Callable[[], list[dict]],
) -> None:
    script = write_script(tmp_path, TOUCH)
    async with connect(["-m", f"script:{script}"]) as client:
        call = asyncio.create_task(
            client.call_tool("respond", {"prompt": "make the file", "thread_id": "c"})
        )
        await waiting_request(wisp_home)
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call
        # The thread takes its next call once the stopped turn is stored.
        after = await client.call_tool("close_thread", {"thread_id": "c"})
    assert not after.is_error
    events = audit_lines()
    [settled] = [e for e in events if e["kind"] == "approval.settled"]
    assert settled["details"]["outcome"] == "abandoned"
    assert not (tmp_path / "work" / "made.txt").exists()
    assert not list((wisp_home / "pending").glob("*.request.json"))
