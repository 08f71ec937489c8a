"""The MCP servers the person configured, ``mcpServers.<name>`` in config.json, typed: the shape
other agents' configs already use (``command``, ``args``, ``env``, ``cwd`` for stdio; ``url``
and ``headers`` for streamable HTTP) and wisp's own fields around it (docs/mcp.md, "MCP servers
as tools").

Each server is read on its own: a field of the wrong type, or an entry with neither ``command``
nor ``url``, leaves that server with a ``problem`` to show and the others untouched.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from wisp.config.settings import MCP_SERVER_FIELDS, MCP_SERVERS

Transport = Literal["stdio", "http"]


class McpServer(msgspec.Struct, frozen=True, kw_only=True):
    """One configured server; a field not stored has its setting's default."""

    name: str
    command: str | None = None
    args: list[str] = msgspec.field(default_factory=list)
    env: dict[str, str] = msgspec.field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    enabled: bool = True
    tools: list[str] | None = None
    sandbox: bool = True
    network: bool = False
    trust_annotations: bool = False
    level: str | None = None
    levels: dict[str, str] = msgspec.field(default_factory=dict)
    deny: list[str] = msgspec.field(default_factory=list)
    problem: str | None = None
    """Why the entry cannot be used, naming the key at fault; None when it can."""

    @property
    def transport(self) -> Transport:
        return "stdio" if self.command is not None else "http"


_ATTRIBUTES = {
    "trustAnnotations": "trust_annotations",
}


def configured_servers(stored: Any, where: str = "config.json") -> list[McpServer]:
    """The servers ``mcpServers`` holds (``stored``, as the file has it), in file order."""
    if stored is None:
        return []
    if not isinstance(stored, dict):
        return [McpServer(name="?", problem=f"{where}: {MCP_SERVERS} must be an object of servers")]
    return [_server(name, entry, where) for name, entry in stored.items()]


def _server(name: str, entry: Any, where: str) -> McpServer:
    key = f"{MCP_SERVERS}.{name}"
    if "__" in name or not name:
        return McpServer(name=name, problem=f"{where}: {key}: a name may not hold '__'")
    if not isinstance(entry, dict):
        return McpServer(name=name, problem=f"{where}: {key} must be an object")
    values: dict[str, Any] = {}
    for field, value in entry.items():
        setting = MCP_SERVER_FIELDS.get(field)
        if setting is None:
            continue  # another agent's field (timeout, autoApprove): kept in the file, unused
        try:
            values[_ATTRIBUTES.get(field, field)] = setting.check(value)
        except ValueError as exc:
            return McpServer(name=name, problem=f"{where}: {key}.{field}: {exc}")
    values.pop("type", None)
    if ("command" in values) == ("url" in values):
        problem = f"{where}: {key}: give command (a stdio server) or url (an HTTP one)"
        return McpServer(name=name, problem=problem)
    return McpServer(name=name, **values)
