"""`wisp logs`, through the real console script, as a person runs it."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import msgspec

from tests.hang import HANG
from wisp.audit import REGISTRY, AuditLog, FileSink
from wisp.audit.kinds import ConfigChange, Error, ToolCall, ToolResult

WISP_LINE = b'{"schema":1,"id":"%s","time":"2026-11-30T10:00:00.000Z","version":"0.1.0",'


def audit_log(home: Path, session: str = "5fd0cf21aaaabbbb", **limits: int) -> AuditLog:
    sink = FileSink(
        home / "logs" / "audit.jsonl",
        max_file_bytes=limits.get("max_file_bytes", 1 << 30),
        keep_files=limits.get("keep_files", 1000),
    )
    return AuditLog(sink, session=session)


def test_no_logs_folder_prints_nothing_and_succeeds(run_wisp, wisp_home: Path) -> None:
    result = run_wisp("logs")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert not wisp_home.exists()


def test_kind_last_json_prints_exactly_the_newest_such_lines(run_wisp, wisp_home: Path) -> None:
    log = audit_log(wisp_home)
    for index in range(12):
        log.record(ConfigChange(path="k", old=index, new=index + 1, source="cli"))
        log.record(Error(message=f"noise {index}", context=""))
    result = run_wisp("logs", "--kind", "config.change", "--last", "5", "--json")
    assert result.returncode == 0, result.stderr
    stored = (wisp_home / "logs" / "audit.jsonl").read_text().splitlines()
    changes = [line for line in stored if '"kind":"config.change"' in line]
    assert result.stdout.splitlines() == changes[-5:]


def test_summary_lines_name_time_session_turn_kind_and_detail(run_wisp, wisp_home) -> None:
    log = audit_log(wisp_home)
    log.turn = 3
    log.record(ToolCall(tool="current_date", arguments={}), call="c1")
    log.record(
        ToolResult(tool="current_date", output="2026-11-30", bytes=10, seconds=0.002), call="c1"
    )
    result = run_wisp("logs")
    call, outcome = result.stdout.splitlines()
    assert call.split()[2:] == ["5fd0cf21", "t3", "tool.call", "current_date", "{}"]
    assert outcome.split()[2:6] == ["5fd0cf21", "t3", "tool.result", "current_date"]
    assert '"2026-11-30"' in outcome


def test_unknown_kind_is_shown_and_a_torn_line_noted(run_wisp, wisp_home: Path) -> None:
    audit_log(wisp_home).record(Error(message="known", context=""))
    with open(wisp_home / "logs" / "audit.jsonl", "ab") as file:
        file.write(WISP_LINE % b"00000000000000ff")
        file.write(b'"pid":7,"session":"feedfacefeedface","kind":"future.kind",')
        file.write(b'"details":{"what":"from a newer wisp"}}\n')
        file.write(b'{"schema":1,"id":"ab')  # a writer killed mid-line
    result = run_wisp("logs")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    assert "future.kind" in lines[1] and "from a newer wisp" in lines[1]
    note = result.stderr.strip()
    assert note.count("\n") == 0
    assert "audit.jsonl" in note and "partial line" in note


def test_filters_combine(run_wisp, wisp_home: Path) -> None:
    audit_log(wisp_home, "aaaa111100000000").record(Error(message="a", context=""))
    audit_log(wisp_home, "bbbb222200000000").record(Error(message="b", context=""))
    audit_log(wisp_home, "bbbb222200000000").record(
        ConfigChange(path="x", old=None, new=1, source="cli")
    )
    result = run_wisp("logs", "--session", "bbbb", "--kind", "error", "--json")
    assert [
        msgspec.json.decode(line)["details"]["message"] for line in result.stdout.splitlines()
    ] == ["b"]


def test_an_unknown_kind_is_a_usage_error_that_lists_the_kinds(run_wisp, wisp_home) -> None:
    audit_log(wisp_home).record(Error(message="e", context=""))
    result = run_wisp("logs", "--kind", "nosuchkind")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.count("\n") == 1
    assert "'nosuchkind'" in result.stderr and "did you mean" not in result.stderr
    assert ", ".join(REGISTRY) in result.stderr  # every kind, in the registry's order


def test_a_kind_one_slip_away_gets_a_hint(run_wisp, wisp_home: Path) -> None:
    audit_log(wisp_home).record(Error(message="e", context=""))
    result = run_wisp("logs", "--kind", "config.chnage")
    assert (result.returncode, result.stdout) == (2, "")
    assert "did you mean config.change?" in result.stderr


def test_among_several_kinds_only_the_unknown_one_is_named(run_wisp) -> None:
    result = run_wisp("logs", "--kind", "error", "--kind", "tool.cal", "--kind", "tool.result")
    assert result.returncode == 2
    assert "'tool.cal'" in result.stderr and "did you mean tool.call?" in result.stderr
    assert "'error'" not in result.stderr and "'tool.result'" not in result.stderr


def test_several_kinds_show_each(run_wisp, wisp_home: Path) -> None:
    log = audit_log(wisp_home)
    log.record(Error(message="e", context=""))
    log.record(ConfigChange(path="k", old=1, new=2, source="cli"))
    log.record(ToolCall(tool="current_date", arguments={}), call="c1")
    result = run_wisp("logs", "--kind", "error", "--kind", "config.change", "--json")
    kinds = [msgspec.json.decode(line)["kind"] for line in result.stdout.splitlines()]
    assert (result.returncode, kinds) == (0, ["error", "config.change"])


def test_bad_usage_exits_2_without_a_traceback(run_wisp) -> None:
    result = run_wisp("logs", "--last", "many")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "--last" in result.stderr


def test_help_explains_the_options(run_wisp) -> None:
    result = run_wisp("logs", "--help")
    assert result.returncode == 0
    for option in ("--session", "--kind", "--tool", "--last", "--json", "--follow"):
        assert option in result.stdout


async def test_follow_prints_new_events_across_rotations(
    wisp_script: Path, wisp_env: dict[str, str], wisp_home: Path
) -> None:
    log = audit_log(wisp_home, max_file_bytes=2048, keep_files=100)
    log.record(Error(message="history", context=""))
    process = await asyncio.create_subprocess_exec(
        str(wisp_script), "logs", "--follow", "--json",
        env=wisp_env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None

    async def next_message() -> str:
        line = await asyncio.wait_for(process.stdout.readline(), timeout=HANG)
        return msgspec.json.decode(line)["details"]["message"]

    try:
        assert await next_message() == "history"  # the follower is in place from here on
        for index in range(40):  # about ten rotations
            log.record(Error(message=f"new {index}", context="x" * 100))
        assert [await next_message() for _ in range(40)] == [f"new {i}" for i in range(40)]
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=HANG)
    assert process.returncode == 0
    assert b"Traceback" not in stderr


def test_wisp_logs_starts_without_the_agents_libraries(wisp_env) -> None:
    """Startup is most of `wisp logs` on a small log: it must not pay for httpx or Textual."""
    import subprocess
    import sys

    code = (
        "import sys; from wisp.cli.main import main; main(['logs']); "
        "print(sorted({m.split('.')[0] for m in sys.modules}"
        " & {'httpx', 'textual', 'rich', 'asyncio', 'llama_cpp'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], env=wisp_env, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
