"""How wisp reaches a configured MCP server: a stdio server's process, launched by the
conversation's command runner and so confined as the model's commands are (this folder's
writable set, ``WISP_HOME`` hidden, namespaces of its own, the network only when its entry says
``network``) unless its entry says ``sandbox: false``; or an HTTP server's endpoint with its
headers (docs/mcp.md, "MCP servers as tools", docs/sandbox.md, "Long-lived servers")."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from wisp.config.mcp_servers import McpServer
from wisp.mcp_client.connection import Launch, Launched
from wisp.tools.command_runner import CommandRunner


def launcher(runner: CommandRunner, folder: Path) -> Launch:
    """Launches servers for conversations in ``folder`` through ``runner``: a stdio server gets
    the environment the model's commands get, and its own ``env`` over it."""

    def launch(server: McpServer) -> Launched:
        if server.url is not None:
            return Launched(_http(server.url, server.headers), mechanism="http")
        launched = Launched(None)
        launched.transport = _stdio(runner, server, folder, launched)
        return launched

    return launch


@contextlib.asynccontextmanager
async def _stdio(
    runner: CommandRunner, server: McpServer, folder: Path, launched: Launched
) -> AsyncIterator[Any]:
    """The server's process, its streams handed to the SDK's client; how it runs and its
    stderr's last line told to ``launched`` as they are known."""
    assert server.command is not None
    because = None if server.sandbox else f"mcpServers.{server.name}.sandbox is false"
    async with runner.launch_server(
        [server.command, *server.args],
        cwd=server.cwd or folder,
        env=server.env,
        network=server.network,
        unconfined_because=because,
    ) as process:
        launched.mechanism = process.state.mechanism
        launched.last_stderr = process.last_stderr_line
        yield process.read, process.write


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
