"""The MCP servers running in this process: one per (server, folder), shared by every
conversation and ``wisp mcp`` thread there, started by the first that needs it and stopped when
the last one lets go (docs/mcp.md, "MCP servers as tools")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec

from wisp.config.mcp_servers import McpServer
from wisp.mcp_client.connection import Connection, Launch

Key = tuple[str, Path, bytes]
"""A server's name, the folder it serves, and its entry as configured: a changed entry is
another server."""


class _Held(msgspec.Struct):
    connection: Connection
    users: int = 0


class Lease:
    """The servers one conversation uses; ``release`` lets go of them."""

    def __init__(self, pool: ServerPool, keys: list[Key], connections: list[Connection]) -> None:
        self._pool = pool
        self._keys = keys
        self.connections = connections
        self._released = False

    async def release(self) -> None:
        if self._released:
            return
        self._released = True
        await self._pool._release(self._keys)


class ServerPool:
    """Running servers by (name, folder, entry)."""

    def __init__(self) -> None:
        self._held: dict[Key, _Held] = {}
        self._lock = asyncio.Lock()

    async def lease(self, servers: list[McpServer], folder: Path, launch: Launch) -> Lease:
        """Each enabled, well-formed server of ``servers`` for ``folder``: those not running are
        started at once, in parallel; this waits until each listed its tools or failed."""
        keys: list[Key] = []
        async with self._lock:
            for server in servers:
                if not server.enabled or server.problem is not None:
                    continue
                key = (server.name, folder, msgspec.json.encode(server))
                held = self._held.get(key)
                if held is None:
                    held = self._held[key] = _Held(Connection(server, launch))
                held.users += 1
                keys.append(key)
        connections = [self._held[key].connection for key in keys]
        await asyncio.gather(*(connection.start() for connection in connections))
        return Lease(self, keys, connections)

    async def _release(self, keys: list[Key]) -> None:
        stopping: list[Connection] = []
        async with self._lock:
            for key in keys:
                held = self._held[key]
                held.users -= 1
                if held.users == 0:
                    del self._held[key]
                    stopping.append(held.connection)
        await asyncio.gather(*(connection.stop() for connection in stopping))

    async def aclose(self) -> None:
        """Stops every server still running (the process is ending)."""
        async with self._lock:
            held, self._held = list(self._held.values()), {}
        await asyncio.gather(*(h.connection.stop() for h in held))
