"""run_process (docs/sandbox.md, "Running a command"): its own group, time limits, stops,
cancellation, bounded output.

Each test checks how a command ended, never how soon: a slow machine makes a stop land later, not
differently. How soon is measured by bench/command_stops.py. Where a lower bound on the seconds is
checked, it is the 2 s grace between SIGTERM and SIGKILL, which a slow machine only lengthens.
"""

from __future__ import annotations

import asyncio
import errno
import os
from pathlib import Path

import pytest

from tests.hang import HANG
from wisp.sandbox.process import DRAIN_SECONDS, TERM_GRACE, run_process


def is_alive(pid: int) -> bool:
    """Whether ``pid`` still runs: a zombie waiting for its reaper has already died."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


async def wait_for_file(path: Path) -> str:
    async with asyncio.timeout(HANG):
        while not path.exists() or not path.read_text().endswith("\n"):
            await asyncio.sleep(0.01)
    return path.read_text()


async def sh(line: str, tmp_path: Path, **kwargs) -> object:
    return await run_process(["/bin/sh", "-c", line], cwd=tmp_path, **kwargs)


async def test_exit_status_and_separate_streams(tmp_path: Path) -> None:
    result = await sh("echo out; echo err >&2; exit 3", tmp_path, timeout=HANG)
    assert (result.exit_status, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert not (result.timed_out or result.stopped or result.killed)


async def test_stdin_is_dev_null(tmp_path: Path) -> None:
    result = await sh("cat; readlink /proc/self/fd/0", tmp_path, timeout=HANG)
    assert result.stdout == "/dev/null\n"


async def test_the_command_leads_its_own_session(tmp_path: Path) -> None:
    result = await sh(
        'test "$(cut -d" " -f6 /proc/$$/stat)" = $$ && echo leader', tmp_path, timeout=HANG
    )
    assert result.stdout == "leader\n"


async def test_a_timeout_ends_a_command_with_sigterm(tmp_path: Path) -> None:
    result = await sh("sleep 100", tmp_path, timeout=1)
    assert result.timed_out
    assert result.exit_status == -15


async def test_a_timeout_kills_background_children(tmp_path: Path) -> None:
    result = await sh("sleep 100 & echo $!; sleep 100", tmp_path, timeout=1)
    assert result.timed_out
    assert not is_alive(int(result.stdout))


async def test_children_that_ignore_sigterm_get_sigkill_after_the_grace(tmp_path: Path) -> None:
    result = await sh("trap '' TERM; sleep 100 & echo $!; sleep 100", tmp_path, timeout=0.5)
    assert result.timed_out
    assert result.exit_status == -9
    assert result.seconds >= 0.5 + TERM_GRACE - 0.1  # the grace was given
    assert not is_alive(int(result.stdout))


async def test_a_stop_sends_sigterm(tmp_path: Path) -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(0.3, stop.set)
    result = await sh("sleep 100", tmp_path, timeout=None, stop=stop)
    assert (result.stopped, result.killed, result.timed_out) == (True, False, False)
    assert result.exit_status == -15


async def test_a_second_stop_kills_at_once(tmp_path: Path) -> None:
    # `killed` says the second stop's SIGKILL ended it, not the one after the grace.
    stop, kill_now = asyncio.Event(), asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.call_later(0.3, stop.set)
    loop.call_later(0.6, kill_now.set)
    result = await sh(
        "trap '' TERM; sleep 100", tmp_path, timeout=None, stop=stop, kill_now=kill_now
    )
    assert (result.stopped, result.killed) == (True, True)
    assert result.exit_status == -9


async def test_a_stop_that_is_ignored_ends_in_sigkill_after_the_grace(tmp_path: Path) -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(0.3, stop.set)
    result = await sh("trap '' TERM; sleep 100", tmp_path, timeout=None, stop=stop)
    assert (result.stopped, result.killed, result.exit_status) == (True, False, -9)
    assert result.seconds >= 0.3 + TERM_GRACE - 0.1  # the grace was given


async def test_cancelling_the_caller_kills_the_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    line = f"sleep 100 & echo $! $$ > {pid_file}; sleep 100"
    task = asyncio.ensure_future(sh(line, tmp_path, timeout=None))
    pids = [int(pid) for pid in (await wait_for_file(pid_file)).split()]
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not any(is_alive(pid) for pid in pids)


async def test_output_over_the_limit_is_cut(tmp_path: Path) -> None:
    result = await sh(
        "head -c 100000 /dev/zero | tr '\\0' a; echo short >&2",
        tmp_path,
        timeout=HANG,
        max_bytes=1000,
    )
    assert (len(result.stdout), result.stdout_cut) == (1000, True)
    assert (result.stderr, result.stderr_cut) == ("short\n", False)


async def test_a_cut_does_not_split_a_character(tmp_path: Path) -> None:
    result = await sh("printf 'aé'", tmp_path, timeout=HANG, max_bytes=2)
    assert (result.stdout, result.stdout_cut) == ("a", True)


async def test_invalid_utf8_is_replaced(tmp_path: Path) -> None:
    result = await sh("printf 'a\\377b'", tmp_path, timeout=HANG)
    assert result.stdout == "a\ufffdb"


async def test_draining_is_bounded_when_a_child_holds_the_pipes(tmp_path: Path) -> None:
    # The child holds stdout and stderr until the test lets it go, after run_process returns:
    # an unbounded drain would wait for it, and the test would fail at HANG.
    release = tmp_path / "release"
    os.mkfifo(release)
    line = f"(setsid sh -c 'read _ < {release}' &) ; echo done"
    try:
        result = await sh(line, tmp_path, timeout=HANG)
        assert (result.exit_status, result.stdout) == (0, "done\n")
        assert result.seconds >= DRAIN_SECONDS - 0.1  # it did wait for the rest, for a while
    finally:
        await let_go(release)


async def let_go(fifo: Path) -> None:
    """Open `fifo` for writing once its reader is there, and close it: the reader ends."""
    async with asyncio.timeout(HANG):
        while True:
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                return
            except OSError as error:
                if error.errno != errno.ENXIO:  # ENXIO: no reader yet
                    raise
            await asyncio.sleep(0.01)


async def test_a_missing_program_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        await run_process(["/nonexistent/program"], cwd=tmp_path, timeout=HANG)
