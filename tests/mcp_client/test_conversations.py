"""Configured MCP servers in a real ``wisp`` run: the server starts with the session, its
tools join the conversation, a call the model makes is cleared by the gate and audited like
every tool, and a server that fails is named and left out while the turn goes on (docs/mcp.md,
"MCP servers as tools")."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.hang import HANG
from tests.mcp.conftest import connect as connect  # the SDK's client of wisp mcp
from tests.mcp_client.test_servers import SERVER
from wisp.sandbox.plan import probe_uncached


def configure(home: Path, servers: dict) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text(json.dumps({"mcpServers": servers}))


def notes_server(notes: Path, **fields: object) -> dict:
    return {
        "command": sys.executable,
        "args": [str(SERVER)],
        "env": {"NOTES_DIR": str(notes)},
        **fields,
    }


def notes_folder(tmp_path: Path, **notes: str) -> Path:
    """A folder of notes the test server serves, one file a keyword."""
    folder = tmp_path / "notes"
    folder.mkdir()
    for name, text in notes.items():
        (folder / f"{name}.txt").write_text(text)
    return folder


def script(tmp_path: Path, *responses: dict) -> Path:
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"responses": list(responses)}))
    return path


def call(tool: str, **arguments: object) -> dict:
    return {"tool_calls": [{"name": tool, "arguments": arguments}]}


def test_the_model_calls_a_server_s_tool_and_the_call_is_audited(
    run_wisp, wisp_home: Path, tmp_path: Path, audit_lines
) -> None:
    notes = notes_folder(tmp_path, groceries="eggs, flour\n")
    configure(wisp_home, {"notes": notes_server(notes, trustAnnotations=True)})
    model = script(
        tmp_path,
        call("notes__read_note", name="groceries.txt"),
        call("notes__delete_note", name="groceries.txt"),
        call("elsewhere__read_note", name="groceries.txt"),
        {"text": "You need eggs and flour."},
    )
    done = run_wisp("-m", f"script:{model}", "what do I need?", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "You need eggs and flour." in done.stdout
    events = audit_lines()
    (start,) = [e["details"] for e in events if e["kind"] == "session.start"]
    assert start["mcpServers"] == [
        {"name": "notes", "transport": "stdio", "sandbox": True, "network": False}
    ]
    results = {
        e["details"]["tool"]: e["details"]["output"] for e in events if e["kind"] == "tool.result"
    }
    # Read-only and trusted: it ran without asking.
    assert results["notes__read_note"] == "eggs, flour\n"
    # Destructive: nobody to ask in a one-shot without --yes, so it was refused, not run.
    assert results["notes__delete_note"].startswith("error: notes__delete_note not approved")
    assert (notes / "groceries.txt").exists()
    # A server nobody configured: the model is told what is offered.
    assert "notes__read_note" in results["elsewhere__read_note"]
    verdicts = [e["details"] for e in events if e["kind"] == "classifier.verdict"]
    assert {v["level"] for v in verdicts} >= {"safe", "dangerous"}


def test_a_server_that_fails_is_named_and_the_turn_goes_on(
    run_wisp, wisp_home: Path, tmp_path: Path, audit_lines
) -> None:
    configure(wisp_home, {"broken": notes_server(tmp_path, env={"NOTES_FAIL": "1"})})
    model = script(tmp_path, {"text": "Still here."})
    done = run_wisp("-m", f"script:{model}", "hello", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Still here." in done.stdout
    assert "MCP server broken failed to start" in done.stderr
    assert "cannot open the notes database: permission denied" in done.stderr
    (error,) = [e["details"] for e in audit_lines() if e["kind"] == "error"]
    assert error["context"] == "mcpServers.broken"


def test_a_server_runs_confined_unless_the_person_says_not(
    run_wisp, wisp_home: Path, tmp_path: Path, audit_lines
) -> None:
    found = probe_uncached()
    if found.landlock_abi is None or not found.namespace:
        pytest.skip("needs Landlock and the helper's mount namespace (docs/sandbox.md)")
    escape = Path("/etc") / f"wisp-test-{os.getpid()}-mcp-escape"
    secret = "sk-" + "live-do-not-leak-4f9a"
    configure(wisp_home, {"notes": notes_server(tmp_path)})
    (wisp_home / "secret.txt").write_text(secret)
    model = script(
        tmp_path,
        call("notes__write_file", path=str(escape), text="x"),
        call("notes__read_file", path=str(wisp_home / "secret.txt")),
        {"text": "Tried."},
    )
    try:
        done = run_wisp("--yes", "-m", f"script:{model}", "try", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert not escape.exists()
    finally:
        escape.unlink(missing_ok=True)
    events = audit_lines()
    said = {
        e["details"]["tool"]: e["details"]["output"] for e in events if e["kind"] == "tool.result"
    }
    assert said["notes__write_file"].startswith("refused: ")
    assert secret not in said["notes__read_file"]
    (start,) = [e["details"] for e in events if e["kind"] == "session.start"]
    assert start["mcpServers"][0]["sandbox"] is True

    # The person's own choice: unconfined, and recorded so.
    configure(wisp_home, {"notes": notes_server(tmp_path, sandbox=False)})
    plain = script(tmp_path, {"text": "Hi."})
    assert run_wisp("-m", f"script:{plain}", "hi", cwd=tmp_path).returncode == 0
    starts = [e["details"] for e in audit_lines() if e["kind"] == "session.start"]
    assert starts[-1]["mcpServers"] == [
        {"name": "notes", "transport": "stdio", "sandbox": False, "network": False}
    ]


async def test_wisp_mcp_threads_share_one_server_stopped_with_the_last(
    connect, wisp_home: Path, tmp_path: Path
) -> None:
    import asyncio

    notes = notes_folder(tmp_path, a="alpha\n")
    configure(wisp_home, {"notes": notes_server(notes, trustAnnotations=True)})
    model = script(
        tmp_path,
        call("notes__read_note", name="a.txt"), {"text": "one"},
        call("notes__read_note", name="a.txt"), {"text": "two"},
    )  # fmt: skip

    def servers_running() -> list[str]:
        found = []
        for status in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                words = status.read_bytes().split(b"\0")
            except OSError:
                continue
            if words[1:2] == [str(SERVER).encode()]:  # the server itself, not the helper
                found.append(status.parent.name)
        return found

    async with connect(["-m", f"script:{model}"]) as client:
        first = await client.call_tool("respond", {"prompt": "read it", "thread_id": "t1"})
        second = await client.call_tool("respond", {"prompt": "again", "thread_id": "t2"})
        assert not first.is_error and not second.is_error
        assert len(servers_running()) == 1  # one process for the folder, both threads on it
        await client.call_tool("close_thread", {"thread_id": "t1"})
        assert len(servers_running()) == 1
        await client.call_tool("close_thread", {"thread_id": "t2"})
        async with asyncio.timeout(HANG):
            while servers_running():  # stopped with the last thread, the server still up
                await asyncio.sleep(0.05)


async def test_a_slow_server_delays_neither_the_first_status_nor_the_turn_that_waits_for_it(
    wisp_script: Path, wisp_env: dict[str, str], wisp_home: Path, tmp_path: Path
) -> None:
    import asyncio

    from tests.cli.test_chat_json import Front
    from wisp import protocol as p

    ready = tmp_path / "serve-now"
    os.mkfifo(ready)
    notes = notes_folder(tmp_path, a="alpha\n")
    configure(wisp_home, {
        "notes": notes_server(notes, trustAnnotations=True, env={
            "NOTES_DIR": str(notes), "NOTES_WAIT": str(ready)
        })
    })  # fmt: skip
    model = script(tmp_path, call("notes__read_note", name="a.txt"), {"text": "Read."})
    chat = await Front.start(wisp_script, wisp_env, tmp_path, "-m", f"script:{model}")
    # The server is still waiting to start: the session says hello and its status all the same.
    await chat.until(p.Status)
    await chat.send(p.Message(text="read a.txt"))

    def release() -> None:  # opening waits for the server's end; closing lets it serve
        os.close(os.open(ready, os.O_WRONLY))

    await asyncio.to_thread(release)  # the first turn waited for it, and its tool is there
    end = await chat.until(p.Turn, phase="end")
    assert end.outcome == "ok"
    await chat.send("/quit")
    assert await chat.finish() == 0
    results = [
        line.details for line in chat.lines
        if isinstance(line, p.Event) and line.kind == "tool.result"
    ]  # fmt: skip
    assert [(r["tool"], r["output"]) for r in results] == [("notes__read_note", "alpha\n")]
