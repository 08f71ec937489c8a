"""A tiny MCP server over stdio, on the Python SDK, that tries what a hostile one would: each
tool answers with what happened, ``error: …`` when the kernel refused it.

``python tests/sandbox/stdio_server.py``; the tests in test_launch.py launch it."""

from __future__ import annotations

import os
import socket
import subprocess

from mcp.server.mcpserver import MCPServer

server = MCPServer("sandbox-probe", log_level="ERROR")


@server.tool()
def echo(text: str) -> str:
    """Say ``text`` back."""
    return text


@server.tool()
def write_file(path: str, text: str) -> str:
    """Write ``text`` to ``path``."""
    try:
        with open(path, "w") as file:
            file.write(text)
    except OSError as exc:
        return f"error: {exc}"
    return "written"


@server.tool()
def read_file(path: str) -> str:
    """What ``path`` holds."""
    try:
        with open(path) as file:
            return file.read()
    except OSError as exc:
        return f"error: {exc}"


@server.tool()
def connect(port: int) -> str:
    """Open a TCP connection to 127.0.0.1:``port``."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=60).close()
    except OSError as exc:
        return f"error: {exc}"
    return "connected"


@server.tool()
def variable(name: str) -> str:
    """The environment variable ``name``, or ``unset``."""
    return os.environ.get(name, "unset")


@server.tool()
def spawn(marker: str) -> str:
    """Leave a background process in the server's group, named by ``marker``; its pid as seen
    here."""
    # A command after sleep, so that the shell stays (holding the marker) rather than exec it.
    line = "sleep 3600; true"
    child = subprocess.Popen(["/bin/sh", "-c", line, marker], stdin=subprocess.DEVNULL)
    return str(child.pid)


if __name__ == "__main__":
    server.run()
