"""The configured servers' tools as one conversation gets them: the servers start with the
session, in parallel with the model's resolution, and their tools join the conversation at its
first turn, waiting only for servers still starting (docs/mcp.md, "MCP servers as tools"). A
server that failed is recorded as an ``error`` naming it, and told to the person once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from wisp.agent.types import Tool
from wisp.audit.kinds import Error, McpServerStart
from wisp.config.mcp_servers import McpServer
from wisp.mcp_client.pool import Lease
from wisp.mcp_client.tools import McpTool
from wisp.policy.gate import ApprovalGate


def started_servers(servers: list[McpServer]) -> list[McpServerStart]:
    """What ``session.start`` records of the servers a session starts."""
    return [
        McpServerStart(
            name=server.name,
            transport=server.transport,
            sandbox=server.sandbox or server.transport == "http",
            network=server.network or server.transport == "http",
        )
        for server in servers
        if server.enabled and server.problem is None
    ]


class ServerTools:
    """One conversation's share of the session's servers (``Conversation``'s late tools)."""

    def __init__(
        self,
        lease: asyncio.Task[Lease],
        gate: ApprovalGate | None,
        record: Callable[[Any], Any],
        warn: Callable[[str], None],
        *,
        problems: list[str] | None = None,
    ) -> None:
        self._problems = problems or []
        """What is wrong with the entries left out (a field of the wrong type, a transport
        wisp does not speak), told with the failures."""
        self._lease = lease
        self._gate = gate
        self._record = record
        self._warn = warn

    async def release(self) -> None:
        """Lets go of the servers (the conversation has ended): one no other conversation
        uses stops."""
        lease = await asyncio.shield(self._lease)
        await lease.release()

    async def arrived(self) -> list[Tool]:
        """The tools of every server that started, as the config lets them in; shielded, so a
        stopped turn leaves the servers starting for the next."""
        lease = await asyncio.shield(self._lease)
        for problem in self._problems:
            self._record(Error(message=problem, context="mcpServers"))
            self._warn(problem)
        tools: list[Tool] = []
        for connection in lease.connections:
            server = connection.server
            if connection.state != "ready":
                note = connection.note or f"MCP server {server.name} is not running"
                self._record(Error(message=note, context=f"mcpServers.{server.name}"))
                self._warn(note)
                continue
            allowed = server.tools
            tools += [
                McpTool(connection, tool, self._gate)
                for tool in connection.tools
                if allowed is None or tool.name in allowed
            ]
        return tools
