"""``FileSink``: whole-line appends to ``logs/audit.jsonl`` that concurrent wisps share.

Every line is one ``os.write`` on an ``O_APPEND`` descriptor, made while holding an exclusive
``flock`` on ``logs/audit.lock``. The same lock guards rotation, so no writer ever appends to a
file that is being renamed under it, and no line is interleaved, torn or lost (docs/logging.md,
"Rotation and concurrent writers").

Rotation renames ``audit.jsonl`` to ``audit.1.jsonl`` (older ones move up, the oldest past
``keep_files`` is removed) and opens a new ``audit.jsonl``. Writers in other processes still
hold a descriptor to the renamed file, so the rotation is announced through the lock file: its
*size* is the rotation count (each rotation appends one byte). Under the lock, a writer reads
it with one cheap ``lseek`` and reopens ``audit.jsonl`` when it moved. A path ``stat`` or an
``fstat`` a line would cost several times more (see docs/performance.md).
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import threading
from pathlib import Path

import msgspec

from wisp.audit.event import AuditEvent
from wisp.audit.forking import reset_after_fork
from wisp.errors import AuditError
from wisp.home import ensure_private_dir, open_private

# Read too: a writer checks the last byte of a file it opens (``_mend_torn_tail``).
_APPEND_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
_ROTATED = re.compile(r"^audit\.(\d+)\.jsonl$")

# Bound once: the append path runs per event and a module attribute lookup is measurable there.
_flock = fcntl.flock
_LOCK_EX = fcntl.LOCK_EX
_LOCK_UN = fcntl.LOCK_UN
_lseek = os.lseek
_SEEK_END = os.SEEK_END
_write = os.write


class FileSink:
    """Appends events to an audit file, rotating it by size."""

    def __init__(self, path: Path, *, max_file_bytes: int, keep_files: int) -> None:
        self.path = path
        self.max_file_bytes = max_file_bytes
        self.keep_files = keep_files
        self._encoder = msgspec.json.Encoder()
        self._buffer = bytearray()
        # flock belongs to the open file description, which threads share: they need their own.
        self._thread_lock = threading.Lock()
        self._lock_fd = -1
        self._fd = -1
        self._generation = -1
        self._check_tail = False
        reset_after_fork(self)

    @property
    def lock_path(self) -> Path:
        return self.path.with_name("audit.lock")

    def write(self, event: AuditEvent) -> None:
        with self._thread_lock:
            line = self._buffer
            self._encoder.encode_into(event, line)
            line += b"\n"
            try:
                self._append(line)
            except OSError as exc:
                message = f"{self.path}: cannot write the audit log: {exc.strerror}"
                raise AuditError(message) from exc

    def close(self) -> None:
        with self._thread_lock:
            for fd in (self._fd, self._lock_fd):
                if fd >= 0:
                    os.close(fd)
            self._fd = self._lock_fd = -1

    def after_fork(self) -> None:
        """In a forked child: the parent's descriptions (and its flock) are not ours."""
        self._thread_lock = threading.Lock()
        self._fd = self._lock_fd = -1  # left open for the parent; closed with the child

    # -- the locked append -------------------------------------------------------------
    # Per line: flock, two lseeks, one write, unlock. That is the floor the sharing sets (a lock
    # per line, rotation noticed per line); the Python around it is kept to one call and local
    # names, because on a small event it costs as much as the syscalls (bench/audit_append.py).

    def _append(self, line: bytearray) -> None:
        lock_fd = self._lock_fd
        if lock_fd < 0:
            lock_fd = self._open_lock()
        _flock(lock_fd, _LOCK_EX)
        try:
            generation = _lseek(lock_fd, 0, _SEEK_END)
            if generation != self._generation or self._fd < 0:
                self._reopen_log(generation)  # first write, or another wisp rotated
            fd = self._fd
            size = _lseek(fd, 0, _SEEK_END)
            if size + len(line) > self.max_file_bytes and size:
                self._rotate()
                fd = self._fd
                size = 0
            if self._check_tail and self._mend_torn_tail(size):
                _write_all(fd, b"\n")
            written = _write(fd, line)
            if written != len(line):  # rare: a regular file takes the whole line at once
                # A copy, not a view: a view kept alive by a traceback would pin the buffer's
                # size, and the next encode_into would fail.
                _write_all(fd, bytes(line[written:]))
        finally:
            _flock(lock_fd, _LOCK_UN)

    def _open_lock(self) -> int:
        ensure_private_dir(self.path.parent)
        self._lock_fd = open_private(self.lock_path, _APPEND_FLAGS)
        return self._lock_fd

    def _reopen_log(self, generation: int) -> None:
        if self._fd >= 0:
            os.close(self._fd)
        self._fd = open_private(self.path, _APPEND_FLAGS)
        self._generation = generation
        self._check_tail = True

    def _mend_torn_tail(self, size: int) -> bool:
        """Whether a killed writer left a line unfinished, which a newline must end first."""
        self._check_tail = False
        return size > 0 and os.pread(self._fd, 1, size - 1) != b"\n"

    def _rotate(self) -> None:
        """Shift audit.N.jsonl up by one, keep ``keep_files`` of them, start a new file."""
        folder = self.path.parent
        for index in sorted(rotated_indices(folder), reverse=True):
            old = folder / f"audit.{index}.jsonl"
            if index >= self.keep_files:
                _remove(old)
            else:
                os.rename(old, folder / f"audit.{index + 1}.jsonl")
        if self.keep_files > 0:
            os.rename(self.path, folder / "audit.1.jsonl")
        else:
            _remove(self.path)
        os.write(self._lock_fd, b"r")  # the lock file grows: every writer learns of the rotation
        self._reopen_log(self._generation + 1)
        self._check_tail = False  # a new, empty file


def rotated_indices(folder: Path) -> list[int]:
    """The N of every ``audit.N.jsonl`` in ``folder``."""
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    return [int(m.group(1)) for name in names if (m := _ROTATED.match(name))]


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _remove(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            raise
