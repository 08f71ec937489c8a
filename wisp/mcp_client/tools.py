"""A configured server's tool as one of the conversation's tools, ``SERVER__TOOL``: each call
through the approval gate as a command goes (``command`` is the tool and its arguments,
``pattern`` ``mcp:SERVER__TOOL``), then to the server; the result as text, images and
resources described rather than dropped (docs/mcp.md, "MCP servers as tools")."""

from __future__ import annotations

import json
from typing import Any

from wisp.agent.types import ToolContext
from wisp.config.mcp_servers import McpServer
from wisp.mcp_client.connection import Connection, ConnectionFailed, ServerTool
from wisp.mcp_client.rating import tool_assessment
from wisp.policy.gate import ApprovalGate
from wisp.policy.types import SimpleCommand

SEPARATOR = "__"


def tool_name(server: str, tool: str) -> str:
    return f"{server}{SEPARATOR}{tool}"


class McpTool:
    """One tool of one running server."""

    def __init__(self, connection: Connection, tool: ServerTool, gate: ApprovalGate | None) -> None:
        self.connection = connection
        self.tool = tool
        self.gate = gate
        self.name = tool_name(connection.server.name, tool.name)
        self.description = tool.description or f"{tool.name}, a tool of {connection.server.name}"
        self.parameters = tool.input_schema
        self.read_only = False  # the server's claim is no fact: never run unasked as if read-only
        self.small_description = first_sentence(self.description)
        """What a small window is offered of the description: every token of its prompt
        costs reading time."""
        required = set(tool.input_schema.get("required") or ())
        properties = tool.input_schema.get("properties") or {}
        self.extra_parameters = tuple(name for name in properties if name not in required)
        """The optional arguments a small window is not offered, as wisp's own tools'."""

    @property
    def server(self) -> McpServer:
        return self.connection.server

    def command(self, arguments: dict[str, Any]) -> str:
        """The call as the gate shows and records it: the tool and its arguments."""
        return f"{self.name} {json.dumps(arguments, ensure_ascii=False, sort_keys=True)}"

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        refusal = await self._cleared(arguments, context)
        if refusal is not None:
            return refusal
        try:
            result = await self.connection.call(self.tool.name, arguments)
        except ConnectionFailed as exc:
            return f"error: {exc}"
        text = described(result)
        return f"error: {text}" if getattr(result, "is_error", False) else text

    async def _cleared(self, arguments: dict[str, Any], context: ToolContext) -> str | None:
        """None when the call may go to the server; the refusal the model reads when not."""
        if self.gate is None:
            return None
        command = self.command(arguments)
        part = SimpleCommand(
            text=command, executable=None, subcommand=None, pattern=f"mcp:{self.name}"
        )
        conversation = context.conversation
        decision = await self.gate.authorize(
            command,
            [part],
            [tool_assessment(self.server, self.tool)],
            context.working_directory,
            turn=conversation.turn,
            stop=conversation.stop_requested,
        )
        if decision.approved:
            return None
        return f"error: {self.name} not approved: {decision.reason}"


SHORT_DESCRIPTION = 120
"""Characters of a server tool's description a small window is offered at most."""


def first_sentence(description: str) -> str:
    """``description``'s first sentence on one line, cut to ``SHORT_DESCRIPTION``."""
    words = " ".join(description.split())
    head, dot, _ = words.partition(". ")
    sentence = head + ("." if dot else "")
    if len(sentence) <= SHORT_DESCRIPTION:
        return sentence
    return sentence[: SHORT_DESCRIPTION - 1].rstrip() + "…"


def described(result: Any) -> str:
    """A ``CallToolResult`` as the model reads it: text as it is, an image, audio or a binary
    resource by what it is and its size, a text resource with its URI."""
    parts = [_block(block) for block in result.content or []]
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(parts) if parts else "(no output)"


def _block(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return block.text
    if kind in ("image", "audio"):
        return f"[{kind}: {block.mime_type}, {_decoded_size(block.data)} bytes, not shown]"
    if kind == "resource":
        resource = block.resource
        if hasattr(resource, "text"):
            return f"[resource {resource.uri}]\n{resource.text}"
        mime = resource.mime_type or "binary"
        return f"[resource {resource.uri}: {mime}, {_decoded_size(resource.blob)} bytes, not shown]"
    if kind == "resource_link":
        return f"[resource link {block.uri}: {block.name}]"
    return f"[{kind or 'unknown'} content, not shown]"


def _decoded_size(data: str) -> int:
    """The bytes base64 ``data`` holds."""
    return len(data) * 3 // 4 - data[-2:].count("=") if data else 0
