"""Running one command (docs/sandbox.md, "Running a command"): its own session and process group,
stdin ``/dev/null``, separate bounded pipes, a time limit, and stops; the whole group is killed when
it ends early, so background jobs die too.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import enum
import os
import signal
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import BinaryIO

import msgspec

MAX_BYTES = 16 * 1024 * 1024
"""The store ceiling: each stream is kept up to this many bytes."""
TERM_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL."""
SWEEP_INTERVAL = 0.01
SWEEP_SECONDS = 2.0
"""After the leader is reaped, SIGKILL the group every 10 ms for up to 2 s until it is gone."""
KILLED_WAIT_SECONDS = 10.0
"""How long ``end_group`` waits for the leader it killed to be reaped, its exit status known."""
DRAIN_SECONDS = 1.0
"""Draining the pipes after exit is bounded: a descendant that left the group may hold them."""
READ_CHUNK = 64 * 1024


class ProcessResult(msgspec.Struct, frozen=True, kw_only=True):
    """How a command ended, and what it printed (decoded as UTF-8 with replacement)."""

    exit_status: int
    """The exit code, or the negated signal number for a signal death (``-15``, ``-9``)."""
    timed_out: bool
    stopped: bool
    """The person stopped it (Ctrl-C, or an ``interrupt`` line)."""
    killed: bool
    """A second stop killed it at once, without waiting out the grace."""
    stdout: str
    stderr: str
    stdout_cut: bool
    """More than ``max_bytes`` came; the rest was read and dropped."""
    stderr_cut: bool
    seconds: float


class _Why(enum.Enum):
    EXITED = "exited"
    TIMED_OUT = "timed out"
    STOPPED = "stopped"
    KILLED = "killed"  # a stop asking for an immediate kill


async def pipe_chunks(pipe: BinaryIO) -> AsyncIterator[bytes]:
    """The pipe's bytes as they come, to its end, read on the event loop; the pipe is closed
    when this ends, however it ends (use it under ``contextlib.aclosing``)."""
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader(limit=READ_CHUNK)
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), pipe)
    try:
        while chunk := await stream.read(READ_CHUNK):
            yield chunk
    finally:
        transport.close()


class _Capture:
    """One stream, kept up to a limit; the rest is read (so the writer never blocks) and dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.is_cut = False

    async def read_all(self, pipe: BinaryIO) -> None:
        """Read the pipe to its end; the pipe is closed when this ends, however it ends."""
        async with contextlib.aclosing(pipe_chunks(pipe)) as chunks:
            async for chunk in chunks:
                room = self.limit - len(self.data)
                if len(chunk) > room:
                    self.is_cut = True
                if room > 0:
                    self.data += chunk[:room]

    def text(self) -> str:
        # A cut may split a character: hold back its incomplete tail rather than show U+FFFD.
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        return decoder.decode(self.data, final=not self.is_cut)  # no copy of up to 16 MiB


async def run_process(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str],
    timeout: float | None,
    stop: asyncio.Event | None = None,
    kill_now: asyncio.Event | None = None,
    max_bytes: int = MAX_BYTES,
    env: Mapping[str, str] | None = None,
) -> ProcessResult:
    """Run ``argv`` to its end and return how it ended.

    - ``timeout`` (None = no limit): SIGTERM to the group, SIGKILL 2 s later; ``timed_out``.
    - ``stop`` set (the first Ctrl-C or interrupt): the same; ``stopped``.
    - ``kill_now`` set (the second): SIGKILL at once; ``stopped`` and ``killed``.
    - the awaiting task cancelled: the group gets SIGTERM, then SIGKILL 2 s later, before the
      cancellation goes on.

    A command that cannot start raises ``OSError``.
    """
    started = time.monotonic()
    # Our own pipes, not asyncio's: in Python 3.11 Process.wait() returns only once every
    # pipe has closed, and a background job holding them would make an exited command (and a
    # killed one) look alive. The drain after exit is bounded separately.
    out_pipe, out_write = open_pipe()
    err_pipe, err_write = open_pipe()
    try:
        process = await start_in_group(
            argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=out_write,
            stderr=err_write,
        )
    except BaseException:
        out_pipe.close()
        err_pipe.close()
        raise
    finally:
        os.close(out_write)
        os.close(err_write)
    out, err = _Capture(max_bytes), _Capture(max_bytes)
    try:
        async with asyncio.TaskGroup() as tasks:
            readers = {
                tasks.create_task(out.read_all(out_pipe)),
                tasks.create_task(err.read_all(err_pipe)),
            }
            try:
                why = await _supervise(process, timeout, stop, kill_now)
            except asyncio.CancelledError:
                await end_group(process)
                raise
            _, pending = await asyncio.wait(readers, timeout=DRAIN_SECONDS)
            for reader in pending:
                reader.cancel()
    finally:
        out_pipe.close()  # a reader cancelled before it started never took its pipe
        err_pipe.close()
    assert process.returncode is not None
    return ProcessResult(
        exit_status=process.returncode,
        timed_out=why is _Why.TIMED_OUT,
        stopped=why in (_Why.STOPPED, _Why.KILLED),
        killed=why is _Why.KILLED,
        stdout=out.text(),
        stderr=err.text(),
        stdout_cut=out.is_cut,
        stderr_cut=err.is_cut,
        seconds=time.monotonic() - started,
    )


async def start_in_group(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str] | None,
    stdin: int,
    stdout: int,
    stderr: int,
) -> asyncio.subprocess.Process:
    """Start ``argv`` in its own session and process group, so that ``killpg`` reaches its
    background jobs too and it has no controlling terminal. Raises ``OSError`` when it cannot
    start."""
    return await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        start_new_session=True,
    )


def open_pipe() -> tuple[BinaryIO, int]:
    """A pipe: the read end as a file for the loop, the write end's fd for the child."""
    read_fd, write_fd = os.pipe()
    return open(read_fd, "rb", buffering=0), write_fd  # the caller closes both


