"""Starting `wisp chat --json`, and the asyncio face of the started process (docs/tui.md,
"Process and start-up").

`wisp-tui` starts wisp before it imports Textual, so that wisp's Python start and imports run
on the other core while Textual's run here; the app then adopts that process. So this module
imports only the standard library (and `programs`, which does too). The Pilot tests build the
app without a process started beforehand: the backend starts one the same way and adopts it.

Waiting for wisp's exit takes no thread: on Linux a pidfd becomes readable when the process
ends; elsewhere a task looks every EXIT_POLL seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from wisp_tui.programs import find_program, writable_folders

LINE_LIMIT = 2**24
"""An event line carries up to 16 KiB of output, escaped: the readers' line limit."""

EXIT_POLL = 0.02
"""Seconds between looks at whether wisp has exited, where there is no pidfd."""

NO_WISP = (
    "cannot run wisp: there is none beside this Python, nor on PATH outside the folders "
    "commands may write to (the working directory, /tmp, the cache); set WISP_BIN to its path"
)


def wisp_command(env: Mapping[str, str] | None = None, cwd: str | None = None) -> str | None:
    """`$WISP_BIN`, else the `wisp` script beside this Python, else `wisp` on PATH outside the
    sandbox's writable roots (issue 12); None when there is none of these."""
    env = os.environ if env is None else env
    if bin_ := env.get("WISP_BIN"):
        return bin_
    beside = Path(sys.executable).parent / "wisp"
    if beside.exists():
        return str(beside)
    return find_program("wisp", env, writable_folders(env, cwd or os.getcwd()))


def start(
    argv: Sequence[str],
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> subprocess.Popen[bytes]:
    """Start `argv` with three pipes; OSError when it cannot be run."""
    return subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=None if env is None else dict(env),
        cwd=cwd,
        # The terminal's Ctrl-C is ours to turn into `interrupt`, never SIGINT.
        start_new_session=True,
    )


def start_early(args: Sequence[str]) -> subprocess.Popen[bytes] | None:
    """`wisp chat --json ARGS` as `wisp-tui` runs it, before Textual is imported; None when
    there is no wisp or it cannot be run (the app then tries again, and says why)."""
    program = wisp_command()
    if program is None:
        return None
    try:
        return start([program, "chat", "--json", *args])
    except OSError:
        return None


class Adopted:
    """A started process as the backend uses it: asyncio streams on its pipes, and its exit."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
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


async def adopt(popen: subprocess.Popen[bytes]) -> Adopted:
    """asyncio streams on a started process's pipes, the way `create_subprocess_exec` makes
    them, and a task that learns of its exit."""
    assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
    loop = asyncio.get_running_loop()
    readers = []
    for pipe in (popen.stdout, popen.stderr):
        reader = asyncio.StreamReader(limit=LINE_LIMIT, loop=loop)
        protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
        await loop.connect_read_pipe(lambda protocol=protocol: protocol, pipe)
        readers.append(reader)
    transport, flow = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(loop=loop), popen.stdin
    )
    writer = asyncio.StreamWriter(transport, flow, None, loop)
    return Adopted(popen, writer, *readers)


def close_unadopted(popen: subprocess.Popen[bytes] | None) -> None:
    """A process started early that the app never took (it failed to start): not left behind."""
    if popen is None or popen.returncode is not None:
        return
    with contextlib.suppress(OSError):
        popen.kill()
    popen.wait()
    for pipe in (popen.stdin, popen.stdout, popen.stderr):
        if pipe is not None:
            pipe.close()
