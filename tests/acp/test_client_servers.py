"""The MCP servers an ACP client hands a session in ``session/new``, driven by the official ACP
SDK's client: a stdio server (written with the MCP SDK) starts for that session, confined to its
folder, and the model calls its tool; a transport wisp does not speak is named, not run
(docs/acp.md, "The client's MCP servers")."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from tests.acp.conftest import Spawn, chosen, write_script
from tests.mcp_client.test_servers import SERVER


def _text(text: str) -> object:
    from acp.schema import TextContentBlock

    return TextContentBlock(type="text", text=text)


async def test_a_session_s_own_server_is_started_and_its_tool_called(
    spawn: Spawn, tmp_path: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    from acp.schema import EnvVariable, McpServerStdio, SseMcpServer

    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "todo.txt").write_text("water the plants\n")
    script = write_script(
        tmp_path,
        [
            {"tool_calls": [{"name": "notes__read_note", "arguments": {"name": "todo.txt"}}]},
            {"text": "Water the plants."},
        ],
    )
    notes = McpServerStdio(
        name="notes", command=sys.executable, args=[str(SERVER)],
        env=[EnvVariable(name="NOTES_DIR", value=str(work))],
    )  # fmt: skip
    old = SseMcpServer(type="sse", name="legacy", url="https://mcp.example.net/sse", headers=[])
    async with spawn(["-m", f"script:{script}"]) as (conn, client):
        initialized = await conn.initialize(protocol_version=1)
        assert initialized.agent_capabilities.mcp_capabilities.http is True
        session = await conn.new_session(cwd=str(work), mcp_servers=[notes, old])

        async def allow_once(options: list[object]) -> object:
            return chosen("once")

        client.answer = allow_once  # the tool is moderate: asked in the client's dialog
        response = await conn.prompt(session_id=session.session_id, prompt=[_text("what now?")])
    assert response.stop_reason == "end_turn"
    assert client.message().startswith("Water the plants.")
    assert "tool_call" in client.kinds()
    events = audit_lines()
    (start,) = [e["details"] for e in events if e["kind"] == "session.start"]
    assert start["mcpServers"] == [
        {"name": "notes", "transport": "stdio", "sandbox": True, "network": False}
    ]
    (result,) = [e["details"] for e in events if e["kind"] == "tool.result"]
    assert result["tool"] == "notes__read_note" and result["output"] == "water the plants\n"
    (error,) = [e["details"] for e in events if e["kind"] == "error"]
    assert error["message"] == (
        "the client's MCP server legacy: sse servers are not supported (stdio and http are)"
    )
    assert json.dumps(events).count("NOTES_DIR") == 0  # the client's env is never logged
