"""Starting `wisp chat --json` (docs/tui.md, "Process and start-up").

`wisp-tui` starts wisp before it imports anything else: its Python start and imports then run
on the other core while Textual's run here. So the early start (`start_early`) imports nothing
but `os` and `sys`, which every Python has loaded already: it spawns with `os.posix_spawn`,
not `subprocess`, whose imports (threading, selectors, signal…) alone put the spawn some 30 ms
later. `wisp_tui.process` then adopts the started process into asyncio. A wisp started later,
by the app itself (the Pilot tests; or when the early start failed), goes through `start`,
with `subprocess` and a working directory of its own.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # `typing` is not imported before the spawn
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Mapping, Sequence
    from typing import BinaryIO, TypeAlias

NO_WISP = (
    "cannot run wisp: there is none beside this Python, nor on PATH outside the folders "
    "commands may write to (the working directory, /tmp, the cache); set WISP_BIN to its path"
)


class Started:
    """A process started early with its standard streams on pipes: the part of
    `subprocess.Popen` the app uses (`pid`, the three pipes, `poll`, `wait`, `kill`)."""

    def __init__(self, pid: int, stdin: int, stdout: int, stderr: int) -> None:
        self.pid = pid
        self.stdin: BinaryIO = open(stdin, "wb", buffering=0)  # noqa: SIM115 (adopted later)
        self.stdout: BinaryIO = open(stdout, "rb", buffering=0)  # noqa: SIM115
        self.stderr: BinaryIO = open(stderr, "rb", buffering=0)  # noqa: SIM115
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        """SIGKILL, unless it has been reaped (its pid may be someone else's by then)."""
        if self.returncode is None:
            import signal

            os.kill(self.pid, signal.SIGKILL)


Spawned: TypeAlias = "subprocess.Popen[bytes] | Started"
"""wisp as the app adopts it: started early (`Started`) or by the app (`subprocess.Popen`)."""


def wisp_command(env: Mapping[str, str] | None = None, cwd: str | None = None) -> str | None:
    """`$WISP_BIN`, else the `wisp` script beside this Python, else `wisp` on PATH outside the
    sandbox's writable roots; None when there is none of these."""
    env = os.environ if env is None else env
    if bin_ := env.get("WISP_BIN"):
        return bin_
    beside = os.path.join(os.path.dirname(sys.executable), "wisp")
    if os.path.exists(beside):
        return beside
    from wisp_tui.programs import find_program, writable_folders

    return find_program("wisp", env, writable_folders(env, cwd or os.getcwd()))


def start(
    argv: Sequence[str],
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> subprocess.Popen[bytes]:
    """Start `argv` with three pipes; OSError when it cannot be run."""
    import subprocess

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


def start_early(args: Sequence[str]) -> Started | None:
    """`wisp chat --json ARGS` as `wisp-tui` runs it, before Textual is imported; None when
    there is no wisp or it cannot be run (the app then tries again, and says why)."""
    program = wisp_command()
    if program is None:
        return None
    try:
        return _spawn([program, "chat", "--json", *args])
    except (OSError, NotImplementedError):  # NotImplementedError: no POSIX_SPAWN_SETSID here
        return None


def _spawn(argv: list[str]) -> Started:
    """`argv` started as `start` starts it (three pipes, a session of its own, this
    environment and directory), through `os.posix_spawnp`. Pipes are made close-on-exec: the
    child gets only its own three ends, as 0, 1 and 2."""
    ends = [os.pipe() for _ in range(3)]  # stdin, stdout, stderr: (read, write) each
    theirs = (ends[0][0], ends[1][1], ends[2][1])
    ours = (ends[0][1], ends[1][0], ends[2][0])
    try:
        pid = os.posix_spawnp(
            argv[0],
            argv,
            os.environ,
            file_actions=[(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(theirs)],
            setsid=True,  # the terminal's Ctrl-C is ours to turn into `interrupt`, never SIGINT
        )
    except BaseException:
        for fd in (*theirs, *ours):
            os.close(fd)
        raise
    for fd in theirs:
        os.close(fd)
    return Started(pid, *ours)


def close_unadopted(started: Spawned | None) -> None:
    """A process started early that the app never took (it failed to start): not left behind."""
    if started is None or started.returncode is not None:
        return
    try:  # noqa: SIM105 (contextlib is not imported before the spawn)
        started.kill()
    except OSError:
        pass  # it has ended meanwhile
    started.wait()
    for pipe in (started.stdin, started.stdout, started.stderr):
        if pipe is not None:
            pipe.close()
