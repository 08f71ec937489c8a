"""The level of a server's tool at the approval gate (docs/mcp.md, "Approving a server's
tools"). A tool's annotations are the server's claims, not facts (the MCP specification says
so): ``destructiveHint`` raises a tool to dangerous, but ``readOnlyHint`` lowers one to safe
only when the person trusts the server's annotations, and never for an HTTP server, whose
arguments leave the machine. A level the person set in config wins over all of it."""

from __future__ import annotations

from wisp.config.mcp_servers import McpServer
from wisp.mcp_client.connection import ServerTool
from wisp.policy.types import ONLY_PERSON, Assessment, Level


def tool_assessment(server: McpServer, tool: ServerTool) -> Assessment:
    """How the gate rates a call of ``tool``, with the reason."""
    level, reason = _level(server, tool)
    assessment = Assessment(level, [reason], sources=["mcp"])
    if tool.name in server.deny:
        assessment.metadata[ONLY_PERSON] = (
            f"mcpServers.{server.name}.deny lists {tool.name}: only the person may approve it, "
            "never --yes"
        )
    return assessment


def _level(server: McpServer, tool: ServerTool) -> tuple[Level, str]:
    key = f"mcpServers.{server.name}"
    if tool.name in server.levels:
        return _as_level(server.levels[tool.name]), f"{key}.levels.{tool.name} sets it"
    if server.level is not None:
        return _as_level(server.level), f"{key}.level sets it"
    if tool.destructive is True:
        return "dangerous", "the server marks the tool destructive"
    if tool.read_only is True and server.trust_annotations and server.transport == "stdio":
        return "safe", f"the server marks the tool read-only, and {key}.trustAnnotations is on"
    if server.transport == "http":
        return "moderate", "a tool of an HTTP server: its arguments leave this machine"
    return "moderate", "a tool of an MCP server"


def _as_level(value: str) -> Level:
    return value if value in ("safe", "moderate", "dangerous") else "moderate"  # type: ignore[return-value]
