"""Reading the audit log back: every file oldest first, filtered, torn lines noted and skipped.

The filters first look for their words in the raw bytes and decode only the lines that hold
them (a kind's name, a session id's prefix): over a large log most lines are never decoded.
The decoded event is then checked for real, so the byte test only has to be generous.

A file is mapped, not read, and its candidate lines are handled in batches of about a
megabyte, as views of the mapping: a line is copied once, into the batch's joined bytes,
and the Python work per line is one decode and one test (bench/logs_filter.py).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import re
import resource
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from wisp.audit.details import REGISTRY
from wisp.audit.event import StoredEvent, StoredHead
from wisp.audit.file_sink import rotated_indices

_event_decoder = msgspec.json.Decoder(StoredEvent)
_head_decoder = msgspec.json.Decoder(StoredHead)
_BATCH_BYTES = 1 << 20

Warn = Callable[[str], None]
Data = mmap.mmap | bytes
Spans = list[tuple[int, int]]
"""(start, stop) of lines in a file's data; stop is just past the line's newline."""


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

    def matches(self, event: StoredEvent | StoredHead) -> bool:
        if self.kinds and event.kind not in self.kinds:
            return False
        if self.session and not event.session.startswith(self.session):
            return False
        if self.tool:
            return event.kind in self.tool_kinds or _tool_of(event) == self.tool
        return True

    def select(self, events: list[Any]) -> list[bool]:
        """``matches`` for each event; a kind-only filter without a method call per event."""
        if self.session or self.tool:
            return [self.matches(event) for event in events]
        kinds = self.kinds
        if kinds:
            return [event.kind in kinds for event in events]
        return [True] * len(events)

    def needles(self) -> list[bytes]:
        """Byte strings one of which a matching line must hold (empty: no byte test)."""
        if self.kinds:
            return [_quoted(kind) for kind in sorted(self.kinds)]
        if self.tool:
            return [_quoted(self.tool)] + [_quoted(kind) for kind in sorted(self.tool_kinds)]
        if self.session:
            return [b'"' + self.session.encode()]
        return []


def _tool_of(event: StoredEvent | StoredHead) -> Any:
    details = event.details
    return details.get("tool") if isinstance(details, dict) else details.tool


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


# -- the three ways to read: records, events, stored lines -------------------------------------


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
    for _, lines, events in _read(logs_dir, event_filter, warn, stop_at, _event_decoder):
        for line, event in zip(lines, events, strict=True):
            yield Record(bytes(line[:-1]), event)


def read_decoded(logs_dir: Path, event_filter: EventFilter, warn: Warn) -> Iterator[StoredEvent]:
    """``read_events`` without each line's bytes: the events alone, for a summary."""
    for _, _, events in _read(logs_dir, event_filter, warn, None, _event_decoder):
        yield from events


def read_stored_lines(logs_dir: Path, event_filter: EventFilter, warn: Warn) -> Iterator[bytes]:
    """The lines of the events that match, byte for byte as stored, in chunks of whole lines
    (each with its newline), oldest first.

    A line is tested as a ``StoredHead``: its envelope is decoded and checked as
    ``read_events`` checks it, its details only parsed (and their ``tool`` read).
    """
    for joined, _, _ in _read(logs_dir, event_filter, warn, None, _head_decoder):
        yield joined


Batch = tuple[bytes, list[memoryview], list[Any]]
"""Matching lines of one file: their bytes joined, each line (a view, newline included), and
each decoded."""


def _read(
    logs_dir: Path,
    event_filter: EventFilter,
    warn: Warn,
    stop_at: tuple[int, int] | None,
    decoder: msgspec.json.Decoder[Any],
) -> Iterator[Batch]:
    # Open every file before reading any: a rotation while we read then renames files we
    # already hold, instead of shifting lines from a file not yet read into one already read.
    opened = _open_all(log_files(logs_dir), warn)
    try:
        for path, fd in opened:
            yield from _read_file(path, fd, event_filter, decoder, warn, stop_at)
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
    path: Path,
    fd: int,
    event_filter: EventFilter,
    decoder: msgspec.json.Decoder[Any],
    warn: Warn,
    stop_at: tuple[int, int] | None,
) -> Iterator[Batch]:
    info = os.fstat(fd)
    size = info.st_size
    if stop_at is not None and stop_at[0] == info.st_ino:
        size = min(size, stop_at[1])
    if size == 0:
        return
    data = mmap.mmap(fd, size, access=mmap.ACCESS_READ)
    try:
        complete = data.rfind(b"\n") + 1
        yield from _batches(path, data, complete, event_filter, decoder, warn)
        if complete < size:
            warn(_partial_line(path))
    finally:
        with contextlib.suppress(BufferError):  # a view is held by a traceback: unmapped later
            data.close()


