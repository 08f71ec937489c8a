"""Opening a path beneath a folder's descriptor with no symbolic link followed (docs/sandbox.md,
"Threat model"): what ``read_file`` and ``edit_file`` read and write through.

A tool resolves a path once (``realpath``) and judges the real path; a confined command may swap a
folder on that path for a symbolic link a moment later (``renameat2(RENAME_EXCHANGE)`` in a loop),
and a second walk by the path string would follow it, into ``WISP_HOME`` or out of the writable
roots. So the real path is walked again from a folder's descriptor, and a link met on the way
means the path changed since it was judged: ``SwapRefused``. The kernel's ``openat2`` walks it in
one call (``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS``); where it is missing
(``ENOSYS``, before Linux 5.6) or filtered (``EPERM``, a seccomp profile), one ``O_NOFOLLOW`` open
per component does the same.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import stat
from pathlib import PurePosixPath
from typing import Any

SYS_OPENAT2 = 437
"""``openat2``'s number, the same on every architecture (the unified table since Linux 5.6)."""
RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08
RESOLVE = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS

FOLDER_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC
"""A folder held only to walk and act beneath it: never read, so any folder can be held."""


class SwapRefused(Exception):
    """A symbolic link (or ``..``) met beneath the folder: the path changed after it was judged."""


class _OpenHow(ctypes.Structure):
    _fields_ = (
        ("flags", ctypes.c_uint64),
        ("mode", ctypes.c_uint64),
        ("resolve", ctypes.c_uint64),
    )


def resolved(path: str | os.PathLike[str]) -> str:
    """``os.path.realpath``, where a link swapped out between its ``lstat`` and its ``readlink``
    (``EINVAL``: the path changed while it was resolved) is ``SwapRefused`` too."""
    try:
        return os.path.realpath(path)
    except OSError as exc:
        raise SwapRefused(f"{os.fspath(path)} changed while it was resolved") from exc


def open_root(path: str) -> int:
    """A descriptor of the real folder ``path`` (``FOLDER_FLAGS``), itself opened beneath ``/``
    with no link followed: a canonical path has none, so one met there is a swap too."""
    slash = os.open("/", FOLDER_FLAGS)
    rest = path.strip("/")
    if not rest:
        return slash
    try:
        return open_beneath(slash, rest, FOLDER_FLAGS)
    finally:
        os.close(slash)


def open_beneath(folder: int, rest: str, flags: int, mode: int = 0, *, walk: bool = False) -> int:
    """``rest`` (relative, no ``..``) opened beneath the folder open as ``folder`` with ``flags``
    (``O_NOFOLLOW`` added); ``SwapRefused`` when a symbolic link stands anywhere on the way,
    ``OSError`` as ``open`` raises it otherwise. ``walk`` forces the walk by components (what runs
    where ``openat2`` cannot: the tests use it to hold that path too)."""
    parts = _parts(rest)
    flags |= os.O_NOFOLLOW | os.O_CLOEXEC
    opened = None if walk else _openat2(folder, "/".join(parts) or ".", flags, mode)
    if opened is None:
        opened = _walk(folder, parts, flags, mode)
    if flags & os.O_PATH and stat.S_ISLNK(os.fstat(opened).st_mode):
        # O_PATH | O_NOFOLLOW opens a link at the end itself instead of failing.
        os.close(opened)
        raise SwapRefused(f"{rest} is a symbolic link")
    return opened


def make_folders_beneath(folder: int, rest: str, *, walk: bool = False) -> int:
    """The folder ``rest`` beneath ``folder``, its missing components made (as ``mkdir -p``
    makes them, ``0777`` less the umask), opened with ``FOLDER_FLAGS``; ``SwapRefused`` as for
    ``open_beneath``. ``mkdirat`` follows no link: a link in the way is met by the open after."""
    current = os.dup(folder)
    try:
        for part in _parts(rest):
            try:
                inner = open_beneath(current, part, FOLDER_FLAGS, walk=walk)
            except FileNotFoundError:
                # Made meanwhile (by another writer, or as a link) is no failure here.
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=current)
                inner = open_beneath(current, part, FOLDER_FLAGS, walk=walk)
            os.close(current)
            current = inner
        return current
    except BaseException:
        os.close(current)
        raise


def real_path_of(descriptor: int) -> str:
    """Where the file or folder open as ``descriptor`` is now, as Linux names it."""
    return os.readlink(f"/proc/self/fd/{descriptor}")


def _parts(rest: str) -> list[str]:
    parts = [part for part in PurePosixPath(rest).parts if part not in ("/", ".")]
    if ".." in parts or PurePosixPath(rest).is_absolute():
        raise SwapRefused(f"{rest} leads out of its folder")
    return parts


def _openat2(folder: int, rest: str, flags: int, mode: int) -> int | None:
    """The descriptor, or None where the walk must answer: the kernel offers no ``openat2`` (or
    a filter refuses it)."""
    how = _OpenHow(flags, mode if flags & os.O_CREAT else 0, RESOLVE)
    result = _syscall()(
        ctypes.c_long(SYS_OPENAT2),
        ctypes.c_int(folder),
        ctypes.c_char_p(os.fsencode(rest)),
        ctypes.byref(how),
        ctypes.c_size_t(ctypes.sizeof(how)),
    )
    if result >= 0:
        return int(result)
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EPERM, errno.ENOTDIR):
        # ENOTDIR: a file, or (O_DIRECTORY | O_NOFOLLOW) a link at the end: the walk tells which.
        return None
    if code in (errno.ELOOP, errno.EXDEV):  # a link on the way; a way out of the folder
        raise SwapRefused(f"a symbolic link stands on the way to {rest}")
    raise OSError(code, os.strerror(code), rest)


@functools.cache
def _syscall() -> Any:
    """libc's ``syscall``, loaded once: loading it builds ctypes classes, which costs more than
    the open it makes (a read or an edit opens several paths)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc.syscall


def _walk(folder: int, parts: list[str], flags: int, mode: int) -> int:
    """One ``O_NOFOLLOW`` open per component: each folder on the way held as ``O_PATH``, the last
    opened with ``flags``, where ``O_NOFOLLOW`` refuses a link with ``ELOOP``."""
    if not parts:
        return os.open(".", flags, mode, dir_fd=folder)
    current = os.dup(folder)
    try:
        for part in parts[:-1]:
            inner = _open_held(current, part, FOLDER_FLAGS)
            os.close(current)
            current = inner
        if flags & os.O_PATH:
            return _open_held(current, parts[-1], flags)
        try:
            return os.open(parts[-1], flags, mode, dir_fd=current)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise SwapRefused(f"{parts[-1]} is a symbolic link") from exc
            raise
    finally:
        os.close(current)


def _open_held(folder: int, name: str, flags: int) -> int:
    """``name`` opened ``O_PATH``: that opens a link itself (``O_DIRECTORY`` left out, which
    would fail on it as on a file), so the descriptor's ``fstat`` tells a link from a folder,
    with no second look at the path that could meet another swap."""
    opened = os.open(name, (flags | os.O_PATH | os.O_NOFOLLOW) & ~os.O_DIRECTORY, dir_fd=folder)
    try:
        kind = os.fstat(opened).st_mode
        if stat.S_ISLNK(kind):
            raise SwapRefused(f"{name} is a symbolic link")
        if flags & os.O_DIRECTORY and not stat.S_ISDIR(kind):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), name)
    except BaseException:
        os.close(opened)
        raise
    return opened
