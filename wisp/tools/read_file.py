"""``read_file``: a page of a text file's lines, numbered, with where the next page starts.

A page holds at most ``limit`` lines and at most B bytes (the tool-output budget), so a result
never needs the output store. Reading is lazy and bounded: the file is read line by line, and
a line longer than B is read only as far as the page can show.
"""

from __future__ import annotations

import asyncio
import glob
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, BinaryIO

import msgspec

from wisp.agent.types import ToolContext
from wisp.tools.arguments import nul_path_refusal, parse_arguments, resolve_path, schema_of
from wisp.tools.beneath import SwapRefused, open_root, resolved
from wisp.tools.home_guard import is_within, opened_inside_home
from wisp.tools.output import bounded
from wisp.tools.regular_file import NotRegularFile, open_regular

END_OF_FILE = "[end of file"
"""How the last line of a page that reached the end begins (``end_of_file``)."""
NO_LINES = "(no lines in range)"
_BINARY_PROBE = 8192
"""A NUL byte in this much of the file's start means it is binary."""
DEFAULT_LINES = 100
"""A page's lines when the call names no limit."""
_MARKER_ROOM = 64
"""Bytes kept free of lines for the page's last line (``[more: call again with offset N]``)."""


class ReadFileArgs(msgspec.Struct, kw_only=True, rename="camel"):
    path: Annotated[str, msgspec.Meta(description="Relative to the working folder")]
    offset: Annotated[int, msgspec.Meta(description="First line to read, from 1")] = 1
    limit: Annotated[int, msgspec.Meta(description="How many lines to read at most")] = (
        DEFAULT_LINES
    )


def end_of_file(lines: int) -> str:
    """The last line of a page that reached the end: ``[end of file: 37 lines]``. The count
    answers "how many lines?", which a small model cannot count for itself (Qwen2.5-Coder-1.5B
    said 15 of a 37-line file it had read whole)."""
    return f"{END_OF_FILE}: {lines:,} line{'' if lines == 1 else 's'}]"


def more_marker(next_line: int) -> str:
    """The last line of a page that stopped before the end (the reference form reads it)."""
    return f"[more: call again with offset {next_line}]"


class ReadFileTool:
    """Reads a page of numbered lines from a text file."""

    name = "read_file"
    description = (
        "Read a text file's numbered lines, 100 at a time; its last line says how to read on."
    )
    parameters = schema_of(ReadFileArgs)
    extra_parameters = ("offset", "limit")
    """Offered on large windows only: a small model fills in every parameter it sees (Qwen2.5-
    Coder-0.5B read from line 100 of a 3-line file); the page's last line names the offset to
    go on from, and a call that sends one is accepted on any window."""
    read_only = True

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        args = parse_arguments(self.name, arguments, ReadFileArgs, context.notes)
        if isinstance(args, str):
            return args
        if args.offset < 1:
            return f"error: offset must be 1 or more (lines count from 1), got {args.offset}"
        if args.limit < 1:
            return f"error: limit must be 1 or more, got {args.limit}"
        refusal = nul_path_refusal("path", args.path)
        if refusal:
            return refusal
        path = resolve_path(args.path, context.working_directory)
        home = context.conversation.home
        return await asyncio.to_thread(
            read_page, path, args.offset, args.limit, context.output_budget, home
        )


def read_page(path: Path, offset: int, limit: int, budget: int, home: Path) -> str:
    """The page of ``path`` from line ``offset``, or an ``error:`` result; nothing in
    ``home`` (``WISP_HOME``) is read. ``path`` is resolved once, and the real path judged is
    the one opened, walked from ``/`` with no symbolic link followed: a folder on it swapped
    for a link since is refused, never followed (docs/sandbox.md, "Threat model")."""
    try:
        real = resolved(path)
    except SwapRefused:
        return _swap_refusal(path)
    inside = is_within(real, os.path.realpath(home))
    refusal = _home_refusal(path, home) if inside else _refusal(path)
    if refusal:
        return refusal
    try:
        with _open_real(real) as file:
            if opened_inside_home(file.fileno(), home):
                return _home_refusal(path, home)
            if b"\0" in file.read(_BINARY_PROBE):
                return f"error: {path} looks binary (it has a NUL byte); read_file reads text only"
            file.seek(0)
            return numbered_page(file, offset, limit, budget)
    except NotRegularFile as exc:  # it was a file when looked at: a command swapped it since
        return f"error: {path} is {exc.what}, not a regular file; read_file reads files only"
    except SwapRefused:
        return _swap_refusal(path)
    except OSError as exc:
        return f"error: cannot read {path}: {exc.strerror or exc}"


