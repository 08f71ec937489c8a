"""Reading the audit log back: every file oldest first, filtered, torn lines noted and skipped.

The filters first look for their words in the raw bytes and decode only the lines that hold
them (a kind's name, a session id's prefix): over a large log most lines are never decoded.
The decoded event is then checked for real, so the byte test only has to be generous.
"""

from __future__ import annotations

import asyncio
import mmap
import os
import re
import resource
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from wisp.audit.details import REGISTRY
from wisp.audit.event import StoredEvent
from wisp.audit.file_sink import rotated_indices

_decoder = msgspec.json.Decoder(StoredEvent)

Warn = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Record:
    """One stored line: its bytes as written (without the newline) and the decoded event."""

    raw: bytes
    event: StoredEvent


@dataclass(frozen=True, slots=True)
class EventFilter:
    """Which events ``wisp logs`` shows; an empty filter shows every one."""

    session: str | None = None
    """A session id or a prefix of one."""
    kinds: frozenset[str] = frozenset()
    tool: str | None = None
    """A tool's name: its tool.call, tool.result and output.kept, and the events of its work."""
    tool_kinds: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        owned = {kind for kind, cls in REGISTRY.items() if cls.owner_tool == self.tool}
        object.__setattr__(self, "tool_kinds", frozenset(owned) if self.tool else frozenset())

    def matches(self, event: StoredEvent) -> bool:
        if self.kinds and event.kind not in self.kinds:
            return False
        if self.session and not event.session.startswith(self.session):
            return False
        if self.tool:
            return event.kind in self.tool_kinds or event.details.get("tool") == self.tool
        return True

    def needles(self) -> list[bytes]:
        """Byte strings one of which a matching line must hold (empty: no byte test)."""
        if self.kinds:
            return [_quoted(kind) for kind in sorted(self.kinds)]
        if self.tool:
            return [_quoted(self.tool)] + [_quoted(kind) for kind in sorted(self.tool_kinds)]
        if self.session:
            return [b'"' + self.session.encode()]
        return []


def _partial_line(path: Path) -> str:
    return f"{path}: partial line at the end (a writer stopped mid-line); skipped"


def _quoted(word: str) -> bytes:
    return b'"' + word.encode() + b'"'


def log_files(logs_dir: Path) -> list[Path]:
    """The audit files, oldest first: audit.N.jsonl … audit.1.jsonl, then audit.jsonl."""
    rotated = sorted(rotated_indices(logs_dir), reverse=True)
    files = [logs_dir / f"audit.{index}.jsonl" for index in rotated]
    current = logs_dir / "audit.jsonl"
    if current.exists():
        files.append(current)
    return files


def read_events(
    logs_dir: Path,
    event_filter: EventFilter,
    warn: Warn,
    *,
    stop_at: tuple[int, int] | None = None,
) -> Iterator[Record]:
    """Every stored event that matches, oldest first, across the rotated files.

    ``stop_at`` (inode, offset) ends that file's reading at the offset: a ``Follower`` reads on.
    """
    # Open every file before reading any: a rotation while we read then renames files we
    # already hold, instead of shifting lines from a file not yet read into one already read.
    opened = _open_all(log_files(logs_dir), warn)
    try:
        for path, fd in opened:
            yield from _read_file(path, fd, event_filter, warn, stop_at)
    finally:
        for _, fd in opened:
            os.close(fd)


def _open_all(paths: list[Path], warn: Warn) -> list[tuple[Path, int]]:
    _allow_open_files(len(paths) + 64)
    opened: list[tuple[Path, int]] = []
    for path in paths:
        try:
            opened.append((path, os.open(path, os.O_RDONLY | os.O_CLOEXEC)))
        except FileNotFoundError:
            continue  # removed by a rotation since the listing: its lines are in a newer file
        except OSError as exc:
            warn(f"{path}: cannot read: {exc.strerror}")
    return opened


