"""How wisp reaches a configured MCP server: a stdio server's process, confined as a command
is unless its entry says ``sandbox: false``, or an HTTP server's endpoint with its headers
(docs/mcp.md, "MCP servers as tools")."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

from wisp.config.mcp_servers import McpServer
from wisp.mcp_client.connection import Launch, Launched, stderr_file

UNCONFINED = "unconfined (mcpServers.{name}.sandbox is false)"
NOT_YET = "unconfined (wisp cannot confine a server's process yet)"


def launcher(folder: Path, environ: Mapping[str, str]) -> Launch:
    """Launches servers for a conversation in ``folder``; a stdio server gets ``environ`` (the
    environment the model's commands get) and its own ``env`` over it."""

    def launch(server: McpServer) -> Launched:
        if server.url is not None:
            return Launched(_http(server.url, server.headers), mechanism="http")
        from mcp.client.stdio import StdioServerParameters, stdio_client

        assert server.command is not None
        stderr = stderr_file()
        params = StdioServerParameters(
            command=server.command,
            args=server.args,
            env={**environ, **server.env},
            cwd=server.cwd or str(folder),
        )
        mechanism = NOT_YET if server.sandbox else UNCONFINED.format(name=server.name)
        return Launched(stdio_client(params, errlog=stderr), stderr, mechanism)

    return launch


@contextlib.asynccontextmanager
async def _http(url: str, headers: dict[str, str]) -> AsyncIterator[Any]:
    """The SDK's streamable HTTP transport, every request carrying ``headers``."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams
