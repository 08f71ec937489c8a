"""Runs `wisp chat --json`, posts its lines to the app as messages, and writes ours (§1, §12).

The readers are tasks this object owns: one reads wisp's stdout, one its stderr. Each stdout line is
read with `wisp.protocol.read_outbound`; a line that is not a protocol line becomes a note, so
nothing wisp writes is lost (D3). When wisp's stdout ends and we did not ask it to quit, the app
hears `Backend.Died` at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from textual.message import Message
from textual.message_pump import MessagePump

from wisp.protocol import (
    ClientHello,
    Effect,
    Inbound,
    Interrupt,
    OutboundLine,
    Skipped,
    encode_line,
    read_outbound,
)
from wisp.protocol import Message as MessageLine

QUIT_TIMEOUT = 5.0
"""Seconds wisp has to exit after `/quit` and EOF before it is killed (§12)."""


def wisp_command() -> str:
    """`$WISP_BIN`, else the `wisp` script beside this Python, else `wisp` on PATH."""
    if bin_ := os.environ.get("WISP_BIN"):
        return bin_
    beside = Path(sys.executable).parent / "wisp"
    return str(beside) if beside.exists() else "wisp"


class Backend:
    """One `wisp chat --json` process: start it, send lines, read lines, quit it."""

    @dataclass
    class Line(Message):
        """wisp wrote a protocol line."""

        line: OutboundLine

    @dataclass
    class Text(Message):
        """wisp wrote something that is not a protocol line (stdout), or a stderr line: a note."""

        text: str
        stream: str

    @dataclass
    class Died(Message):
        """wisp's output ended without our asking it to quit."""

        returncode: int | None

    def __init__(
        self,
        target: MessagePump,
        args: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        command: str | None = None,
    ) -> None:
        self._target = target
        self._argv = [command or wisp_command(), "chat", "--json", *args]
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._process: asyncio.subprocess.Process | None = None
        self._readers: list[asyncio.Task[None]] = []
        self.is_quitting = False
        self.was_killed = False

    @property
    def returncode(self) -> int | None:
        return None if self._process is None else self._process.returncode

    async def start(self) -> None:
        """Start wisp and send our `hello` first (§1)."""
        self._process = await asyncio.create_subprocess_exec(
            *self._argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._env,
            cwd=self._cwd,
            # The terminal's Ctrl-C is ours to turn into `interrupt` (D8), never wisp's SIGINT.
            start_new_session=True,
            limit=2**24,  # an event line carries up to 16 KiB of output, escaped
        )
        assert self._process.stdout is not None and self._process.stderr is not None
        self._readers = [
            asyncio.create_task(self._read_stdout(self._process.stdout)),
            asyncio.create_task(self._read_stderr(self._process.stderr)),
        ]
        hello = ClientHello(
            effects=[Effect.APPROVE.value, Effect.ASK.value],
            client="wisp-tui",
            version=version("wisp"),
        )
        await self.send(hello)

    async def send(self, line: Inbound) -> None:
        """Write one line to wisp; a failed write is ignored (wisp may have died, §1)."""
        stdin = None if self._process is None else self._process.stdin
        if stdin is None or stdin.is_closing():
            return
        with contextlib.suppress(ConnectionError, OSError):
            stdin.write(encode_line(line))
            await stdin.drain()

    async def message(self, text: str) -> None:
        await self.send(MessageLine(text=text))

    async def interrupt(self) -> None:
        await self.send(Interrupt())

    async def quit(self, timeout: float = QUIT_TIMEOUT) -> int:
        """`/quit`, close stdin, wait up to `timeout` s, then kill; the exit status of §12.7."""
        self.is_quitting = True
        process = self._process
        if process is None:
            return 0
        if process.returncode is None:
            await self.message("/quit")
            if process.stdin is not None:
                with contextlib.suppress(ConnectionError, OSError):
                    process.stdin.close()
            try:
                async with asyncio.timeout(timeout):
                    await process.wait()
            except TimeoutError:
                self.was_killed = True
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        await self._stop_readers()
        code = process.returncode or 0
        return 1 if self.was_killed or code < 0 else code

    def kill_if_running(self) -> None:
        """The app is going away however it ended: never leave wisp running behind it."""
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()

    async def _stop_readers(self) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(1.0):
                # §12.6: the rest of stderr, waiting at most 1 s for it to close.
                await asyncio.gather(*self._readers, return_exceptions=True)
        for task in self._readers:
            task.cancel()
        await asyncio.gather(*self._readers, return_exceptions=True)

    async def _read_stdout(self, stream: asyncio.StreamReader) -> None:
        while raw := await _read_line(stream):
            read = read_outbound(raw)
            if isinstance(read, Skipped):
                if read.reason in ("not-json", "untyped", "too-deep") and read.text.strip():
                    self._target.post_message(self.Text(read.text, "stdout"))
                continue  # D3: an unknown type or an unreadable known one is skipped
            self._target.post_message(self.Line(read))
        if not self.is_quitting:
            assert self._process is not None
            code = await self._process.wait()
            if not self.is_quitting:
                self._target.post_message(self.Died(code))

    async def _read_stderr(self, stream: asyncio.StreamReader) -> None:
        while raw := await _read_line(stream):
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            self._target.post_message(self.Text(text, "stderr"))


async def _read_line(stream: asyncio.StreamReader) -> bytes:
    """The next line, or b"" at the end; an over-long line is read whole in pieces."""
    try:
        return await stream.readline()
    except ValueError:
        # A line beyond the stream limit: take what is buffered as one line rather than stop.
        return await stream.read(2**16)
