"""Finding and reading guidance files (docs/turn.md, "Guidance files").

A guidance file is an ``AGENTS.md`` in the working folder or in one of its parents up to the
repository's root. A confined command may write the working folder, so a file is read as
``read_file`` reads one, and more strictly: the folder walked again from ``/`` with no
symbolic link followed, the file opened beneath it with none either (an ``AGENTS.md`` that is a
link is left out: it could point anywhere), judged by its descriptor (a regular file, never in
``WISP_HOME``), and read once, at most ``MAX_BYTES``. The bytes read are the bytes hashed,
shown and used: nothing reads the path again.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import msgspec

from wisp.tools.beneath import SwapRefused, open_root
from wisp.tools.home_guard import is_within, opened_inside_home
from wisp.tools.regular_file import NotRegularFile, open_regular

NAME = "AGENTS.md"
"""The one name read: Codex's, OpenCode's, Goose's and Zed's. Claude Code's ``CLAUDE.md`` is
not read: a project that keeps both most often keeps one a copy of the other, and reading
both would send the same words twice."""
MAX_BYTES = 32 * 1024
"""A larger file is left out whole: the person must see all of what the model would get."""


class GuidanceFile(msgspec.Struct, frozen=True):
    """A guidance file as read, once."""

    path: str
    """Its real path: the folder's real path and the name."""
    data: bytes
    """Every byte of it."""
    sha256: str

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def text(self) -> str:
        """The bytes as text (bytes that are not UTF-8 become U+FFFD): what is shown is what is
        used."""
        return self.data.decode("utf-8", errors="replace")


class LeftOut(msgspec.Struct, frozen=True):
    """A guidance file that is not used, and why (``not accepted yet``, ``too large …``)."""

    path: str
    reason: str


def folders(working_directory: Path) -> list[Path]:
    """The folders whose ``AGENTS.md`` count, outermost first so that nearer guidance comes
    last: the working folder's real path and its parents up to the one holding ``.git``, or
    the working folder alone when none does (no repository)."""
    real = Path(os.path.realpath(working_directory))
    chain: list[Path] = []
    for folder in (real, *real.parents):
        chain.append(folder)
        if os.path.lexists(folder / ".git"):
            return list(reversed(chain))
    return [real]


def read_file(folder: Path, home: Path) -> GuidanceFile | LeftOut | None:
    """``folder``'s ``AGENTS.md``, read once; ``LeftOut`` saying why it cannot be used, or None
    when there is none."""
    path = str(folder / NAME)
    if is_within(path, os.path.realpath(home)):
        return LeftOut(path, "inside WISP_HOME")
    try:
        root = open_root(str(folder))
    except (OSError, SwapRefused):
        return None  # the folder went away or changed: nothing there to use
    try:
        return _read_beneath(root, path, home)
    finally:
        os.close(root)


def _read_beneath(root: int, path: str, home: Path) -> GuidanceFile | LeftOut | None:
    try:
        with open_regular(NAME, folder=root) as file:
            if opened_inside_home(file.fileno(), home):
                return LeftOut(path, "inside WISP_HOME")
            data = file.read(MAX_BYTES + 1)
    except NotRegularFile as exc:
        return LeftOut(path, f"not a regular file ({exc.what})")
    except SwapRefused:
        return LeftOut(path, "a symbolic link (it could point anywhere)")
    except FileNotFoundError:
        return None
    except OSError as exc:
        return LeftOut(path, f"cannot be read: {exc.strerror or exc}")
    if len(data) > MAX_BYTES:
        return LeftOut(path, f"too large (more than {MAX_BYTES // 1024} KiB)")
    return GuidanceFile(path, data, hashlib.sha256(data).hexdigest())


def found(working_directory: Path, home: Path) -> list[GuidanceFile | LeftOut]:
    """Every guidance file the working folder has, outermost first, read once."""
    files = (read_file(folder, home) for folder in folders(working_directory))
    return [file for file in files if file is not None]
