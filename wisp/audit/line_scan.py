"""The fast scan of one file's bytes: the lines that match a filter, decoded, in batches.

A file is mapped, not read, and its candidate lines (every line, or those that hold one of the
filter's needles) are handled in batches of about a megabyte, as views of the mapping: a line is
copied once, into the batch's joined bytes, and the Python work per line is one decode and one
test (bench/logs_filter.py measures it). A blank or broken line is skipped with a warning that
names its file and line.
"""

from __future__ import annotations

import mmap
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from wisp.audit.event import StoredEvent
from wisp.audit.event_filter import EventFilter
from wisp.audit.log_files import Warn

__all__ = ["Batch", "Data", "Record", "batches", "event_decoder", "matching_records"]

event_decoder = msgspec.json.Decoder(StoredEvent)
_BATCH_BYTES = 1 << 20

Data = mmap.mmap | bytes
Spans = list[tuple[int, int]]
"""(start, stop) of lines in a file's data; stop is just past the line's newline."""


class Record(msgspec.Struct, frozen=True):
    """One stored line: its bytes as written (without the newline) and the decoded event."""

    raw: bytes
    event: StoredEvent


Batch = tuple[bytes, list[memoryview], list[Any]]
"""Matching lines of one file: their bytes joined, each line (a view, newline included), and
each decoded."""


def matching_records(
    path: Path, data: Data, end: int, event_filter: EventFilter, warn: Warn
) -> Iterator[Record]:
    """Each line before ``end`` that matches, as a record, oldest first."""
    for _, lines, events in batches(path, data, end, event_filter, event_decoder, warn):
        for line, event in zip(lines, events, strict=True):
            yield Record(bytes(line[:-1]), event)


def batches(
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
