"""Reading the audit log back: order across files, filters, torn and foreign lines."""

from __future__ import annotations

from pathlib import Path

from wisp.audit import AuditLog, FileSink
from wisp.audit.event_filter import EventFilter
from wisp.audit.kinds import CommandOutcome, ConfigChange, Error, PolicyDecision, ToolCall
from wisp.audit.line_scan import Record
from wisp.audit.reader import read_events


def make_log(logs: Path, session: str = "aaaa000011112222", **limits: int) -> AuditLog:
    sink = FileSink(
        logs / "audit.jsonl",
        max_file_bytes=limits.get("max_file_bytes", 1 << 30),
        keep_files=limits.get("keep_files", 1000),
    )
    return AuditLog(sink, session=session)


def read(logs: Path, event_filter: EventFilter | None = None) -> tuple[list[Record], list[str]]:
    warnings: list[str] = []
    records = list(read_events(logs, event_filter or EventFilter(), warnings.append))
    return records, warnings


def messages(records: list[Record]) -> list[str]:
    return [record.event.details["message"] for record in records]


def policy(command: str) -> PolicyDecision:
    return PolicyDecision(
        command=command,
        working_directory="/tmp",
        verdict="allowed",
        reason="test",
        sandbox=True,
        network=False,
        nested=False,
    )


def test_events_come_oldest_first_across_rotated_files(tmp_path: Path) -> None:
    log = make_log(tmp_path, max_file_bytes=1024)
    for index in range(50):
        log.record(Error(message=f"{index}", context="order"))
    assert len(list(tmp_path.glob("audit.*.jsonl"))) > 3
    records, warnings = read(tmp_path)
    assert messages(records) == [f"{index}" for index in range(50)]
    assert warnings == []


def test_no_logs_folder_reads_as_no_events(tmp_path: Path) -> None:
    assert read(tmp_path / "missing") == ([], [])


def test_raw_is_the_stored_line_byte_for_byte(tmp_path: Path) -> None:
    make_log(tmp_path).record(Error(message="é ✓", context=""))
    (record,), _ = read(tmp_path)
    assert record.raw + b"\n" == (tmp_path / "audit.jsonl").read_bytes()


def test_kind_filter_keeps_only_those_kinds(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    log.record(Error(message="e", context=""))
    log.record(ConfigChange(path="a.b", old=None, new=1, source="cli"))
    log.record(ToolCall(tool="read_file", arguments={"note": "kind config.change in text"}))
    records, _ = read(tmp_path, EventFilter(kinds=frozenset({"config.change"})))
    assert [record.event.kind for record in records] == ["config.change"]


def test_a_kind_named_inside_another_events_text_does_not_match(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    log.record(Error(message='"config.change"', context='{"kind":"config.change"}'))
    records, _ = read(tmp_path, EventFilter(kinds=frozenset({"config.change"})))
    assert records == []


def test_session_filter_takes_a_prefix(tmp_path: Path) -> None:
    make_log(tmp_path, session="5fd0cf21aaaaaaaa").record(Error(message="mine", context=""))
    make_log(tmp_path, session="9999999999999999").record(Error(message="other", context=""))
    records, _ = read(tmp_path, EventFilter(session="5fd0"))
    assert messages(records) == ["mine"]


def test_tool_filter_takes_its_calls_and_the_events_of_its_work(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    log.record(ToolCall(tool="run_command", arguments={"command": "ls"}), call="c1")
    log.record(policy("ls"))
    log.record(
        CommandOutcome(
            command="ls", exit_status=0, timed_out=False, truncated=False, stdout="", stderr="",
            seconds=0.1,
        )
    )  # fmt: skip
    log.record(ToolCall(tool="read_file", arguments={"path": "run_command.txt"}), call="c2")
    records, _ = read(tmp_path, EventFilter(tool="run_command"))
    assert [record.event.kind for record in records] == [
        "tool.call", "policy.decision", "command.outcome"
    ]  # fmt: skip


def test_an_unknown_kind_is_read_as_it_is(tmp_path: Path) -> None:
    line = b'{"schema":1,"id":"00000000000000aa","time":"2027-01-01T00:00:00.000Z",'
    line += b'"version":"9.0","pid":1,"session":"s","kind":"future.thing","details":{"x":1}}\n'
    (tmp_path / "audit.jsonl").write_bytes(line)
    (record,), warnings = read(tmp_path)
    assert record.event.kind == "future.thing"
    assert record.event.details == {"x": 1}
    assert warnings == []


def test_a_line_from_before_ids_is_read(tmp_path: Path) -> None:
    line = b'{"schema":1,"time":"2026-01-01T00:00:00.000Z","version":"0.1","pid":1,'
    line += b'"session":"s","kind":"error","details":{"message":"old","context":""}}\n'
    (tmp_path / "audit.jsonl").write_bytes(line)
    records, _ = read(tmp_path)
    assert messages(records) == ["old"]


def test_a_torn_last_line_is_skipped_with_a_note_naming_the_file(tmp_path: Path) -> None:
    make_log(tmp_path).record(Error(message="whole", context=""))
    with open(tmp_path / "audit.jsonl", "ab") as file:
        file.write(b'{"schema":1,"id":"0123')
    records, warnings = read(tmp_path)
    assert messages(records) == ["whole"]
    assert len(warnings) == 1
    assert str(tmp_path / "audit.jsonl") in warnings[0] and "partial line" in warnings[0]


def test_a_broken_line_inside_a_file_is_skipped_naming_its_line(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    log.record(Error(message="one", context=""))
    with open(tmp_path / "audit.jsonl", "ab") as file:
        file.write(b"not json at all\n")
    log.record(Error(message="three", context=""))
    records, warnings = read(tmp_path)
    assert messages(records) == ["one", "three"]
    assert warnings == [f"{tmp_path / 'audit.jsonl'}:2: not an audit event; skipped"]