async def _supervise(
    process: asyncio.subprocess.Process,
    timeout: float | None,
    stop: asyncio.Event | None,
    kill_now: asyncio.Event | None,
) -> _Why:
    """Wait for the exit, the time limit or a stop; end the group when it comes first."""
    exited = asyncio.ensure_future(process.wait())
    stopping = asyncio.ensure_future(stop.wait()) if stop is not None else None
    killing = asyncio.ensure_future(kill_now.wait()) if kill_now is not None else None
    watched = {exited, *(task for task in (stopping, killing) if task is not None)}
    try:
        done, _ = await asyncio.wait(watched, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if exited in done:
            return _Why.EXITED
        if killing is not None and killing in done:
            why = _Why.KILLED
        elif stopping is not None and stopping in done:
            why = _Why.STOPPED
        else:
            why = _Why.TIMED_OUT
        if why is not _Why.KILLED:
            signal_group(process.pid, signal.SIGTERM)
            # A second stop within the grace kills at once.
            waiting = {exited, *((killing,) if killing is not None else ())}
            done, _ = await asyncio.wait(
                waiting, timeout=TERM_GRACE, return_when=asyncio.FIRST_COMPLETED
            )
            if killing is not None and killing in done and exited not in done:
                why = _Why.KILLED
        if not exited.done():
            signal_group(process.pid, signal.SIGKILL)
        await exited
        await sweep_group(process.pid)
        return why
    finally:
        for task in (exited, stopping, killing):
            if task is not None and not task.done():
                task.cancel()


async def end_group(process: asyncio.subprocess.Process) -> None:
    """End the process and its whole group: SIGTERM, SIGKILL 2 s later (at once if the caller
    is cancelled meanwhile), then the sweep."""
    exited = asyncio.ensure_future(process.wait())
    try:
        signal_group(process.pid, signal.SIGTERM)
        await asyncio.wait({exited}, timeout=TERM_GRACE)
        signal_group(process.pid, signal.SIGKILL)
        # Without this wait the exit status could still be unknown on return (the child
        # watcher reaps on its own thread). SIGKILL cannot be ignored, but a process in
        # uninterruptible sleep outlives it for a while: bounded, so that never hangs the end.
        await asyncio.wait({exited}, timeout=KILLED_WAIT_SECONDS)
    finally:
        signal_group(process.pid, signal.SIGKILL)
        exited.cancel()
    await sweep_group(process.pid)


async def sweep_group(pgid: int) -> None:
    """After the leader has exited: SIGKILL the group every 10 ms for up to 2 s until ``kill``
    reports ESRCH, or until only zombies remain: orphans are reaped by init, which may take its
    time (seconds, in some containers), and a zombie is already dead."""
    deadline = time.monotonic() + SWEEP_SECONDS
    while time.monotonic() < deadline:
        if not signal_group(pgid, signal.SIGKILL) or not _has_running_members(pgid):
            return
        await asyncio.sleep(SWEEP_INTERVAL)


def _has_running_members(pgid: int, proc: str = "/proc") -> bool:
    """Whether a process of the group still runs (is not a zombie). True when ``/proc`` cannot
    tell, so the sweep falls back to waiting for ESRCH."""
    try:
        pids = [entry.name for entry in os.scandir(proc) if entry.name.isdigit()]
    except OSError:
        return True
    for pid in pids:
        try:
            with open(f"{proc}/{pid}/stat", "rb") as file:
                text = file.read()
        except OSError:
            continue  # gone meanwhile
        # The name is in parentheses and may hold anything: the fields follow the last ")".
        fields = text[text.rfind(b")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def signal_group(pgid: int, signum: int) -> bool:
    """Signal the process group; False once it is gone (ESRCH)."""
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        return False
    except PermissionError:
        # A member we may not signal (it changed its credentials); the others still were.
        return True
    return True
