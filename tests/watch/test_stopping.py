"""Ending what runs: Ctrl-C ends the watch and its command, leaving no process behind;
``--restart`` kills a long run when a change comes and starts the command again (docs/watch.md,
"Runs")."""

from __future__ import annotations

from pathlib import Path

from tests.watch.conftest import PYTHON, SLEEPER, Fifo, events, running


async def test_ctrl_c_ends_the_watch_and_its_command_leaving_no_process(
    start_watch, tmp_path: Path, audit_lines
) -> None:
    sleeper = tmp_path / "sleeper.py"
    sleeper.write_text(SLEEPER)
    started = Fifo(tmp_path / "started")
    watching = await start_watch("--no-triage", "--", PYTHON, str(sleeper), str(started.path))
    assert await started.line() == "started\n"
    watch = watching.process.pid
    assert running(str(sleeper), but=watch)  # the marker finds the command while it runs
    code, stderr = await watching.stop()
    assert code == 130 and "Traceback" not in stderr
    assert running(str(sleeper)) == []
    assert events(audit_lines, "watch.run") == []  # a launch the person stopped is not a run


async def test_restart_kills_a_long_run_and_starts_the_command_again(
    start_watch, tree: Path, tmp_path: Path, put, audit_lines
) -> None:
    sleeper = tmp_path / "sleeper.py"
    sleeper.write_text(SLEEPER)
    started = Fifo(tmp_path / "started")
    watching = await start_watch(
        "--restart", "--no-triage", "--", PYTHON, str(sleeper), str(started.path)
    )
    assert await started.line() == "started\n"
    watch = watching.process.pid
    first = set(running(str(sleeper), but=watch))
    put(tree / "app.py", "print('changed')\n")
    restart = await watching.until(" restart · ")
    assert "change: app.py" in restart
    assert await started.line() == "started\n"  # the command again, from its start
    again = set(running(str(sleeper), but=watch))
    assert first and again and not first & again  # the first run's processes are gone
    code, _ = await watching.stop()
    assert code == 130 and running(str(sleeper)) == []
    decisions = [d for d in events(audit_lines, "policy.decision") if str(sleeper) in d["command"]]
    assert len(decisions) == 2 and events(audit_lines, "watch.run") == []
