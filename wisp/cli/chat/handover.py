"""The hand-off: `wisp chat` on a terminal runs the full-screen front end instead.

The front end (`wisp-tui`, or the program `WISP_TUI` names) is found beside this `wisp` script,
in the same `bin` folder, and replaces this process with the chat arguments as typed and
`WISP_BIN` naming this script, so it runs the same wisp as `wisp chat --json`.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from wisp.cli.building.own_programs import find_program
from wisp.sandbox.writable import WritableSet

FRONT_END = "wisp-tui"


def own_script() -> Path | None:
    """The `wisp` script this process runs as: the one the front end should start."""
    started_as = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    # `python -m wisp` starts as wisp/__main__.py and a test runner as itself: neither is a wisp
    # to hand on, so only a script named like ours counts; else the one beside this Python.
    if started_as is not None and started_as.name.startswith("wisp") and _is_program(started_as):
        return started_as.absolute()
    beside = Path(sys.executable).parent / "wisp"
    return beside if _is_program(beside) else None


def find_front_end(
    environ: Mapping[str, str], script: Path | None, writable: WritableSet | None = None
) -> str | None:
    """`WISP_TUI` (a path, or a name on PATH), else `wisp-tui` beside the script; None if none.

    A name is never found in a folder of ``writable``: an activated ``.venv/bin``
    in the working directory comes first on PATH, and commands may write there."""
    if named := environ.get("WISP_TUI"):
        if os.sep in named or writable is None:
            return shutil.which(named, path=environ.get("PATH", os.defpath))
        return find_program(named, writable, environ.get("PATH", os.defpath))
    folders = [script.parent] if script is not None else []
    folders.append(Path(sys.executable).parent)  # a symlinked `wisp` keeps its venv's bin
    for folder in dict.fromkeys(folders):
        candidate = folder / FRONT_END
        if _is_program(candidate):
            return str(candidate)
    return None


def hand_over(
    front_end: str, words: Sequence[str], environ: Mapping[str, str], script: Path | None
) -> None:
    """Replace this process with the front end; returns only if it could not be started."""
    env = dict(environ)
    if script is not None:
        env["WISP_BIN"] = str(script)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(front_end, [front_end, *words], env)  # raises OSError when it cannot run


def on_a_terminal() -> bool:
    """Both ends are a person's terminal: stdin is typed on and stdout is seen."""
    return _is_tty(sys.stdin) and _is_tty(sys.stdout)


def _is_tty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _is_program(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)
