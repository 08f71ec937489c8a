"""HANG: the one bound on every wait in the tests, and a wait for processes that uses it.

A test waits on progress (a line, a file, a process's exit, a condition), never for a time it
expects things to take: how long something takes is measured in bench/, against a baseline
taken in the same run. This bound only turns a hang into a failure, so it is minutes, far past
anything a slow or busy machine needs.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HANG = 300.0
"""Seconds without the awaited progress after which a test gives up and fails."""


def wait_while_progressing(
    processes: Sequence[subprocess.Popen[Any]], progress: Callable[[], object]
) -> list[int]:
    """Every process's exit status, however long they take while `progress()` keeps changing;
    they are killed, and the test fails, once it has stayed the same for HANG seconds."""
    seen, since = progress(), time.monotonic()
    for process in processes:
        while process.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=0.5)
            if (now := progress()) != seen:
                seen, since = now, time.monotonic()
            elif time.monotonic() - since > HANG:
                for each in processes:
                    each.kill()
                raise AssertionError(f"no progress for {HANG:.0f} s (still at {now!r})")
    return [process.returncode for process in processes]


def bytes_under(folder: Path) -> int:
    """The size of every file under `folder`: a measure of progress for writers into it."""
    total = 0
    for path in folder.rglob("*"):
        with contextlib.suppress(FileNotFoundError):  # rotated away meanwhile
            total += path.stat().st_size
    return total
