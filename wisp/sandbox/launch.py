"""A long-lived launch (docs/sandbox.md, "Long-lived servers"): a server that speaks JSON-RPC
over its stdin and stdout, an MCP server over stdio, started as a command is (the argv and the
state ``confined_argv`` plans, the same helper, a process group of its own) but with pipes both
ways and no time limit, and stopped with its whole group.

It yields the pair of streams the ``mcp`` SDK's ``ClientSession`` talks over. The SDK is an
optional extra, imported here only when a server starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, BinaryIO

import anyio

from wisp.sandbox.plan import SandboxState
from wisp.sandbox.process import (
    DRAIN_SECONDS,
    MAX_BYTES,
    end_group,
    open_pipe,
    pipe_chunks,
    signal_group,
    start_in_group,
    sweep_group,
)

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from mcp.shared.message import SessionMessage

__all__ = ["CLOSE_GRACE", "StdioServer", "launch_stdio"]

CLOSE_GRACE = 2.0
"""Seconds a server has, once its stdin is closed, to end on its own (the MCP specification's
shutdown over stdio) before its group gets SIGTERM, and SIGKILL 2 s later."""
STDERR_KEPT = 16 * 1024
"""The end of its stderr kept, for the last line a note about a failed start quotes."""


@contextlib.asynccontextmanager
async def launch_stdio(
    argv: Sequence[str],
    *,
    state: SandboxState,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str],
) -> AsyncIterator[StdioServer]:
    """Start ``argv`` with pipes for stdin, stdout and stderr, and stop it when the context ends
    (or the task is cancelled): the whole process group, however it ends (``StdioServer.stop``).

    ``argv`` and ``state`` are what ``confined_argv`` planned, or the bare argv with
    ``unconfined``'s state: the launch applies nothing of its own, so a server is confined
    exactly as a command is. ``env`` is its whole environment.

    Raises ``OSError`` when the process cannot start. A confined one always starts (the helper
    does): a program it cannot run, or a confinement it cannot apply, ends it at once with the
    reason as the last line of its stderr (``StdioServer.last_stderr_line``)."""
    parse = _parser()  # without the SDK, fail here, before anything starts
    stdin_read, stdin_write = os.pipe()
    out_pipe, out_write = open_pipe()
    err_pipe, err_write = open_pipe()
    try:
        process = await start_in_group(
            argv, cwd=cwd, env=env, stdin=stdin_read, stdout=out_write, stderr=err_write
        )
    except BaseException:
        os.close(stdin_write)
        out_pipe.close()
        err_pipe.close()
        raise
    finally:
        for fd in (stdin_read, out_write, err_write):
            os.close(fd)
    # No await between the start and the try: a cancellation there would leave it running.
    stdin = _write_end(stdin_write)
    server = StdioServer(process, state, parse, stdin=stdin, stdout=out_pipe, stderr=err_pipe)
    try:
        yield server
    finally:
        await server.stop()


class StdioServer:
    """A server running with pipes: the SDK's two streams, how it is confined, and the end of
    what it wrote on stderr."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        state: SandboxState,
        parse: Callable[[bytes], SessionMessage | Exception],
        *,
        stdin: BinaryIO,
        stdout: BinaryIO,
        stderr: BinaryIO,
    ) -> None:
        self.state = state
        """How it runs: ``sandbox``, the mechanism, the network, the namespaces, as
        ``policy.decision`` records them for a command."""
        self.pid = process.pid
        """Its process (the helper, when confined), the leader of its group."""
        self._process = process
        self._parse = parse
        self._pipes = (stdin, stdout, stderr)
        self.read: MemoryObjectReceiveStream[SessionMessage | Exception]
        """What the server says, message by message, for ``ClientSession``; a line that is not
        a JSON-RPC message comes as the exception its parse raised."""
        self._to_session: MemoryObjectSendStream[SessionMessage | Exception]
        self._to_session, self.read = anyio.create_memory_object_stream(0)
        self.write: MemoryObjectSendStream[SessionMessage]
        """What the client sends it."""
        self._from_session: MemoryObjectReceiveStream[SessionMessage]
        self.write, self._from_session = anyio.create_memory_object_stream(0)
        self._stderr = bytearray()
        self._writer = asyncio.create_task(self._write_messages(self._pipes[0]))
        self._readers = (
            asyncio.create_task(self._read_messages(stdout)),
            asyncio.create_task(self._keep_stderr(stderr)),
        )

    @property
    def exit_status(self) -> int | None:
        """Its exit code (the negated signal for a signal's death), or None while it runs."""
        return self._process.returncode

    def last_stderr_line(self) -> str:
        """The last line with text on it that it wrote on stderr ("" for none), for the note
        about a server that failed: whole once the context has ended. It is the server's text,
        escape sequences and all: escape it where it is shown."""
        lines = self._stderr.decode("utf-8", "replace").splitlines()
        return next((line.strip() for line in reversed(lines) if line.strip()), "")

    async def stop(self) -> None:
        """End it: stdin closed (a server ends when it reads its end); if it has not ended
        within ``CLOSE_GRACE``, its group gets SIGTERM, then SIGKILL 2 s later; then the group is
        swept and the pipes closed. Shielded from the caller's cancel scopes; cancelled again
        meanwhile, the group is killed at once. Stopping twice does nothing more."""
        try:
            with anyio.CancelScope(shield=True):
                await self._end()
        except asyncio.CancelledError:
            signal_group(self.pid, signal.SIGKILL)
            raise
        finally:
            for task in (self._writer, *self._readers):
                task.cancel()
            for pipe in self._pipes:
                pipe.close()  # a task cancelled before it started never took its pipe
            for stream in (self.read, self.write, self._to_session, self._from_session):
                stream.close()

    async def _end(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CLOSE_GRACE
        self.write.close()  # the writer flushes what it holds, then closes stdin
        self.read.close()  # the reader drains the rest, so the server never blocks writing
        await asyncio.wait({self._writer}, timeout=CLOSE_GRACE)
        self._writer.cancel()  # one that could not flush in time closes stdin as it goes
        await asyncio.wait({self._writer})
        exited = asyncio.ensure_future(self._process.wait())
        await asyncio.wait({exited}, timeout=max(0.0, deadline - loop.time()))
        if exited.done():
            await sweep_group(self.pid)  # what it left behind in its group
        else:
            exited.cancel()
            await end_group(self._process)
        await asyncio.wait(self._readers, timeout=DRAIN_SECONDS)
        for reader in self._readers:
            reader.cancel()  # a process that left the group may hold the pipes open
        await asyncio.wait(self._readers)

    async def _write_messages(self, stdin: BinaryIO) -> None:
        """Each message the client sends, as one line on the server's stdin; stdin closed at
        the end, however it ends."""
        loop = asyncio.get_running_loop()
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, stdin)
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        try:
            async with self._from_session:
                async for message in self._from_session:
                    json = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    writer.write(json.encode() + b"\n")
                    await writer.drain()
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # Its stdin is gone while it may still run: a request must not wait forever for
            # its reply, so the client's side of reading ends too.
            self._to_session.close()
        except asyncio.CancelledError:
            transport.abort()  # unflushed: a server that does not read must still see the end
            raise
        finally:
            transport.close()

    async def _read_messages(self, stdout: BinaryIO) -> None:
        """Each line the server writes on stdout, parsed, for the client; read to its end
        even when the client is gone, so the server never blocks on a full pipe."""
        lines = _Lines(MAX_BYTES)
        is_session_gone = False
        try:
            async with contextlib.aclosing(pipe_chunks(stdout)) as chunks:
                async for chunk in chunks:
                    for line in lines.feed(chunk):
                        if is_session_gone:
                            continue
                        try:
                            message = line if isinstance(line, Exception) else self._parse(line)
                            await self._to_session.send(message)
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                            is_session_gone = True
        finally:
            self._to_session.close()  # its end: the client's requests fail, none hangs

    async def _keep_stderr(self, stderr: BinaryIO) -> None:
        async with contextlib.aclosing(pipe_chunks(stderr)) as chunks:
            async for chunk in chunks:
                self._stderr += chunk
                del self._stderr[:-STDERR_KEPT]


