"""Starting `wisp chat --json` (docs/tui.md, "Process and start-up").

`wisp-tui` starts wisp before it imports anything else it can do without: so this module
imports the standard library's lightest parts only (not asyncio, which alone takes longer than
the spawn), and wisp's Python start and imports begin on the other core at once, while
Textual's run here. `wisp_tui.process` then adopts the started process into asyncio.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from wisp_tui.programs import find_program, writable_folders

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