def _open_real(real: str) -> BinaryIO:
    """The regular file at the real path ``real``, opened beneath ``/`` with no link followed."""
    slash = open_root("/")
    try:
        return open_regular(real.lstrip("/") or ".", folder=slash)
    finally:
        os.close(slash)


def _swap_refusal(path: Path) -> str:
    return (
        f"error: cannot read {path}: it changed while wisp was reading it (a symlink appeared "
        "on the way): refused"
    )


def _home_refusal(path: Path, home: Path) -> str:
    return (
        f"error: cannot read {path}: it is inside WISP_HOME ({home}), "
        "which holds wisp's own settings and logs"
    )


def _refusal(path: Path) -> str | None:
    if path.is_dir():
        return f"error: {path} is a folder, not a file; list it with run_command, e.g. ls '{path}'"
    if path.is_file():
        return None
    if path.exists():
        # A FIFO or a terminal would block the read; a device may never end.
        return f"error: {path} is not a regular file; read_file reads files only"
    if glob.has_magic(str(path)):
        return (
            f"error: read_file takes one path, not a pattern: {path}; "
            f"list matches with run_command, e.g. ls {path}"
        )
    return f"error: no such file: {path}"


class _Line(msgspec.Struct):
    text: bytes
    """The line without its ending, or as much of it as was read."""
    size: int
    """Its whole length in bytes, without the ending."""


def numbered_page(file: BinaryIO, offset: int, limit: int, budget: int) -> str:
    """Lines ``offset`` on, numbered, at most ``limit`` of them and ``budget`` bytes, then the
    page's last line (``[end of file: N lines]`` or where to read on)."""
    room = max(budget - _MARKER_ROOM, _MARKER_ROOM)
    shown: list[str] = []
    used = lines = 0
    for number, line in enumerate(_lines(file, budget), start=1):
        lines = number
        if number < offset:
            continue
        if len(shown) == limit:
            return _join(shown, more_marker(number))
        prefix = f"{number}\t"
        text = prefix + line.text.decode("utf-8", errors="replace")
        # Its whole size: what was read may be only its start, and a bad byte decodes longer.
        whole = max(len(prefix) + line.size, len(text.encode()))
        if used + whole + 1 > room:
            if shown:
                return _join(shown, more_marker(number))
            # A line longer than the page: show its start, and say how long it is.
            text = bounded(text, room - _MARKER_ROOM, total=whole)
            whole = room
        shown.append(text)
        used += whole + 1
    if not shown and offset > 1:
        # Small models fill in every parameter they see; say plainly where the file ends.
        return (
            f"{NO_LINES}: the file has {lines:,} lines, fewer than offset {offset:,}\n"
            + end_of_file(lines)
        )
    if not shown:
        return f"{NO_LINES}\n{end_of_file(lines)}"
    return _join(shown, end_of_file(lines))


def _join(shown: list[str], last: str) -> str:
    return "\n".join([*shown, last])


def _lines(file: BinaryIO, keep: int) -> Iterator[_Line]:
    """Each line of the file, its ending (LF or CRLF) removed; of a line longer than ``keep``
    bytes only the first ``keep`` are held, and the rest is read past in chunks."""
    while True:
        head = file.readline(keep + 1)
        if not head:
            return
        size, last_two, chunk = len(head), head[-2:], head
        while not chunk.endswith(b"\n"):
            chunk = file.readline(1 << 20)
            if not chunk:
                break
            size += len(chunk)
            last_two = (last_two + chunk)[-2:]
        ending = 2 if last_two == b"\r\n" else 1 if last_two.endswith(b"\n") else 0
        yield _Line(text=head[: min(len(head), size - ending)], size=size - ending)
