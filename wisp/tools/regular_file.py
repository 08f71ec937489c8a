"""Opening a file a confined command may have turned into something else since it was looked at
(docs/sandbox.md, "Threat model"): a FIFO would block the read until a writer came, and a turn
stopped meanwhile would leave a worker thread blocked that keeps wisp from exiting; a device may
never end. So a file is opened without blocking, judged by its descriptor (``fstat``), never by
its path, and read only when that descriptor is of a regular file."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from wisp.tools.beneath import open_beneath

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFile(Exception):
    """What was opened is not a regular file; ``what`` names it (``a FIFO``)."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


def open_regular(path: Path | str, *, folder: int | None = None) -> BinaryIO:
    """``path`` open for reading, blocking as usual, if it is a regular file; ``NotRegularFile``
    when it is anything else, ``OSError`` when it cannot be opened. The open itself never
    waits: ``O_NONBLOCK`` returns at once even for a FIFO with no writer, and ``O_NOCTTY`` keeps
    a terminal from becoming wisp's. With ``folder`` (a folder's descriptor), ``path`` is opened
    beneath it with no symbolic link followed: ``SwapRefused`` when one stands on the way."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    if folder is None:
        descriptor = os.open(path, flags)
    else:
        descriptor = open_beneath(folder, os.fspath(path), flags)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(_kind(mode))
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def _kind(mode: int) -> str:
    return next((name for is_kind, name in _KINDS if is_kind(mode)), "not a regular file")
