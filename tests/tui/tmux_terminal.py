"""A real terminal for tests: one program in a detached tmux session, read off the screen.

Each `TmuxTerminal` runs on its own tmux server (`-L`), so it never touches anyone else's
sessions, and the server is always killed. Waiting is driven by the pane's own output: tmux pipes
everything the program draws into a FIFO, and a wait blocks on that FIFO until something is drawn,
then reads the screen again. The program starts only once the pipe is in place, so no output is
missed, and when it ends the pane keeps the screen and a last `EXIT=<status>` line.
"""

from __future__ import annotations

import os
import select
import shlex
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType

from tests.hang import HANG

WAKE_AT_LEAST_EVERY = 0.25
"""Seconds a wait blocks on the pipe before it reads the screen anyway (a resize, say, draws
nothing the pipe would see)."""


class TmuxTerminal:
    """`command` in a `width`×`height` tmux pane, with `env` and `cwd`."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: Path,
        folder: Path,
        width: int = 120,
        height: int = 40,
    ) -> None:
        self.name = f"wisp-tui-{uuid.uuid4().hex[:8]}"
        self._fifo = folder / f"{self.name}.pipe"
        self._command = command
        self._env = env
        self._cwd = cwd
        self._size = (width, height)
        self._reader = -1

    def __enter__(self) -> TmuxTerminal:
        os.mkfifo(self._fifo)
        # Read and write: the FIFO then never reports end-of-file between tmux's writes.
        self._reader = os.open(self._fifo, os.O_RDWR | os.O_NONBLOCK)
        # COLUMNS and LINES are dropped: under pytest they reach the pane as 80×24, and Textual
        # would believe them over the terminal's real size.
        settings = [f"{key}={value}" for key, value in self._env.items()]
        program = shlex.join(["env", "-u", "COLUMNS", "-u", "LINES", *settings, *self._command])
        inner = (
            f"tmux -L {self.name} wait-for go; {program}; echo EXIT=$?; "
            f"tmux -L {self.name} wait-for -S ended; exec cat"
        )
        width, height = self._size
        # No user config (-f /dev/null): the size and the keys are tmux's defaults.
        self.tmux(
            "-f", "/dev/null", "new-session", "-d", "-s", self.name,
            "-x", str(width), "-y", str(height), "-c", str(self._cwd), "sh", "-c", inner,
        )  # fmt: skip
        self.tmux("pipe-pane", "-t", self.name, f"cat > {shlex.quote(str(self._fifo))}")
        self.tmux("wait-for", "-S", "go")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.tmux("kill-server", check=False)
        os.close(self._reader)
        self._fifo.unlink(missing_ok=True)
        socket_folder = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (socket_folder / self.name).unlink(missing_ok=True)

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.name, *args], capture_output=True, text=True, check=check,
            timeout=HANG,
        )  # fmt: skip

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name, check=False).stdout

    def lines(self) -> list[str]:
        return [line.strip() for line in self.screen().splitlines()]

    def pane(self, field: str) -> str:
        """A tmux format field of the pane, e.g. `alternate_on`."""
        return self.tmux("display-message", "-p", "-t", self.name, f"#{{{field}}}").stdout.strip()

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.name, "-l", text)

    def press(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def descendant_pid(self, name: str) -> int:
        """The pid of a process under the pane whose command line contains `name`, however
        deep, and in whatever session (wisp-tui starts wisp in a session of its own)."""
        children: dict[int, list[int]] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended meanwhile
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        waiting = [int(self.pane("pane_pid"))]
        while waiting:
            pid = waiting.pop()
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if name.encode() in command:
                return pid
            waiting.extend(children.get(pid, []))
        raise AssertionError(f"no process matching {name!r} under the pane")

    def wait_until(self, condition: Callable[[str], bool], what: str) -> None:
        """Block until `condition(screen)` holds, however long the drawing takes; fail only at
        a hang (HANG seconds), showing the screen."""
        if not self.holds_within(condition, HANG):
            raise AssertionError(f"waited {HANG:.0f} s for {what}:\n{self.screen()}")

    def holds_within(self, condition: Callable[[str], bool], seconds: float) -> bool:
        """Whether `condition(screen)` holds within `seconds`: for a test that tries again when
        it does not (a guess that costs only time), never for a failure."""
        deadline = time.monotonic() + seconds
        while not condition(self.screen()):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._wait_for_drawing(min(left, WAKE_AT_LEAST_EVERY))
        return True

    def wait_for_exit(self, timeout: float = HANG) -> int:
        """Block until the program has ended; its exit status."""
        self._wait_ended(timeout)
        status = [line for line in self.lines() if line.startswith("EXIT=")]
        return int(status[-1].removeprefix("EXIT="))

    def stay_quiet(self, seconds: float) -> None:
        """Send nothing for `seconds`: the keyboard quiet a dialog waits for is the behaviour
        under test here, so this is a deadline, not a synchronisation."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self._wait_for_drawing(left)

    def _wait_ended(self, timeout: float) -> None:
        try:
            subprocess.run(
                ["tmux", "-L", self.name, "wait-for", "ended"], check=True, timeout=timeout
            )
        except subprocess.TimeoutExpired as exc:
            raise AssertionError(
                f"the program did not end within {timeout} s:\n{self.screen()}"
            ) from exc

    def _wait_for_drawing(self, seconds: float) -> None:
        readable, _, _ = select.select([self._reader], [], [], seconds)
        if readable:
            while True:
                try:
                    if not os.read(self._reader, 65536):
                        break
                except BlockingIOError:
                    break