def _write_end(fd: int) -> BinaryIO:
    """A pipe's write end as a file for the loop (the caller closes it)."""
    return open(fd, "wb", buffering=0)


def _parser() -> Callable[[bytes], SessionMessage | Exception]:
    """How a line becomes the SDK's message: the SDK's own parse, as its stdio client does; a
    line that is none becomes the exception that says why (the session reports it, goes on)."""
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter

    def parse(line: bytes) -> SessionMessage | Exception:
        try:
            return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
        except ValueError as exc:
            return exc

    return parse


class _Lines:
    """Newline-delimited lines cut from chunks as they come. A line longer than ``limit`` is
    dropped whole, an error in its place: a server must not fill wisp's memory."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.partial = bytearray()
        self.is_dropping = False

    def feed(self, chunk: bytes) -> list[bytes | Exception]:
        found: list[bytes | Exception] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self.partial += chunk[start:end]
            if not self.is_dropping and self.partial.strip():
                found.append(bytes(self.partial))
            self.partial.clear()
            self.is_dropping = False
            start = end + 1
        self.partial += chunk[start:]
        if len(self.partial) > self.limit:
            if not self.is_dropping:
                found.append(ValueError(f"the server wrote a line over {self.limit} bytes"))
            self.is_dropping = True
            self.partial.clear()
        return found
