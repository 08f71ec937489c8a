"""The asyncio face of the started `wisp chat --json` (docs/tui.md, "Process and start-up").

`wisp_tui.spawn` starts wisp before Textual (and asyncio) is imported; the app then adopts that
process here. The Pilot tests build the app without a process started beforehand: the backend
starts one the same way and adopts it.

Waiting for wisp's exit takes no thread: on Linux a pidfd becomes readable when the process
ends; elsewhere a task looks every EXIT_POLL seconds.
"""

from __future__ import annotations

import asyncio
import os
from typing import IO

from wisp_tui.spawn import Spawned

LINE_LIMIT = 2**24
"""An event line carries up to 16 KiB of output, escaped: the readers' line limit."""

EXIT_POLL = 0.02
"""Seconds between looks at whether wisp has exited, where there is no pidfd."""


class Adopted:
    """A started process as the backend uses it: asyncio streams on its pipes, and its exit."""

    def __init__(
        self,
        popen: Spawned,
        stdin: asyncio.StreamWriter,
        stdout: asyncio.StreamReader,
        stderr: asyncio.StreamReader,
    ) -> None:
        self._popen = popen
        self.pid = popen.pid
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self._exit: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._watcher = asyncio.get_running_loop().create_task(self._watch())

    @property
    def returncode(self) -> int | None:
        return self._exit.result() if self._exit.done() else None

    def kill(self) -> None:
        """SIGKILL, unless it has been reaped (its pid may be someone else's by then)."""
        if self._popen.returncode is None:
            self._popen.kill()

    async def wait(self) -> int:
        """The exit status as soon as it has exited; never waits for its pipes to close (a
        child wisp left behind may hold them open for ever)."""
        return await asyncio.shield(self._exit)

    async def _watch(self) -> None:
        try:
            pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):  # not Linux, or a kernel before 5.3
            while self._popen.poll() is None:
                await asyncio.sleep(EXIT_POLL)
        else:
            loop = asyncio.get_running_loop()
            readable = loop.create_future()
            loop.add_reader(pidfd, lambda: readable.done() or readable.set_result(None))
            try:
                if self._popen.poll() is None:
                    await readable
            finally:
                loop.remove_reader(pidfd)
                os.close(pidfd)
        code = self._popen.wait()  # it has exited: this reaps it at once
        self._exit.set_result(code)


def read_waiting(pipe: IO[bytes]) -> bytes:
    """What is in the pipe now, without waiting for more: b"" when nothing is (or at its end,
    which its reader then finds for itself)."""
    fd = pipe.fileno()
    chunks = []
    os.set_blocking(fd, False)
    try:
        while chunk := os.read(fd, 2**16):
            chunks.append(chunk)
    except BlockingIOError:
        pass
    finally:
        os.set_blocking(fd, True)
    return b"".join(chunks)


async def adopt(popen: Spawned, stdout_read: bytes = b"") -> Adopted:
    """asyncio streams on a started process's pipes, the way `create_subprocess_exec` makes
    them, and a task that learns of its exit. `stdout_read` is what was read from stdout
    before (`read_waiting`) and not used: its stream gives it first."""
    assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
    loop = asyncio.get_running_loop()
    readers = []
    for pipe in (popen.stdout, popen.stderr):
        reader = asyncio.StreamReader(limit=LINE_LIMIT, loop=loop)
        if pipe is popen.stdout and stdout_read:
            reader.feed_data(stdout_read)
        protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
        await loop.connect_read_pipe(lambda protocol=protocol: protocol, pipe)
        readers.append(reader)
    transport, flow = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(loop=loop), popen.stdin
    )
    writer = asyncio.StreamWriter(transport, flow, None, loop)
    return Adopted(popen, writer, *readers)
