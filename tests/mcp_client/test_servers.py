"""Configured MCP servers as tools, against a real server written with the official SDK and
run as a stdio process: its tools listed under ``SERVER__TOOL``, each call cleared by the real
approval gate as its annotations and the config rate it, results described, a failing server
named with its stderr's last line, and one process shared by every conversation in a folder
(docs/mcp.md, "MCP servers as tools")."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from wisp.agent.types import ToolContext
from wisp.cli.building.runner import CommandOptions, build_runner
from wisp.config import Config
from wisp.config.mcp_servers import McpServer, configured_servers
from wisp.mcp_client.connection import Launch
from wisp.mcp_client.launch import launcher
from wisp.mcp_client.pool import Lease, ServerPool
from wisp.mcp_client.tools import McpTool
from wisp.policy.approvals import ApprovalStore
from wisp.policy.approvers import NobodyApprover, YesApprover
from wisp.policy.gate import ApprovalGate
from wisp.policy.types import ApprovalQuestion

SERVER = Path(__file__).with_name("notes_server.py")


class Person:
    """Answers each approval as the test says, and remembers what it was asked."""

    can_ask = True

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.asked: list[ApprovalQuestion] = []

    async def ask(self, question: ApprovalQuestion, timeout: float | None) -> Any:
        self.asked.append(question)
        return self.answer


class Turn(msgspec.Struct):
    """What a tool reads of the conversation it runs in."""

    turn: int = 1
    stop_requested: asyncio.Event = msgspec.field(default_factory=asyncio.Event)


def launched_from(folder: Path) -> Launch:
    """Servers launched for ``folder`` as a conversation there launches them: through a real
    command runner, confined as the model's commands are."""
    runner = build_runner(
        config=Config(folder / "config.json", {}), home=folder / "wisp-home",
        environ=dict(os.environ), working_directory=folder, record=lambda event: None,
        options=CommandOptions(), approver=NobodyApprover(), warn=lambda note: None,
    )  # fmt: skip
    return launcher(runner, folder)


def entry(notes: Path, **fields: Any) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(SERVER)],
        "env": {"NOTES_DIR": str(notes)},
        **fields,
    }


def gate(tmp_path: Path, approver: Any, events: list[Any]) -> ApprovalGate:
    store = ApprovalStore(tmp_path / "approvals.json")
    return ApprovalGate("moderate", approver, store, record=events.append)


def context(tmp_path: Path) -> ToolContext:
    return ToolContext(
        working_directory=tmp_path, call_id="c1", output_budget=10_000,
        record=lambda event: event, conversation=Turn(),  # type: ignore[arg-type]
    )  # fmt: skip


def tools_of(lease: Lease, approvals: ApprovalGate) -> dict[str, McpTool]:
    return {
        tool.name: tool
        for connection in lease.connections
        for tool in (
            McpTool(connection, server_tool, approvals) for server_tool in connection.tools
        )
    }


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "groceries.txt").write_text("eggs, flour\n")
    return folder


async def test_a_servers_tools_are_rated_by_what_the_person_trusts(
    tmp_path: Path, notes: Path
) -> None:
    servers = configured_servers({"notes": entry(notes, trustAnnotations=True)})
    pool = ServerPool()
    lease = await pool.lease(servers, tmp_path, launched_from(tmp_path))
    events: list[Any] = []
    person = Person("deny")
    tools = tools_of(lease, gate(tmp_path, person, events))
    try:
        assert sorted(tools) == [
            "notes__chart", "notes__delete_note", "notes__list_notes", "notes__read_file",
            "notes__read_note", "notes__write_file",
        ]  # fmt: skip
        # Read-only, and the person trusts the server's annotations: runs without asking.
        read = await tools["notes__read_note"].run({"name": "groceries.txt"}, context(tmp_path))
        assert read == "eggs, flour\n" and person.asked == []
        # Destructive: asked, with the call as the command; denied, nothing is deleted.
        delete = tools["notes__delete_note"]
        denied = await delete.run({"name": "groceries.txt"}, context(tmp_path))
        assert denied == "error: notes__delete_note not approved: declined by the user"
        (question,) = person.asked
        assert question.command == 'notes__delete_note {"name": "groceries.txt"}'
        assert question.level == "dangerous"
        assert (notes / "groceries.txt").exists()
        person.answer = "once"
        assert await delete.run({"name": "groceries.txt"}, context(tmp_path)) == (
            "deleted groceries.txt"
        )
        assert not (notes / "groceries.txt").exists()
        # An image is described, never dropped.
        chart = await tools["notes__chart"].run({}, context(tmp_path))
        assert chart == "the chart:\n[image: image/png, 48 bytes, not shown]"
        # A failing call is an error the model reads.
        missing = await tools["notes__read_note"].run({"name": "absent.txt"}, context(tmp_path))
        assert missing.startswith("error: ")
    finally:
        await lease.release()
    kinds = [type(event).__name__ for event in events]
    assert "ApprovalRequested" in kinds and "ApprovalDecided" in kinds


async def test_annotations_are_claims_until_the_person_trusts_them(
    tmp_path: Path, notes: Path
) -> None:
    servers = configured_servers(
        {"notes": entry(notes, levels={"list_notes": "safe"}, deny=["write_file"])}
    )
    lease = await ServerPool().lease(servers, tmp_path, launched_from(tmp_path))
    person = Person("once")
    tools = tools_of(lease, gate(tmp_path, YesApprover(person), []))
    try:
        # readOnlyHint alone lowers nothing: moderate, asked (here --yes approves it).
        await tools["notes__read_note"].run({"name": "groceries.txt"}, context(tmp_path))
        assert person.asked == []
        # The person's level wins: safe, never asked.
        assert await tools["notes__list_notes"].run({}, context(tmp_path)) == "groceries.txt"
        # A tool the config denies to --yes goes to the person.
        target = tmp_path / "out.txt"
        await tools["notes__write_file"].run({"path": str(target), "text": "x"}, context(tmp_path))
        (question,) = person.asked
        assert "mcpServers.notes.deny lists write_file" in (question.only_person or "")
    finally:
        await lease.release()


