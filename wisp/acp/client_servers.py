"""The MCP servers an ACP client hands a session in ``session/new`` (``mcpServers``), as wisp's
own server entries: a stdio server and an HTTP one start for that session as configured ones do,
confined to its folder (docs/acp.md, "The client's MCP servers"). A transport wisp does not
speak (SSE, ACP's own) is left out with a problem naming it."""

from __future__ import annotations

from typing import Any

from wisp.config.mcp_servers import McpServer, configured_servers


def client_servers(given: list[Any] | None) -> list[McpServer]:
    """Each server the client gave, in its order; one in a transport wisp does not speak is
    left with its problem."""
    entries: dict[str, Any] = {}
    refused: list[McpServer] = []
    for server in given or []:
        name = getattr(server, "name", "?")
        if hasattr(server, "command"):
            entries[name] = {
                "command": server.command,
                "args": list(server.args or []),
                "env": {variable.name: variable.value for variable in server.env or []},
            }
        elif getattr(server, "type", None) == "http":
            headers = {header.name: header.value for header in server.headers or []}
            entries[name] = {"url": server.url, "headers": headers}
        else:
            kind = getattr(server, "type", None) or type(server).__name__
            refused.append(
                McpServer(
                    name=name,
                    problem=f"the client's MCP server {name}: {kind} servers "
                    "are not supported (stdio and http are)",
                )
            )
    return [*configured_servers(entries, "session/new"), *refused]