def _records(
    path: Path, data: Data, end: int, event_filter: EventFilter, warn: Warn
) -> Iterator[Record]:
    for _, lines, events in _batches(path, data, end, event_filter, _event_decoder, warn):
        for line, event in zip(lines, events, strict=True):
            yield Record(bytes(line[:-1]), event)


# -- batches of candidate lines -----------------------------------------------------------------


def _batches(
    path: Path,
    data: Data,
    end: int,
    event_filter: EventFilter,
    decoder: msgspec.json.Decoder[Any],
    warn: Warn,
) -> Iterator[Batch]:
    """The lines before ``end`` that match, decoded, a batch at a time."""
    view = memoryview(data)
    decode = decoder.decode
    try:
        for spans in _candidate_spans(data, end, event_filter.needles()):
            lines = [view[start:stop] for start, stop in spans]
            try:
                events = [decode(line) for line in lines]
            except msgspec.DecodeError:  # a blank or broken line among them: one at a time
                lines, events = _decode_each(path, data, spans, lines, decoder, warn)
            chosen = event_filter.select(events)
            if not all(chosen):
                lines = [line for line, keep in zip(lines, chosen, strict=True) if keep]
                events = [event for event, keep in zip(events, chosen, strict=True) if keep]
            if lines:
                yield b"".join(lines), lines, events
            del lines  # views of the mapping, which cannot close while one lives
    finally:
        view.release()


def _decode_each(
    path: Path,
    data: Data,
    spans: Spans,
    lines: list[memoryview],
    decoder: msgspec.json.Decoder[Any],
    warn: Warn,
) -> tuple[list[memoryview], list[Any]]:
    kept: list[memoryview] = []
    events: list[Any] = []
    for (start, stop), line in zip(spans, lines, strict=True):
        if not data[start:stop].strip():
            continue
        try:
            events.append(decoder.decode(line))
        except msgspec.DecodeError:
            line_number = data[:start].count(b"\n") + 1
            warn(f"{path}:{line_number}: not an audit event; skipped")
            continue
        kept.append(line)
    return kept, events


def _candidate_spans(data: Data, end: int, needles: list[bytes]) -> Iterator[Spans]:
    """Each line before ``end`` that may match (all, or those with a needle), in batches of
    about ``_BATCH_BYTES`` of the file."""
    if not needles:
        return _every_line(data, end)
    if len(needles) == 1:
        return _lines_holding(data, end, needles[0])
    return _lines_matching(data, end, re.compile(b"|".join(map(re.escape, needles))))


def _every_line(data: Data, end: int) -> Iterator[Spans]:
    find = data.find
    spans: Spans = []
    start = 0
    flush_at = _BATCH_BYTES
    while start < end:
        stop = find(b"\n", start, end) + 1
        spans.append((start, stop))
        if stop >= flush_at:
            yield spans
            spans = []
            flush_at = stop + _BATCH_BYTES
        start = stop
    if spans:
        yield spans


def _lines_holding(data: Data, end: int, needle: bytes) -> Iterator[Spans]:
    # The hot loop of `wisp logs --kind K` over a large log: three finds a hit, nothing more.
    find, rfind = data.find, data.rfind
    spans: Spans = []
    flush_at = _BATCH_BYTES
    hit = find(needle, 0, end)
    while hit >= 0:
        stop = find(b"\n", hit, end) + 1
        spans.append((rfind(b"\n", 0, hit) + 1, stop))
        if stop >= flush_at:
            yield spans
            spans = []
            flush_at = stop + _BATCH_BYTES
        hit = find(needle, stop, end)
    if spans:
        yield spans


def _lines_matching(data: Data, end: int, pattern: re.Pattern[bytes]) -> Iterator[Spans]:
    find, rfind = data.find, data.rfind
    spans: Spans = []
    flush_at = _BATCH_BYTES
    position = 0
    for match in pattern.finditer(data, 0, end):
        hit = match.start()
        if hit < position:
            continue  # another needle on a line already taken
        position = find(b"\n", hit, end) + 1
        spans.append((rfind(b"\n", 0, hit) + 1, position))
        if position >= flush_at:
            yield spans
            spans = []
            flush_at = position + _BATCH_BYTES
    if spans:
        yield spans


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
        return list(_records(self.path, data, complete, self.event_filter, self.warn))

    def _close_fd(self) -> None:
        if self._fd >= 0:
            if self._pending:
                self.warn(_partial_line(self.path))
            os.close(self._fd)
        self._fd = -1
        self._pending = b""
