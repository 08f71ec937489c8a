"""``wisp mcp-servers``: the MCP servers configured (``mcpServers``), each started to show its
state and the tools it offers with the level the gate gives each; ``check NAME`` does it for
one (docs/mcp.md, "MCP servers as tools")."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

import msgspec

from wisp.cli.building.runner import CommandOptions
from wisp.cli.building.session import SessionBuilder
from wisp.cli.context import Context
from wisp.config.mcp_servers import McpServer
from wisp.errors import WispError
from wisp.mcp_client.connection import Connection
from wisp.mcp_client.rating import tool_assessment
from wisp.mcp_client.tools import tool_name

EPILOG = """\
examples:
  wisp mcp-servers                 every server configured, started to list its tools
  wisp mcp-servers --json          the same, one JSON object a server
  wisp mcp-servers check notes     start one server and list what it offers

Servers are configured in config.json's mcpServers, in the shape other agents use:
  {"mcpServers": {"files": {"command": "npx",
    "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}}}
Each is started as a conversation here would start it, then stopped. exit status: 0 every
server listed started, 1 one failed (or has a problem in its entry), 2 an error."""


class UnknownServer(WispError):
    """``check NAME`` named no configured server."""


class ServerReport(msgspec.Struct):
    name: str
    transport: str
    state: str
    """``ready``, ``failed``, ``disabled`` or ``problem``."""
    note: str | None = None
    confinement: str = ""
    tools: list[dict[str, Any]] = msgspec.field(default_factory=list)


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "mcp-servers",
        help="List the MCP servers configured and the tools they offer.",
        description="List the MCP servers configured (mcpServers in config.json): each is "
        "started to show its state and its tools, with the level wisp's approval gate gives "
        "each.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="one JSON object a server")
    actions = parser.add_subparsers(title="actions", metavar="ACTION", dest="action")
    check = actions.add_parser("check", help="Start one server and list what it offers.")
    check.add_argument("name", metavar="NAME", help="the server's name in mcpServers")
    check.add_argument("--json", action="store_true", help="as one JSON object")
    parser.set_defaults(handler=run, error_exit=2)  # 1 is a server that failed


def run(args: argparse.Namespace, context: Context) -> int:
    return asyncio.run(_run(args, context))


async def _run(args: argparse.Namespace, context: Context) -> int:
    from pathlib import Path

    config = context.load_config()
    builder = SessionBuilder(
        context, config, entry_point="mcp-servers", working_directory=Path.cwd(),
        commands=CommandOptions(),
    )  # fmt: skip
    servers = builder.mcp_servers
    if getattr(args, "name", None) is not None:
        servers = _one(servers, args.name)
    if not servers:
        context.warn("no MCP servers configured (mcpServers in config.json)")
        return 0
    reports = await _reports(builder, servers, context)
    for report in reports:
        if args.json:
            print(msgspec.json.encode(report).decode(), file=context.stdout)
        else:
            print(_text(report), file=context.stdout)
    return 1 if any(r.state in ("failed", "problem") for r in reports) else 0


def _one(servers: list[McpServer], name: str) -> list[McpServer]:
    found = [server for server in servers if server.name == name]
    if not found:
        known = ", ".join(server.name for server in servers) or "none"
        raise UnknownServer(f"no MCP server named {name} in mcpServers (configured: {known})")
    return found


async def _reports(
    builder: SessionBuilder, servers: list[McpServer], context: Context
) -> list[ServerReport]:
    running = [s for s in servers if s.enabled and s.problem is None]
    if running:
        context.warn(f"starting {len(running)} server{'s' if len(running) != 1 else ''}…")
    lease = await builder.pool.lease(servers, builder.working_directory, builder.server_launch())
    try:
        by_name = {c.server.name: c for c in lease.connections}
        return [_report(server, by_name.get(server.name)) for server in servers]
    finally:
        await lease.release()


def _report(server: McpServer, connection: Connection | None) -> ServerReport:
    report = ServerReport(server.name, server.transport if server.problem is None else "", "")
    if server.problem is not None:
        report.state, report.note = "problem", server.problem
    elif connection is None:
        report.state = "disabled"
    else:
        report.state, report.note = connection.state, connection.note
        report.confinement = connection.mechanism
        report.tools = [
            {
                "name": tool_name(server.name, tool.name),
                "level": tool_assessment(server, tool).level,
                "offered": server.tools is None or tool.name in server.tools,
                "description": _short(tool.description),
            }
            for tool in connection.tools
        ]
    return report


def _text(report: ServerReport) -> str:
    head = f"{report.name}  {report.transport or '-'}  {report.state}"
    if report.confinement:
        head += f"  ({report.confinement})"
    lines = [head]
    if report.note:
        lines.append(f"  {report.note}")
    for tool in report.tools:
        offered = "" if tool["offered"] else "  (not offered: mcpServers tools)"
        lines.append(f"  {tool['name']}  {tool['level']}  {tool['description']}{offered}")
    return "\n".join(lines)


def _short(description: str, most: int = 72) -> str:
    """A tool's description on one line, cut to ``most`` characters."""
    words = " ".join(description.split())
    return words if len(words) <= most else words[: most - 1].rstrip() + "…"