async def test_no_one_to_ask_refuses_a_denied_tool_under_yes(tmp_path: Path, notes: Path) -> None:
    servers = configured_servers({"notes": entry(notes, deny=["delete_note"])})
    lease = await ServerPool().lease(servers, tmp_path, launched_from(tmp_path))
    tools = tools_of(lease, gate(tmp_path, YesApprover(None), []))
    try:
        said = await tools["notes__delete_note"].run({"name": "groceries.txt"}, context(tmp_path))
    finally:
        await lease.release()
    assert said.startswith("error: notes__delete_note not approved: mcpServers.notes.deny")
    assert (notes / "groceries.txt").exists()


async def test_a_server_that_fails_is_named_with_its_last_stderr_line(tmp_path: Path) -> None:
    servers = configured_servers(
        {
            "broken": entry(tmp_path, env={"NOTES_FAIL": "1"}),
            "absent": {"command": str(tmp_path / "no-such-program")},
            "bad": {"command": 3},
        }
    )
    assert servers[2].problem == "config.json: mcpServers.bad.command: expected a program"
    lease = await ServerPool().lease(servers, tmp_path, launched_from(tmp_path))
    broken, absent = lease.connections
    await lease.release()
    assert broken.state == absent.state == "failed"
    assert broken.note is not None and broken.note.startswith("MCP server broken failed to start: ")
    assert broken.note.endswith(
        "(stderr: notes: cannot open the notes database: permission denied)"
    )
    assert absent.note is not None and "absent" in absent.note


async def test_one_process_a_folder_shared_and_stopped_with_its_last_user(
    tmp_path: Path, notes: Path
) -> None:
    servers = configured_servers({"notes": entry(notes)})
    pool = ServerPool()
    launch = launched_from(tmp_path)
    first = await pool.lease(servers, tmp_path, launch)
    second = await pool.lease(servers, tmp_path, launch)
    elsewhere = await pool.lease(servers, tmp_path / "notes", launch)
    (shared,) = first.connections
    assert second.connections == [shared] and elsewhere.connections != [shared]
    await first.release()
    assert shared.state == "ready"
    await second.release()
    assert shared.state == "stopped"
    await elsewhere.release()


def test_an_entry_in_another_agents_shape_is_read(tmp_path: Path) -> None:
    (http, stdio) = configured_servers(
        {
            "tracker": {"type": "http", "url": "https://mcp.example.net/mcp",
                        "headers": {"Authorization": "Bearer abc"}, "timeout": 30},
            "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"]},
        }
    )  # fmt: skip
    assert http.transport == "http" and http.problem is None and http.sandbox
    assert stdio == McpServer(
        name="fs", command="npx", args=["-y", "@modelcontextprotocol/server-filesystem"]
    )


def test_a_small_window_is_offered_a_server_tool_s_first_sentence_and_required_arguments() -> None:
    from wisp.agent.prompt import tool_specs
    from wisp.mcp_client.connection import Connection, ServerTool

    about = (
        "Read the complete contents of a file from the file system as text. Handles various "
        "text encodings and provides detailed error messages."
    )
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "head": {"type": "number"}},
        "required": ["path"],
    }
    connection = Connection(McpServer(name="files", command="npx"), launch=lambda server: None)  # type: ignore[arg-type,return-value]
    tool = McpTool(connection, ServerTool("read_text_file", about, schema), None)
    (small,) = tool_specs([tool], 8_192)
    (large,) = tool_specs([tool], 32_768)
    assert small.description == "Read the complete contents of a file from the file system as text."
    assert list(small.parameters["properties"]) == ["path"]
    assert large.description == about and large.parameters == schema


async def test_an_http_server_s_tools_are_never_below_moderate(tmp_path: Path, notes: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(SERVER), str(port), env={**os.environ, "NOTES_DIR": str(notes)},
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        while b"Uvicorn running" not in await process.stderr.readline():  # its own progress
            assert process.returncode is None
        url = f"http://127.0.0.1:{port}/mcp"
        servers = configured_servers(
            {"notes": {"url": url, "headers": {"X-Token": "t"}, "trustAnnotations": True}}
        )
        lease = await ServerPool().lease(servers, tmp_path, launched_from(tmp_path))
        person = Person("once")
        tools = tools_of(lease, gate(tmp_path, person, []))
        try:
            read = await tools["notes__read_note"].run({"name": "groceries.txt"}, context(tmp_path))
        finally:
            await lease.release()
    finally:
        process.terminate()
        await process.wait()
    assert read == "eggs, flour\n"
    (question,) = person.asked  # read-only and trusted, but its arguments leave the machine
    assert question.level == "moderate"
    assert lease.connections[0].mechanism == "http"


async def test_an_approval_for_the_session_covers_the_tool_s_next_calls(
    tmp_path: Path, notes: Path
) -> None:
    servers = configured_servers({"notes": entry(notes)})
    lease = await ServerPool().lease(servers, tmp_path, launched_from(tmp_path))
    person = Person("session")
    tools = tools_of(lease, gate(tmp_path, person, []))
    try:
        for name in ("groceries.txt", "groceries.txt", "absent.txt"):
            await tools["notes__read_note"].run({"name": name}, context(tmp_path))
    finally:
        await lease.release()
    (question,) = person.asked  # once, then the session's approval of mcp:notes__read_note
    assert question.pattern == "mcp:notes__read_note"
