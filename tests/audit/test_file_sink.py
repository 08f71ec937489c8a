"""The file sink: whole lines, private modes, rotation, concurrent writers (docs/logging.md,
"Rotation and concurrent writers")."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import msgspec
import pytest

from tests.hang import bytes_under, wait_while_progressing
from wisp.audit import AuditLog, AuditSettings, FileSink, NullSink, open_sink
from wisp.audit.file_sink import rotated_indices
from wisp.audit.kinds import ConfigChange, Error, ToolCall
from wisp.audit.log_files import log_files

WRITER = Path(__file__).with_name("concurrent_writer.py")


def make_log(logs_dir: Path, *, max_file_bytes: int = 1 << 30, keep_files: int = 5) -> AuditLog:
    sink = FileSink(logs_dir / "audit.jsonl", max_file_bytes=max_file_bytes, keep_files=keep_files)
    return AuditLog(sink, session="0123456789abcdef")


def lines_of(logs_dir: Path) -> list[dict]:
    return [
        msgspec.json.decode(line)
        for path in log_files(logs_dir)
        for line in path.read_bytes().splitlines()
    ]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_an_event_is_one_line_with_every_envelope_field(tmp_path: Path) -> None:
    log = make_log(tmp_path / "logs")
    log.record(ConfigChange(path="audit.keepFiles", old=None, new=3, source="cli"))
    raw = (tmp_path / "logs" / "audit.jsonl").read_bytes()
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1
    event = msgspec.json.decode(raw)
    assert list(event) == [
        "schema", "id", "time", "version", "pid", "session", "turn", "call", "kind", "details"
    ]  # fmt: skip
    assert event["schema"] == 1
    assert re.fullmatch(r"[0-9a-f]{16}", event["id"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", event["time"])
    assert event["pid"] == os.getpid()
    assert event["details"] == {
        "path": "audit.keepFiles", "old": None, "new": 3, "source": "cli", "approval": None
    }  # fmt: skip


def test_turn_and_call_are_stamped_once_they_apply(tmp_path: Path) -> None:
    log = make_log(tmp_path / "logs")
    log.record(Error(message="before any prompt", context="test"))
    log.turn = 2
    log.record(ToolCall(tool="current_date", arguments={}), call="c1")
    first, second = lines_of(tmp_path / "logs")
    assert (first["turn"], first["call"]) == (None, None)
    assert (second["turn"], second["call"]) == (2, "c1")


def test_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    old_umask = os.umask(0)
    try:
        log = make_log(tmp_path / "home" / "logs", max_file_bytes=2048, keep_files=3)
        for index in range(40):
            log.record(Error(message=f"event {index}", context="x" * 40))
    finally:
        os.umask(old_umask)
    logs = tmp_path / "home" / "logs"
    assert mode(tmp_path / "home") == 0o700
    assert mode(logs) == 0o700
    assert rotated_indices(logs), "the test meant to rotate"
    for path in logs.iterdir():
        assert mode(path) == 0o600, path


def test_rotation_keeps_keep_files_and_the_newest_lines(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    log = make_log(logs, max_file_bytes=1024, keep_files=3)
    for index in range(100):
        log.record(Error(message=f"{index:03}", context="rotation"))
    assert sorted(rotated_indices(logs)) == [1, 2, 3]
    messages = [line["details"]["message"] for line in lines_of(logs)]
    # The oldest were rotated out; what is kept is the newest, in order, with no gap.
    assert messages == [f"{index:03}" for index in range(100 - len(messages), 100)]
    for path in log_files(logs):
        assert path.stat().st_size <= 1024


def test_keep_files_zero_keeps_only_the_current_file(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    log = make_log(logs, max_file_bytes=1024, keep_files=0)
    for index in range(30):
        log.record(Error(message=f"{index}", context="rotation"))
    assert rotated_indices(logs) == []
    assert lines_of(logs)[-1]["details"]["message"] == "29"


def test_a_line_larger_than_the_limit_gets_a_file_of_its_own(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    log = make_log(logs, max_file_bytes=1024, keep_files=5)
    log.record(Error(message="small", context=""))
    log.record(Error(message="x" * 5000, context=""))
    log.record(Error(message="after", context=""))
    assert [len(path.read_bytes().splitlines()) for path in log_files(logs)] == [1, 1, 1]


def test_a_torn_last_line_is_ended_before_the_next_event(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "audit.jsonl").write_bytes(b'{"schema":1,"kind":"err')  # a writer killed mid-line
    make_log(logs).record(Error(message="whole", context=""))
    torn, whole = (logs / "audit.jsonl").read_bytes().splitlines()
    assert torn == b'{"schema":1,"kind":"err'
    assert msgspec.json.decode(whole)["details"]["message"] == "whole"


def test_a_rotation_by_another_writer_is_followed(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    first = make_log(logs, max_file_bytes=1024, keep_files=100)
    second = make_log(logs, max_file_bytes=1024, keep_files=100)
    for index in range(60):
        (first if index % 2 else second).record(Error(message=f"{index}", context="two"))
    messages = [int(line["details"]["message"]) for line in lines_of(logs)]
    assert messages == list(range(60))
    assert len(rotated_indices(logs)) > 2


def test_a_forked_child_takes_its_own_lock_and_ids(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    log = make_log(logs)
    log.record(Error(message="parent before fork", context=""))
    pid = os.fork()
    if pid == 0:  # the child: write, then leave at once without running pytest's teardown
        try:
            for index in range(200):
                log.record(Error(message=f"child {index}", context=""))
        finally:
            os._exit(0)
    for index in range(200):
        log.record(Error(message=f"parent {index}", context=""))
    os.waitpid(pid, 0)
    lines = lines_of(logs)
    assert len(lines) == 401
    assert len({line["id"] for line in lines}) == 401
    assert {line["pid"] for line in lines} == {os.getpid(), pid}


def test_a_disabled_log_writes_nothing(tmp_path: Path) -> None:
    sink = open_sink(AuditSettings(enabled=False), tmp_path / "logs" / "audit.jsonl")
    assert isinstance(sink, NullSink)
    AuditLog(sink).record(Error(message="dropped", context=""))
    assert not (tmp_path / "logs").exists()


def test_an_unwritable_log_is_an_error_naming_the_file(tmp_path: Path) -> None:
    from wisp.errors import AuditError

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "audit.jsonl").mkdir()  # a folder where the file should be
    with pytest.raises(AuditError, match=r"audit\.jsonl: cannot write the audit log"):
        make_log(logs).record(Error(message="lost?", context=""))


def test_concurrent_writers_never_tear_interleave_or_lose_a_line(tmp_path: Path) -> None:
    """8 processes x 5,000 events, 64 KiB files, 1,000 kept (docs/logging.md, "Rotation and
    concurrent writers")."""
    writers, count = 8, 5000
    log_file = tmp_path / "logs" / "audit.jsonl"
    processes = [
        subprocess.Popen(
            [sys.executable, str(WRITER), str(log_file), str(w), str(count), "65536", "1000"]
        )
        for w in range(writers)
    ]
    # Progress: the log grows with every event; a slow machine only makes it grow slower.
    statuses = wait_while_progressing(processes, lambda: bytes_under(tmp_path / "logs"))
    assert statuses == [0] * writers

    seen: dict[str, list[int]] = defaultdict(list)
    ids: set[str] = set()
    total = 0
    for path in log_files(tmp_path / "logs"):
        data = path.read_bytes()
        assert data.endswith(b"\n"), path
        assert len(data) <= 65536, path
        for line in data.splitlines():
            event = msgspec.json.decode(line)  # every line parses
            writer, index = event["details"]["message"].split(":")
            seen[writer].append(int(index))
            ids.add(event["id"])
            total += 1
    assert total == writers * count
    assert len(ids) == total  # ids are unique
    for writer in range(writers):
        assert seen[str(writer)] == list(range(count))  # all there, in order
