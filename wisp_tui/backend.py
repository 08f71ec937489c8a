"""Runs `wisp chat --json`, posts its lines to the app as messages, and writes ours
(docs/tui.md, "Process and start-up", "Stopping and quitting").

The readers are tasks this object owns: one reads wisp's stdout, one its stderr. Each stdout line is
read with `wisp.protocol.read_outbound`; a line that is not a protocol line becomes a note, so
nothing wisp writes is lost. While the screen is up each stderr line is a note too; the ones
that come once quitting has begun are kept for `wisp-tui` to print after the screen is gone, and
all of them when wisp failed (`stderr_to_print`). When wisp's stdout ends and we did not ask it
to quit, the app hears `Backend.Died` at once, after wisp's last stderr lines.

Until wisp writes its first stdout line, its stderr lines are held (for up to HOLD_SECONDS): if
it ends before it has started, they are why (a config.json that is not JSON), and `Died`
carries them for the app to show as the error they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import deque
from collections.abc import Mapping, Sequence

from textual.message import Message
from textual.message_pump import MessagePump

from wisp import __version__
from wisp.notify.sequences import sequence_for
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
from wisp_tui.process import Adopted, adopt, read_waiting
from wisp_tui.spawn import NO_WISP, Spawned, close_unadopted, start, wisp_command

__all__ = ["NO_WISP", "QUIT_TIMEOUT", "Backend", "wisp_command"]

QUIT_TIMEOUT = 5.0
"""Seconds wisp has to exit after `/quit` and EOF before it is killed."""

STDERR_CLOSE_TIMEOUT = 1.0
"""Seconds to wait, once wisp has exited, for the rest of its stderr."""

HOLD_SECONDS = 2.0
"""How long stderr lines are held while wisp has not started; then they are notes after all."""

STDERR_KEPT = 1000
"""stderr lines kept to print after the screen is gone: a runaway wisp cannot fill memory."""


class Backend:
    """One `wisp chat --json` process: start it, send lines, read lines, quit it."""

    class Line(Message):
        """wisp wrote a protocol line."""

        def __init__(self, line: OutboundLine) -> None:
            super().__init__()
            self.line = line

    class Text(Message):
        """wisp wrote something that is not a protocol line (stdout), or a stderr line: a note."""

        def __init__(self, text: str, stream: str) -> None:
            super().__init__()
            self.text = text
            self.stream = stream

    class Died(Message):
        """wisp's output ended without our asking it to quit."""

        def __init__(
            self,
            returncode: int | None,
            before_start: bool = False,
            last_words: tuple[str, ...] = (),
        ) -> None:
            super().__init__()
            self.returncode = returncode
            self.before_start = before_start
            """wisp ended before its first stdout line: it could not start."""
            self.last_words = last_words
            """The stderr lines it wrote before it ended, not shown yet: why it could not start."""

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
        program = command or wisp_command(env, None if cwd is None else os.fspath(cwd))
        self._argv = [program or "wisp", "chat", "--json", *args]
        self._has_program = program is not None
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._process: Adopted | None = None
        self._started: Spawned | None = None  # started before the app
        self._starting: asyncio.Task[None] | None = None
        self._waiting: list[bytes] = []  # lines sent before our hello, in order
        self._has_said_hello = False
        self._is_detached = False  # the app is going away: post it nothing more
        self.could_not_start: str | None = None
        """Why wisp could not be run at all (no such file, not executable), or None."""
        self._readers: list[asyncio.Task[None]] = []
        self.is_quitting = False
        self.was_killed = False
        self.has_died = False
        """wisp's output ended without our asking it to quit (`Died` was posted)."""
        self._stderr: deque[str] = deque(maxlen=STDERR_KEPT)
        self._unshown: deque[str] = deque(maxlen=STDERR_KEPT)
        self._stderr_closed = asyncio.Event()
        self.has_started = False
        """wisp has written a line on stdout."""
        self._held: list[str] = []  # stderr lines held while wisp has not started
        self._is_holding = True
        self._hold_timer: asyncio.TimerHandle | None = None
        self._has_stdout_ended = False
        self._stdout_read = b""  # the start of a line `said_already` read and did not use

    @property
    def returncode(self) -> int | None:
        return None if self._process is None else self._process.returncode

    @property
    def is_gone(self) -> bool:
        """wisp could not be run, or its output has ended: nothing sent to it is read."""
        return self.could_not_start is not None or self.has_died

    @property
    def has_failed(self) -> bool:
        """wisp ended with an error of its own or died; being killed by us on quitting is not it."""
        code = self.returncode
        return code is not None and code != 0 and (self.has_died or not self.was_killed)

    def stderr_to_print(self) -> list[str]:
        """The stderr lines to print once the screen is gone.

        Lines that came while quitting were never shown. When wisp failed, all of it: the notes
        that said why went with the screen, and the person needs the reason on the terminal.
        """
        return list(self._stderr if self.has_failed else [*self._held, *self._unshown])

    def adopt(self, started: Spawned) -> None:
        """Use a `wisp chat --json` already started with this backend's arguments (wisp-tui
        starts it before importing Textual) instead of starting one."""
        self._started = started

    def said_already(self) -> list[Backend.Line | Backend.Text]:
        """What the wisp started early has written so far, whole lines, read without waiting,
        as the messages its reader would post. It has its hello, notes and first status out
        by the time the screen mounts as a rule, and the app shows them in its first frame
        instead of a frame after it. The rest is read as usual once wisp is adopted."""
        started = self._started
        if started is None or started.stdout is None or self._process is not None:
            return []
        *lines, self._stdout_read = (self._stdout_read + read_waiting(started.stdout)).split(b"\n")
        messages = [message for raw in lines if (message := self._message_for(raw)) is not None]
        if lines and not self.has_started:
            self.has_started = True
            self._stop_holding()  # nothing is held yet: stderr is read once wisp is adopted
        return messages

    def start_soon(self) -> None:
        """Start wisp in the background: the screen takes keys meanwhile, and what is sent
        before wisp runs waits, in order, behind our `hello`."""
        if self.is_quitting:
            return  # the person quit before the first frame: nothing to start
        self._starting = asyncio.create_task(self.start())

    async def start(self) -> None:
        """Start wisp (or take the one started early) and send our `hello` first."""
        started, self._started = self._started, None
        if started is None:
            started = self._start_here()
            if started is None:
                self._waiting.clear()
                self._post(self.Died(None))
                return
        stdout_read, self._stdout_read = self._stdout_read, b""
        self._process = await adopt(started, stdout_read)
        await self._begin_reading()

    def _start_here(self) -> Spawned | None:
        """wisp, started now; None (and why, in `could_not_start`) when it cannot be run."""
        if not self._has_program:
            self.could_not_start = NO_WISP  # never a bare `wisp`: exec would search PATH
            return None
        try:
            return start(self._argv, self._env, self._cwd)
        except OSError as exc:
            self.could_not_start = f"cannot run {self._argv[0]}: {exc.strerror or exc}"
            return None

    async def _begin_reading(self) -> None:
        process = self._process
        assert process is not None
        self._readers = [
            asyncio.create_task(self._read_stdout(process.stdout)),
            asyncio.create_task(self._read_stderr(process.stderr)),
        ]
        await self._say_hello()

    async def _say_hello(self) -> None:
        """`hello` first, then whatever was sent before it, in order."""
        if self._has_said_hello:
            return
        self._has_said_hello = True
        hello = ClientHello(
            effects=[
                Effect.APPROVE.value,
                Effect.APPROVE_MCP.value,
                Effect.KEEP_FACTS.value,
                Effect.ASK.value,
                Effect.GUIDANCE.value,
                # Only when this terminal has a notification sequence: else wisp sends none.
                *([Effect.NOTIFY.value] if sequence_for(self._env) else []),
            ],
            client="wisp-tui",
            # wisp's own, not the installed distribution's metadata: reading that takes tens of
            # milliseconds, and the hello is on the way to wisp's first status.
            version=__version__,
        )
        waiting, self._waiting = self._waiting, []
        await self._write(b"".join([encode_line(hello), *waiting]))

    async def send(self, line: Inbound) -> None:
        """Write one line to wisp; a failed write is ignored (wisp may have died)."""
        if not self._has_said_hello:
            if self.could_not_start is None:
                self._waiting.append(encode_line(line))
            return
        await self._write(encode_line(line))

    async def _write(self, data: bytes) -> None:
        stdin = None if self._process is None else self._process.stdin
        if stdin is None or stdin.is_closing():
            return
        with contextlib.suppress(ConnectionError, OSError):
            stdin.write(data)
            await stdin.drain()

    async def message(self, text: str) -> None:
        await self.send(MessageLine(text=text))

    async def interrupt(self) -> None:
        await self.send(Interrupt())

    async def quit(self, timeout: float | None = None) -> int:
        """`/quit`, close stdin, wait up to `timeout` s (default QUIT_TIMEOUT), then kill.

        Returns the exit status: 0 when wisp exited cleanly, its own code when it
        failed, 1 when it died from a signal or had to be killed.
        """
        timeout = QUIT_TIMEOUT if timeout is None else timeout
        self.is_quitting = True
        if self._starting is not None:
            await self._starting  # never leave a wisp that was still starting behind
        self._drop_unadopted()
        process = self._process
        if process is None:
            return 127 if self.could_not_start else 0  # 127: the shell's "cannot run"
        await self._say_hello()  # not yet said when quitting as wisp starts
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

    def _drop_unadopted(self) -> None:
        """The app ends before its first frame: the wisp started early is never used."""
        started, self._started = self._started, None
        close_unadopted(started)

    def _post(self, message: Message) -> None:
        if not self._is_detached:
            self._target.post_message(message)

    async def kill_if_running(self) -> None:
        """The app is going away however it ended: never leave wisp running behind it.

        It is reaped too (a second at most), so its pipes are closed while the event loop
        still runs rather than by the garbage collector after it has gone. Nothing more is
        posted to the app meanwhile: its widgets are being taken down.
        """
        self._is_detached = True
        self._stop_holding()
        if self._starting is not None:
            await self._starting
        self._drop_unadopted()
        process = self._process
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(STDERR_CLOSE_TIMEOUT):
                await process.wait()
        if process.stdin is not None:
            process.stdin.close()  # the last pipe open: closed, the transport can finish
        await self._stop_readers()

    async def _stop_readers(self) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(STDERR_CLOSE_TIMEOUT):
                # The rest of stderr, waiting at most 1 s for it to close.
                await asyncio.gather(*self._readers, return_exceptions=True)
                if self._process is not None:
                    await self._process.wait()  # the pipes are closed, so this is at once
        for task in self._readers:
            task.cancel()
        await asyncio.gather(*self._readers, return_exceptions=True)

    async def _read_stdout(self, stream: asyncio.StreamReader) -> None:
        while raw := await _read_line(stream):
            if not self.has_started:
                self.has_started = True
                self._release_held()
            if (message := self._message_for(raw)) is not None:
                self._post(message)
        self._has_stdout_ended = True
        if not self.is_quitting:
            assert self._process is not None
            code = await self._process.wait()
            # Its last words first (such as why it could not start), then the news that it died.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STDERR_CLOSE_TIMEOUT):
                    await self._stderr_closed.wait()
            if not self.is_quitting:
                self.has_died = True
                self._stop_holding()
                words = tuple(self._held)
                if code != 0:
                    self._held.clear()  # shown with the error (and printed after, as it failed)
                self._post(self.Died(code, not self.has_started, words))

    async def _read_stderr(self, stream: asyncio.StreamReader) -> None:
        try:
            while raw := await _read_line(stream):
                text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                self._stderr.append(text)
                if self.is_quitting:
                    self._unshown.append(text)  # the screen is going: printed after it
                elif self._is_holding:
                    self._hold(text)
                else:
                    self._post(self.Text(text, "stderr"))
        finally:
            self._stderr_closed.set()

    def _message_for(self, raw: bytes) -> Backend.Line | Backend.Text | None:
        """A line from wisp's stdout as the app's message; None for an unknown type or an
        unreadable known one, which are skipped."""
        read = read_outbound(raw)
        if not isinstance(read, Skipped):
            return self.Line(read)
        if read.reason in ("not-json", "untyped", "too-deep") and read.text.strip():
            return self.Text(read.text, "stdout")
        return None

    def _hold(self, text: str) -> None:
        self._held.append(text)
        if self._hold_timer is None:
            loop = asyncio.get_running_loop()
            self._hold_timer = loop.call_later(HOLD_SECONDS, self._hold_expired)

    def _hold_expired(self) -> None:
        self._hold_timer = None
        if self.is_quitting or self._has_stdout_ended or self.returncode is not None:
            return  # wisp is ending: `Died`, or the printing after the screen, has the lines
        self._release_held()

    def _release_held(self) -> None:
        """wisp has started (or is slow to): its held stderr lines are notes, in order."""
        self._stop_holding()
        held, self._held = self._held, []
        for text in held:
            self._post(self.Text(text, "stderr"))

    def _stop_holding(self) -> None:
        self._is_holding = False
        if self._hold_timer is not None:
            self._hold_timer.cancel()
            self._hold_timer = None


async def _read_line(stream: asyncio.StreamReader) -> bytes:
    """The next line, or b"" at the end; an over-long line is read whole in pieces."""
    try:
        return await stream.readline()
    except ValueError:
        # A line beyond the stream limit: take what is buffered as one line rather than stop.
        return await stream.read(2**16)
