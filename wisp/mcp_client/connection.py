"""One running MCP server, reached with the official SDK's client: started, its tools listed,
called, and stopped (docs/mcp.md, "MCP servers as tools").

The SDK's transports and its ``Client`` live in anyio task groups and cancel scopes, which
must be left by the task that entered them; so each connection runs in a task of its own that
holds the client open until it is told to stop, and calls from the conversation's tasks go
through the client it holds.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, Literal

import msgspec

from wisp.config.mcp_servers import McpServer
from wisp.policy.approvers import escape_controls

State = Literal["starting", "ready", "failed", "stopped"]

START_SECONDS = 60.0
"""How long a server may take to start and list its tools: ``npx`` fetching a package on its
first run takes a while; a server silent past this is failed, named, and left out."""


class ServerTool(msgspec.Struct, frozen=True):
    """One tool a server offers, as it described it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool | None = None
    """``readOnlyHint``: a claim of the server's, never trusted unless the person says so."""
    destructive: bool | None = None
    """``destructiveHint``."""


class Launched(msgspec.Struct):
    """How to reach a server: the SDK's transport (an async context manager yielding its two
    streams), and what is learnt as it starts."""

    transport: Any
    mechanism: str = ""
    """How it runs: the sandbox's mechanism, or why nothing confines it; ``http`` for an HTTP
    server."""
    last_stderr: Callable[[], str] = lambda: ""
    """The last line its stderr holds, for the note when it fails."""


Launch = Callable[[McpServer], Launched]


class ConnectionFailed(Exception):
    """The server did not start, or stopped: ``str()`` is the note naming it."""


class Connection:
    """One server's process (or HTTP endpoint) and the client that talks to it."""

    def __init__(self, server: McpServer, launch: Launch) -> None:
        self.server = server
        self._launch = launch
        self.state: State = "starting"
        self.note: str | None = None
        """Why the server is failed: its name and its stderr's last line."""
        self.tools: list[ServerTool] = []
        self.mechanism = ""
        self._client: Any = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start the server and wait until it listed its tools or failed (``state`` says)."""
        if self._task is None:
            self._task = asyncio.create_task(self._hold(), name=f"mcp-server-{self.server.name}")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(START_SECONDS):
                await self._ready.wait()
        if not self._ready.is_set():
            self._fail(f"it did not start within {START_SECONDS:.0f} s")
            await self.stop()

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """The server's ``CallToolResult`` for ``tool``; ``ConnectionFailed`` when it is gone."""
        if self.state != "ready" or self._client is None:
            raise ConnectionFailed(self.note or f"MCP server {self.server.name} is not running")
        try:
            return await self._client.call_tool(tool, arguments)
        except Exception as exc:  # the SDK's errors: a protocol error, a closed stream
            if self._task is not None and self._task.done():
                self._fail(f"it stopped ({exc})")
            raise ConnectionFailed(
                f"MCP server {self.server.name}: {type(exc).__name__}: {exc}"
            ) from exc

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None and self.state != "ready":
            self._task.cancel()  # still starting: nothing listens for the stop yet
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._task
        if self.state != "failed":
            self.state = "stopped"

    async def _hold(self) -> None:
        from mcp import Client

        launched: Launched | None = None
        try:
            launched = self._launch(self.server)
            async with Client(launched.transport, mode="auto") as client:
                self.mechanism = launched.mechanism
                listed = await client.list_tools()
                self.tools = [_tool(tool) for tool in listed.tools]
                self._client = client
                self.state = "ready"
                self._ready.set()
                await self._stop.wait()
        except Exception as exc:  # a server that cannot start is a note, never a crash
            last = "" if launched is None else launched.last_stderr()
            self._fail(_why(exc, last), started=self._client is not None)
        finally:
            self._client = None
            self._ready.set()

    def _fail(self, why: str, *, started: bool = False) -> None:
        if self.state == "failed":
            return
        self.state = "failed"
        what = "stopped" if started else "failed to start"
        self.note = f"MCP server {self.server.name} {what}: {why}"


def _why(exc: BaseException, last_stderr: str) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]  # the task group's wrapping says nothing; its first cause does
    said = str(exc) or type(exc).__name__
    # The server's own text: its control characters are never drawn on the person's terminal.
    last = escape_controls(last_stderr.strip())[:300]
    return f"{said} (stderr: {last})" if last else said


def _tool(tool: Any) -> ServerTool:
    hints = tool.annotations
    return ServerTool(
        name=tool.name,
        description=tool.description or tool.title or "",
        input_schema=dict(tool.input_schema or {"type": "object"}),
        read_only=None if hints is None else hints.read_only_hint,
        destructive=None if hints is None else hints.destructive_hint,
    )
