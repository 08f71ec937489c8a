"""Following the audit log as it grows (``wisp logs --follow``), across rotations.

The follower holds audit.jsonl open and reads what is appended to it. When the file is rotated
(renamed to audit.1.jsonl and a new audit.jsonl begun), it drains the old file through the
descriptor it holds, reads whole any files rotated out in between, and moves on to the new one:
no line is lost or repeated. A line still being written is kept until its newline comes.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from wisp.audit.event_filter import EventFilter
from wisp.audit.line_scan import Record, matching_records
from wisp.audit.log_files import Warn, partial_line, rotated_files

__all__ = ["Follower"]


class Follower:
    """Reads what is appended to audit.jsonl from now on; on a rotation, drains the old file.

    It takes its place at the end of the file when made, so a caller that prints the history
    afterwards (``read_events(..., stop_at=follower.position)``) neither misses nor repeats a
    line written in between.
    """

    def __init__(self, logs_dir: Path, event_filter: EventFilter, warn: Warn) -> None:
        self.path = logs_dir / "audit.jsonl"
        self.event_filter = event_filter
        self.warn = warn
        self._fd = -1
        self._inode = -1
        self._offset = 0
        self._pending = b""
        self._open(at_end=True)

    @property
    def position(self) -> tuple[int, int] | None:
        """(inode, offset) where following began; None when there was no log yet."""
        return (self._inode, self._offset) if self._fd >= 0 else None

    def poll(self) -> list[Record]:
        """The matching events written since the last poll. Under the writers' lock, shared:
        no rotation shifts the files while they are listed and read (one seen mid-shift was
        read twice, and another never)."""
        with _shared_lock(self.path.with_name("audit.lock")):
            return self._poll()

    def _poll(self) -> list[Record]:
        if self._fd < 0:
            self._open(at_end=False)
        records = self._drain()
        if self._rotated():
            records += self._drain()  # what was written between the last read and the rename
            old_inode = self._inode
            self._close_fd()
            self._open(at_end=False)
            records += self._files_between(old_inode, self._inode)
            records += self._drain()
        return records

    def _files_between(self, old_inode: int, new_inode: int) -> list[Record]:
        """Files rotated out after ours and before the one now open (several rotations may
        come between two polls), read whole, oldest first."""
        rotated = rotated_files(self.path.parent)  # newest first
        inodes = [inode for _, inode in rotated]
        # The file now open may itself have been rotated since: only older ones count.
        start = inodes.index(new_inode) + 1 if new_inode in inodes else 0
        end = inodes.index(old_inode) if old_inode in inodes else len(rotated)
        records: list[Record] = []
        for path, _ in reversed(rotated[start:end]):
            data = path.read_bytes()
            complete = data.rfind(b"\n") + 1
            records += matching_records(path, data, complete, self.event_filter, self.warn)
            if complete < len(data):
                self.warn(partial_line(path))
        return records

    async def run(self, poll_seconds: float = 0.2) -> AsyncIterator[list[Record]]:
        """Batches of new events, polling until cancelled."""
        import asyncio  # here, not at the top: only --follow needs it, and it is slow to import

        while True:
            yield self.poll()
            await asyncio.sleep(poll_seconds)

    def close(self) -> None:
        self._close_fd()

    def _open(self, *, at_end: bool) -> None:
        try:
            self._fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return  # no log yet, or mid-rotation: the next poll looks again
        info = os.fstat(self._fd)
        self._inode = info.st_ino
        self._offset = info.st_size if at_end else 0
        os.lseek(self._fd, self._offset, os.SEEK_SET)

    def _rotated(self) -> bool:
        try:
            return os.stat(self.path).st_ino != self._inode
        except FileNotFoundError:
            return False  # between a rotation's rename and the next write: wait for it

    def _drain(self) -> list[Record]:
        if self._fd < 0:
            return []
        chunks = [self._pending]
        while chunk := os.read(self._fd, 1 << 20):
            chunks.append(chunk)
        data = b"".join(chunks)
        complete = data.rfind(b"\n") + 1
        self._pending = data[complete:]  # a line still being written: the rest comes later
        return list(matching_records(self.path, data, complete, self.event_filter, self.warn))

    def _close_fd(self) -> None:
        if self._fd >= 0:
            if self._pending:
                self.warn(partial_line(self.path))
            os.close(self._fd)
        self._fd = -1
        self._pending = b""


@contextlib.contextmanager
def _shared_lock(lock_path: Path) -> Iterator[None]:
    """The lock every writer takes to append or rotate, held shared; none when no writer has
    made it yet (then there is nothing to rotate)."""
    try:
        fd = os.open(lock_path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # the lock goes with the descriptor
