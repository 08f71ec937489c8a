"""``wisp draft --edit``: the person's editor opened on the draft before it is printed, as git
opens one on a commit message: ``$VISUAL``, else ``$EDITOR``, else ``vi``, run by the shell with
the file's path after it, on the terminal (``/dev/tty``) even when stdout is a pipe."""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from wisp.draft.tasks import DraftError

FILE_NAMES = {"commit": "COMMIT_EDITMSG"}
"""The file a task's draft is edited in, named as editors know it (Vim colours a commit
message by this name); any other is ``<task>.txt``."""


def edited(text: str, task: str, environ: Mapping[str, str], stderr: IO[str]) -> str:
    """``text`` as the person saved it in their editor; a ``DraftError`` when the editor
    failed or the draft was emptied."""
    editor = environ.get("VISUAL") or environ.get("EDITOR") or "vi"
    with tempfile.TemporaryDirectory(prefix="wisp-draft-") as folder:
        path = Path(folder) / FILE_NAMES.get(task, f"{task}.txt")
        path.write_text(text)
        with _terminal(stderr) as (stdin, stdout):
            done = subprocess.run(
                ["/bin/sh", "-c", f'{editor} "$@"', editor, str(path)],
                stdin=stdin,
                stdout=stdout,
                env=dict(environ),
                check=False,
            )
        if done.returncode != 0:
            raise DraftError(
                f"the editor ({editor}) exited with {done.returncode}: nothing printed"
            )
        text = path.read_text(errors="replace")
    if not text.strip():
        raise DraftError("the draft was emptied in the editor: nothing printed")
    return text if text.endswith("\n") else text + "\n"


@contextlib.contextmanager
def _terminal(stderr: IO[str]) -> Iterator[tuple[Any, Any]]:
    """The editor's stdin and stdout: the terminal, so that stdout (a pipe to git) gets the
    draft alone; with none, no input and stderr for what it prints."""
    try:
        tty = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        yield subprocess.DEVNULL, _descriptor(stderr)
        return
    try:
        yield tty, tty
    finally:
        os.close(tty)


def _descriptor(stream: IO[str]) -> Any:
    """The stream's file descriptor, flushed first; nowhere for one that has none."""
    try:
        stream.flush()
        return stream.fileno()
    except (OSError, ValueError):  # a test's StringIO
        return subprocess.DEVNULL
