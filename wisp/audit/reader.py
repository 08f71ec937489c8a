"""Reading the audit log back: every file oldest first, filtered, torn lines noted and skipped.

Three readers share one path: ``read_events`` (each matching line's bytes and its event),
``read_decoded`` (the events alone: ``wisp logs``' summary lines, ``inspect``) and
``read_stored_lines`` (the matching lines byte for byte: ``wisp logs --json``). The files are
found and opened by ``log_files``, filtered by an ``EventFilter`` (``event_filter``) and scanned
by ``line_scan``; ``follower`` reads on from where they stop.
"""

from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from wisp.audit.event import StoredEvent, StoredHead
from wisp.audit.event_filter import EventFilter
from wisp.audit.line_scan import Batch, Record, batches, event_decoder
from wisp.audit.log_files import Warn, log_files, open_all, partial_line

__all__ = ["read_decoded", "read_events", "read_stored_lines"]

_head_decoder = msgspec.json.Decoder(StoredHead)


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
    for _, lines, events in _read(logs_dir, event_filter, warn, stop_at, event_decoder):
        for line, event in zip(lines, events, strict=True):
            yield Record(bytes(line[:-1]), event)


def read_decoded(logs_dir: Path, event_filter: EventFilter, warn: Warn) -> Iterator[StoredEvent]:
    """``read_events`` without each line's bytes: the events alone, for a summary."""
    for _, _, events in _read(logs_dir, event_filter, warn, None, event_decoder):
        yield from events


def read_stored_lines(logs_dir: Path, event_filter: EventFilter, warn: Warn) -> Iterator[bytes]:
    """The lines of the events that match, byte for byte as stored, in chunks of whole lines
    (each with its newline), oldest first.

    A line is tested as a ``StoredHead``: its envelope is decoded and checked as
    ``read_events`` checks it, its details only parsed (and their ``tool`` read).
    """
    for joined, _, _ in _read(logs_dir, event_filter, warn, None, _head_decoder):
        yield joined


def _read(
    logs_dir: Path,
    event_filter: EventFilter,
    warn: Warn,
    stop_at: tuple[int, int] | None,
    decoder: msgspec.json.Decoder[Any],
) -> Iterator[Batch]:
    # Open every file before reading any: a rotation while we read then renames files we
    # already hold, instead of shifting lines from a file not yet read into one already read.
    opened = open_all(log_files(logs_dir), warn)
    try:
        for path, fd in opened:
            yield from _read_file(path, fd, event_filter, decoder, warn, stop_at)
    finally:
        for _, fd in opened:
            os.close(fd)


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
        yield from batches(path, data, complete, event_filter, decoder, warn)
        if complete < size:
            warn(partial_line(path))
    finally:
        with contextlib.suppress(BufferError):  # a view is held by a traceback: unmapped later
            data.close()
