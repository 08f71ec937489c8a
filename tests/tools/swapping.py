"""What a confined command can do to the file tools' paths: swap a folder and a symbolic link in
one step (``renameat2(RENAME_EXCHANGE)``), once or in a loop in a process of its own; and what the
tests watch it by: ``inotify`` on a folder, which hears every open, read and write in it.

Run as a program (``python swapping.py A B [C D ...]``), it exchanges each pair in turn for ever,
saying ``ready`` once each pair has been exchanged; the test ends it."""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

AT_FDCWD = -100
RENAME_EXCHANGE = 2
SYS_RENAMEAT2 = {"x86_64": 316, "aarch64": 276}
IN_ALL_EVENTS = 0xFFF
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def exchanger() -> Callable[[bytes, bytes], int]:
    """A function of two paths (bytes) that exchanges them atomically: libc's ``renameat2`` where
    there is one, else the system call by number."""
    libc = _libc()
    if hasattr(libc, "renameat2"):
        call = libc.renameat2

        def exchange(a: bytes, b: bytes) -> int:
            return call(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)

        return exchange
    number = SYS_RENAMEAT2[platform.machine()]

    def by_number(a: bytes, b: bytes) -> int:
        return libc.syscall(number, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)

    return by_number


def exchange(a: Path, b: Path) -> None:
    """``a`` and ``b`` exchanged in one step, as ``renameat2(RENAME_EXCHANGE)`` does it."""
    if exchanger()(os.fsencode(a), os.fsencode(b)) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(a))


@contextmanager
def swapping(*pairs: tuple[Path, Path]) -> Iterator[None]:
    """A process exchanging each pair in a tight loop for as long as the block runs; it has
    exchanged every pair once when the block starts."""
    arguments = [os.fspath(path) for pair in pairs for path in pair]
    process = subprocess.Popen(
        [sys.executable, __file__, *arguments], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == "ready\n"
        yield
    finally:
        process.kill()
        process.wait()


class Watch:
    """Every event ``inotify`` reports in one folder (opens, reads, writes, new entries) since
    the watch began."""

    def __init__(self, folder: Path) -> None:
        libc = _libc()
        self.fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if self.fd < 0 or libc.inotify_add_watch(self.fd, os.fsencode(folder), IN_ALL_EVENTS) < 0:
            raise OSError(ctypes.get_errno(), "inotify", str(folder))

    def events(self) -> list[tuple[int, str]]:
        """(mask, name) of each event so far; a name is empty for the folder itself."""
        found: list[tuple[int, str]] = []
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return found
            offset = 0
            while offset < len(chunk):
                _, mask, _, size = struct.unpack_from("iIII", chunk, offset)
                name = chunk[offset + 16 : offset + 16 + size].rstrip(b"\0").decode()
                found.append((mask, name))
                offset += 16 + size

    def close(self) -> None:
        os.close(self.fd)


@contextmanager
def watching(folder: Path) -> Iterator[Watch]:
    watch = Watch(folder)
    try:
        yield watch
    finally:
        watch.close()


def temporary_files(folder: Path) -> list[str]:
    """Every ``.tmp`` file beneath ``folder``, no link followed."""
    return [
        os.path.join(where, name)
        for where, _, names in os.walk(folder)
        for name in names
        if name.endswith(".tmp")
    ]


def _swap_for_ever(paths: list[str]) -> None:
    exchange_now = exchanger()
    pairs = [(os.fsencode(a), os.fsencode(b)) for a, b in zip(paths[::2], paths[1::2], strict=True)]
    for a, b in pairs:
        exchange(Path(os.fsdecode(a)), Path(os.fsdecode(b)))
    print("ready", flush=True)
    while True:
        for a, b in pairs:
            exchange_now(a, b)


if __name__ == "__main__":
    _swap_for_ever(sys.argv[1:])
