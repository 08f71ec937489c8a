"""Following the audit log: only what comes after the start, nothing lost across rotations."""

from __future__ import annotations

import threading
from pathlib import Path

import msgspec

from wisp.audit import AuditLog, FileSink
from wisp.audit.event_filter import EventFilter
from wisp.audit.follower import Follower
from wisp.audit.kinds import Error
from wisp.audit.line_scan import Record
from wisp.audit.reader import read_events


def make_log(logs: Path, **limits: int) -> AuditLog:
    sink = FileSink(
        logs / "audit.jsonl",
        max_file_bytes=limits.get("max_file_bytes", 1 << 30),
        keep_files=limits.get("keep_files", 1000),
    )
    return AuditLog(sink, session="aaaa000011112222")


def messages(records: list[Record]) -> list[str]:
    return [record.event.details["message"] for record in records]


def test_the_follower_reads_only_what_comes_after_it_starts(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    log.record(Error(message="history", context=""))
    follower = Follower(tmp_path, EventFilter(), [].append)
    try:
        assert follower.poll() == []
        log.record(Error(message="new", context=""))
        assert messages(follower.poll()) == ["new"]
        history = list(read_events(tmp_path, EventFilter(), [].append, stop_at=follower.position))
        assert messages(history) == ["history"]
    finally:
        follower.close()


def test_the_follower_loses_nothing_across_rotations(tmp_path: Path) -> None:
    log = make_log(tmp_path, max_file_bytes=1024, keep_files=1000)
    follower = Follower(tmp_path, EventFilter(), [].append)
    seen: list[str] = []
    try:
        for index in range(100):
            log.record(Error(message=f"{index}", context="rotating"))
            if index % 7 == 0:
                seen += messages(follower.poll())
        seen += messages(follower.poll())
    finally:
        follower.close()
    assert seen == [f"{index}" for index in range(100)]


def test_the_follower_waits_for_the_rest_of_a_line(tmp_path: Path) -> None:
    make_log(tmp_path).record(Error(message="start", context=""))
    follower = Follower(tmp_path, EventFilter(), [].append)
    line = msgspec.json.encode(
        {"schema": 1, "session": "s", "kind": "error", "details": {"message": "late"}}
    )
    try:
        with open(tmp_path / "audit.jsonl", "ab") as file:
            file.write(line[:10])
            file.flush()
            assert follower.poll() == []
            file.write(line[10:] + b"\n")
        assert messages(follower.poll()) == ["late"]
    finally:
        follower.close()


def test_the_follower_loses_nothing_while_rotations_shift_the_files_under_it(
    tmp_path: Path,
) -> None:
    # A writer rotating while the follower lists and reads the rotated files: a file seen
    # mid-shift was read twice and another never, and `wisp logs --follow` waited for a line
    # it had lost.
    log = make_log(tmp_path, max_file_bytes=1024, keep_files=1000)
    log.record(Error(message="start", context=""))
    follower = Follower(tmp_path, EventFilter(), [].append)
    count = 600
    writer = threading.Thread(
        target=lambda: [log.record(Error(message=f"{i}", context="x" * 80)) for i in range(count)]
    )
    seen: list[str] = []
    try:
        writer.start()
        while writer.is_alive():
            seen += messages(follower.poll())
        writer.join()
        seen += messages(follower.poll())
    finally:
        follower.close()
    assert seen == [f"{index}" for index in range(count)]
