"""``WISP_HOME`` is wisp's, never the model's: the check ``read_file`` and ``edit_file`` share,
as the sandbox keeps it from commands (docs/sandbox.md, "Threat model"). Its config, approvals,
audit log and history are judged by real path, so no symbolic link leads the model in."""

from __future__ import annotations

import os
from pathlib import Path

from wisp.tools.beneath import real_path_of


def is_within(path: str, folder: str) -> bool:
    """Whether real ``path`` is real ``folder`` or lies beneath it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def opened_inside_home(fd: int, home: Path) -> bool:
    """Whether the file open as ``fd`` is in ``home``: the path checked before the open may
    have been swapped for a link since. Linux names it in ``/proc/self/fd``; elsewhere the
    check before the open stands alone."""
    try:
        opened = real_path_of(fd)
    except OSError:
        return False
    return is_within(opened, os.path.realpath(home))