def _allow_open_files(count: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and count > soft:
        wanted = count if hard == resource.RLIM_INFINITY else min(count, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def _read_file(
    path: Path, fd: int, event_filter: EventFilter, warn: Warn, stop_at: tuple[int, int] | None
) -> Iterator[Record]:
    info = os.fstat(fd)
    size = info.st_size
    if stop_at is not None and stop_at[0] == info.st_ino:
        size = min(size, stop_at[1])
    if size == 0:
        return
    with mmap.mmap(fd, size, access=mmap.ACCESS_READ) as data:
        complete = data.rfind(b"\n") + 1
        yield from _records(path, data, complete, event_filter, warn)
        if complete < size:
            warn(_partial_line(path))


def _records(
    path: Path, data: mmap.mmap | bytes, end: int, event_filter: EventFilter, warn: Warn
) -> Iterator[Record]:
    for start, stop in _candidate_lines(data, end, event_filter.needles()):
        raw = data[start:stop]
        if not raw.strip():
            continue
        try:
            event = _decoder.decode(raw)
        except msgspec.DecodeError:
            line_number = data[:start].count(b"\n") + 1
            warn(f"{path}:{line_number}: not an audit event; skipped")
            continue
        if event_filter.matches(event):
            yield Record(raw, event)


def _candidate_lines(
    data: mmap.mmap | bytes, end: int, needles: list[bytes]
) -> Iterator[tuple[int, int]]:
    """(start, stop) of each line before ``end`` that may match: all, or those with a needle."""
    if not needles:
        start = 0
        while start < end:
            stop = data.find(b"\n", start, end)
            yield start, stop
            start = stop + 1
        return
    hits = _needle_hits(data, end, needles)
    position = 0
    for hit in hits:
        if hit < position:
            continue  # another needle on a line already given
        start = data.rfind(b"\n", 0, hit) + 1
        stop = data.find(b"\n", hit, end)
        yield start, stop
        position = stop + 1


def _needle_hits(data: mmap.mmap | bytes, end: int, needles: list[bytes]) -> Iterable[int]:
    if len(needles) == 1:
        return _find_all(data, end, needles[0])
    pattern = re.compile(b"|".join(re.escape(needle) for needle in needles))
    return (match.start() for match in pattern.finditer(data, 0, end))


def _find_all(data: mmap.mmap | bytes, end: int, needle: bytes) -> Iterator[int]:
    hit = data.find(needle, 0, end)
    while hit >= 0:
        yield hit
        after = data.find(b"\n", hit, end)
        hit = data.find(needle, after + 1, end)


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
        """The matching events written since the last poll."""
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
        rotated = self._rotated_files()  # newest first
        inodes = [inode for _, inode in rotated]
        # The file now open may itself have been rotated since: only older ones count.
        start = inodes.index(new_inode) + 1 if new_inode in inodes else 0
        end = inodes.index(old_inode) if old_inode in inodes else len(rotated)
        records: list[Record] = []
        for path, _ in reversed(rotated[start:end]):
            data = path.read_bytes()
            complete = data.rfind(b"\n") + 1
            records += _records(path, data, complete, self.event_filter, self.warn)
            if complete < len(data):
                self.warn(_partial_line(path))
        return records

    def _rotated_files(self) -> list[tuple[Path, int]]:
        """(path, inode) of each rotated file, newest (audit.1.jsonl) first."""
        files: list[tuple[Path, int]] = []
        for index in sorted(rotated_indices(self.path.parent)):
            path = self.path.with_name(f"audit.{index}.jsonl")
            try:
                files.append((path, os.stat(path).st_ino))
            except FileNotFoundError:
                continue
        return files

    async def run(self, poll_seconds: float = 0.2) -> AsyncIterator[list[Record]]:
        """Batches of new events, polling until cancelled."""
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
        return list(_records(self.path, data, complete, self.event_filter, self.warn))

    def _close_fd(self) -> None:
        if self._fd >= 0:
            if self._pending:
                self.warn(_partial_line(self.path))
            os.close(self._fd)
        self._fd = -1
        self._pending = b""
