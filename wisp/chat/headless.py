"""``wisp chat --json``: the chat loop's lines on stdout, the front end's lines from stdin.

stdout carries protocol lines only, each one Struct of wisp/protocol.py. A line that cannot be
read is skipped, never fatal: a hostile or broken front end cannot crash the backend.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator
from typing import BinaryIO

from wisp import protocol as p
from wisp.chat.loop import ChatLoop
from wisp.diagnostics import logger

MAX_LINE_BYTES = 16 * 1024 * 1024
"""A longer inbound line is dropped whole (with a note in the diagnostic log)."""
READ_CHUNK = 64 * 1024


class LineWriter:
    """Writes each line whole and flushes it; a front end that went away ends nothing else."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.closed = False

    def __call__(self, line: p.Outbound) -> None:
        if self.closed:
            return
        try:
            self.stream.write(p.encode_line(line))
            self.stream.flush()
        except (BrokenPipeError, ValueError, OSError):
            self.closed = True  # the reader is gone; the loop still ends cleanly on EOF


async def inbound_lines(fd: int) -> AsyncIterator[bytes]:
    """stdin's lines, without blocking the loop; over-long lines are dropped."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=READ_CHUNK * 4)
    protocol = asyncio.StreamReaderProtocol(reader)
    regular = never_blocks(fd)
    if not regular:
        await loop.connect_read_pipe(lambda: protocol, os.fdopen(os.dup(fd), "rb"))
    pending = bytearray()
    skipping = False
    while True:
        chunk = os.read(fd, READ_CHUNK) if regular else await reader.read(READ_CHUNK)
        if not chunk:
            break
        pending += chunk
        while (end := pending.find(b"\n")) >= 0:
            line = bytes(pending[:end])
            del pending[: end + 1]
            if skipping:
                skipping = False
                continue
            yield line
        if len(pending) > MAX_LINE_BYTES:
            logger.info("an inbound line passed %d bytes; it was dropped", MAX_LINE_BYTES)
            pending.clear()
            skipping = True
    if pending and not skipping:
        yield bytes(pending)


async def feed(chat: ChatLoop, fd: int) -> None:
    """Every inbound line to the loop as it is read; at the end of input, tell it."""
    unknown: set[str] = set()
    try:
        async for raw in inbound_lines(fd):
            read = p.read_inbound(raw)
            if isinstance(read, p.Skipped):
                _report(read, unknown)
                continue
            chat.receive(read)
    finally:
        chat.end_of_input()


def _report(skipped: p.Skipped, unknown: set[str]) -> None:
    """An unknown type is reported once per type (at most 32) on stderr's log."""
    key = skipped.type or skipped.reason
    if key in unknown or len(unknown) >= 32:
        return
    unknown.add(key)
    logger.info("inbound line skipped (%s): %s", skipped.reason, skipped.detail)


def never_blocks(fd: int) -> bool:
    """A regular file, or a device such as /dev/null that is not a terminal: reading it never
    waits (and epoll refuses them), so it is read directly."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return True
    return stat.S_ISREG(mode) or (stat.S_ISCHR(mode) and not os.isatty(fd))


def stdout_writer() -> LineWriter:
    return LineWriter(sys.stdout.buffer)
