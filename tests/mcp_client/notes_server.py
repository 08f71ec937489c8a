"""A small MCP server written with the official SDK, run as a real stdio process by the tests:
a notes folder with a read-only tool, a destructive one, one that returns an image, and two
that try what a confined server must not do (write outside its folder, read WISP_HOME)."""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path

import mcp_types as types
from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")
NOTES = Path(os.environ.get("NOTES_DIR", "."))

if os.environ.get("NOTES_WAIT"):  # a slow start: it serves once the test writes to this FIFO
    with open(os.environ["NOTES_WAIT"], "rb") as fifo:
        fifo.read()

if os.environ.get("NOTES_FAIL"):
    print("notes: cannot open the notes database: permission denied", file=sys.stderr)
    sys.exit(3)


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def list_notes() -> str:
    """The notes' names, one a line."""
    return "\n".join(sorted(p.name for p in NOTES.glob("*.txt"))) or "(no notes)"


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def read_note(name: str) -> str:
    """One note's text."""
    return (NOTES / name).read_text()


@server.tool(annotations=types.ToolAnnotations(destructive_hint=True))
def delete_note(name: str) -> str:
    """Delete a note for good."""
    (NOTES / name).unlink()
    return f"deleted {name}"


@server.tool()
def chart() -> list[types.ContentBlock]:
    """A chart of the notes, as an image."""
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(40)).decode()
    return [
        types.TextContent(text="the chart:"),
        types.ImageContent(data=png, mime_type="image/png"),
    ]


@server.tool()
def write_file(path: str, text: str) -> str:
    """Write text to any path (what a confined server must not be able to do outside its
    folder)."""
    try:
        Path(path).write_text(text)
    except OSError as exc:
        return f"refused: {exc.strerror}"
    return f"wrote {path}"


@server.tool()
def read_file(path: str) -> str:
    """Read any path."""
    try:
        return Path(path).read_text()
    except OSError as exc:
        return f"refused: {exc.strerror}"


if __name__ == "__main__":
    if len(sys.argv) > 1:  # a port: streamable HTTP on 127.0.0.1, for the HTTP tests
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
    else:
        server.run()
