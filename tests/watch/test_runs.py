"""``wisp watch`` as a person runs it, on a real tree: a run at start and one for each write,
each recorded as ``watch.run`` with its previous state, a notification for each change of
state and none besides, a run going when a change comes finished first (docs/watch.md,
"Triggers", "Runs")."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.watch.conftest import GATE, PYTHON, Fifo, events

BROKEN = "def test_addition():\n    assert 1 + 1 == 3\n"
FIXED = "def test_addition():\n    assert 1 + 1 == 2\n"

WATCH_RUN_FIELDS = {
    "command", "run", "trigger", "exitStatus", "timedOut", "state", "previous", "changed",
    "seconds", "findings", "triageError", "notified",
}  # fmt: skip


async def test_a_failing_test_fixed_and_broken_again_runs_on_each_write(
    start_watch, tree: Path, put, audit_lines
) -> None:
    (tree / "test_math.py").write_text(BROKEN)
    watching = await start_watch("--no-triage", "--", PYTHON, "-m", "pytest", "-q", "test_math.py")
    first = await watching.run()
    assert (first.number, first.trigger, first.changed, first.verdict) == (
        1, "start", None, "fail (exit 1)",
    )  # fmt: skip
    put(tree / "test_math.py", FIXED)
    second = await watching.run()
    assert "test_math.py:2: AssertionError" in first.under  # the output, under its line
    assert (second.number, second.trigger, second.changed, second.verdict) == (
        2, "change", "test_math.py", "pass",
    )  # fmt: skip
    put(tree / "test_math.py", BROKEN)
    third = await watching.run()
    assert (third.number, third.changed, third.verdict) == (3, "test_math.py", "fail (exit 1)")
    code, stderr = await watching.stop()
    assert code == 130 and "Traceback" not in stderr
    runs = events(audit_lines, "watch.run")
    assert all(set(run) == WATCH_RUN_FIELDS for run in runs)
    assert [(r["run"], r["trigger"], r["state"], r["previous"], r["changed"]) for r in runs] == [
        (1, "start", "fail", None, False),
        (2, "change", "pass", "fail", True),
        (3, "change", "fail", "pass", True),
    ]
    assert {(r["findings"], r["triageError"], r["notified"]) for r in runs} == {(None, None, False)}


async def test_one_notification_for_each_change_of_state_and_none_besides(
    start_watch, tree: Path, put, audit_lines
) -> None:
    (tree / "state.txt").write_text("bad\n")
    watching = await start_watch("--no-triage", "--", "grep", "-q", "good", "state.txt")
    for number, text in enumerate(["bad again\n", "good\n", "good still\n", "bad\n"], 2):
        await watching.run(number - 1)
        put(tree / "state.txt", text)
    last = await watching.run(5)
    assert last.verdict == "fail (exit 1)"
    _, stderr = await watching.stop()
    runs = events(audit_lines, "watch.run")
    assert [r["state"] for r in runs] == ["fail", "fail", "pass", "pass", "fail"]
    assert [r["changed"] for r in runs] == [False, False, True, False, True]
    notifications = events(audit_lines, "notification")
    assert [n["title"] for n in notifications] == [
        "passes again: grep -q good state.txt",
        "fails: grep -q good state.txt",
    ]
    # No route here (no front end, stderr a pipe, no desktop bus): each refused, saying why.
    assert {(n["source"], n["outcome"]) for n in notifications} == {("watch", "refused")}
    assert all(len(n["skipped"]) == 3 for n in notifications)
    assert stderr.count("could not be notified") == 1  # said once, not at each change


async def test_a_run_going_when_changes_come_is_finished_then_one_more_run_follows(
    start_watch, tree: Path, tmp_path: Path, put
) -> None:
    gate = tmp_path / "gate.py"
    gate.write_text(GATE)
    started, release = Fifo(tmp_path / "started"), Fifo(tmp_path / "release")
    watching = await start_watch(
        "--no-triage", "--", PYTHON, str(gate), str(started.path), str(release.path)
    )
    assert await started.line() == "started\n"
    put(tree / "a.txt", "a")
    release.send("0")  # run 1 ends only now, the change having come while it ran
    first = await watching.run()
    assert (first.number, first.trigger, first.verdict) == (1, "start", "pass")
    assert await started.line() == "started\n"
    release.send("1")
    second = await watching.run()
    assert (second.number, second.trigger, second.changed) == (2, "change", "a.txt")
    assert second.verdict == "fail (exit 1)"
    put(tree / "c.txt", "c")  # the next run is this change's: none was left over
    assert await started.line() == "started\n"
    release.send("0")
    third = await watching.run()
    assert (third.number, third.changed, third.verdict) == (3, "c.txt", "pass")
    await watching.stop()


async def test_the_interval_runs_the_command_again_when_nothing_changed(
    start_watch, audit_lines
) -> None:
    watching = await start_watch("--no-triage", "--interval", "0.05", "--", "true")
    runs = [await watching.run() for _ in range(3)]
    assert [(run.number, run.trigger) for run in runs] == [
        (1, "start"), (2, "interval"), (3, "interval"),
    ]  # fmt: skip
    await watching.stop()
    assert [r["trigger"] for r in events(audit_lines, "watch.run")][:3] == [
        "start", "interval", "interval",
    ]  # fmt: skip


async def test_a_change_to_a_file_git_ignores_starts_nothing(start_watch, tree: Path, put) -> None:
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    (tree / ".gitignore").write_text("*.log\nbuild/\n")
    (tree / "build").mkdir()
    watching = await start_watch("--no-triage", "--", "true")
    await watching.run(1)
    (tree / "debug.log").write_text("ignored")
    (tree / "build" / "out.o").write_text("ignored, beneath an ignored folder")
    (tree / "__pycache__").mkdir()
    (tree / "__pycache__" / "x.pyc").write_text("passed over by name")
    put(tree / "notes.txt", "seen")
    second = await watching.run()
    # Had any of the first three started a run, this would be its, or name several files.
    assert (second.number, second.changed) == (2, "notes.txt")
    await watching.stop()


async def test_a_git_the_models_commands_could_write_is_never_run(
    start_watch, tree: Path, put, watch_env: dict[str, str], tmp_path: Path
) -> None:
    # The watched folder is writable by the model's commands: a `git` planted on PATH there
    # must never answer wisp's ignore questions; the real one, outside, still does.
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    (tree / ".gitignore").write_text("*.log\n")
    planted = tree / "bin" / "git"
    planted.parent.mkdir()
    marker = tmp_path / "planted-git-ran"
    planted.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    planted.chmod(0o755)
    watch_env["PATH"] = f"{planted.parent}{os.pathsep}{watch_env['PATH']}"
    watching = await start_watch("--no-triage", "--", "true")
    await watching.run(1)
    (tree / "debug.log").write_text("ignored by the real git")
    put(tree / "notes.txt", "seen")
    second = await watching.run()
    assert (second.number, second.changed) == (2, "notes.txt")
    await watching.stop()
    assert not marker.exists()


async def test_the_timeout_stops_a_long_run_and_fails_it(
    start_watch, tmp_path: Path, audit_lines
) -> None:
    gate = tmp_path / "gate.py"
    gate.write_text(GATE)
    started, release = Fifo(tmp_path / "started"), Fifo(tmp_path / "release")
    watching = await start_watch(
        "--no-triage", "--timeout", "0.5", "--",
        PYTHON, str(gate), str(started.path), str(release.path),
    )  # fmt: skip
    await started.line()  # never released: only the time limit ends it
    first = await watching.run()
    assert first.verdict == "fail (timed out)"
    await watching.stop()
    (run,) = events(audit_lines, "watch.run")
    assert run["timedOut"] is True and run["state"] == "fail"


async def test_a_watched_file_is_seen_through_each_save_that_renames_a_new_one_over_it(
    start_watch, tree: Path
) -> None:
    (tree / "config.toml").write_text("a = 1\n")
    watching = await start_watch("--no-triage", "--path", "config.toml", "--", "true")
    await watching.run(1)
    for number in (2, 3):  # the second save replaces the file the first one put there
        (tree / "notes.txt").write_text(f"{number}\n")  # beside the file: passed over
        scratch = tree / f".config.toml.{number}"
        scratch.write_text(f"a = {number}\n")
        scratch.rename(tree / "config.toml")
        run = await watching.run()
        assert (run.number, run.trigger, run.changed) == (number, "change", "config.toml")
    await watching.stop()
