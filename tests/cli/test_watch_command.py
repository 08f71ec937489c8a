"""``wisp watch`` at the command line: its help, its usage errors, and a command the deny list
refuses, which ends the watch before it starts (docs/watch.md, "Runs")."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_wisp_s_help_lists_watch_and_its_own_help_has_examples(run_wisp) -> None:
    listed = run_wisp("--help")
    assert "Run a command at start and again whenever a file" in listed.stdout
    helped = run_wisp("watch", "--help")
    assert helped.returncode == 0
    assert "wisp watch -- pytest -q" in helped.stdout
    assert "--restart" in helped.stdout and "routing.tasks.triage" in helped.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([], "name the command to watch after --"),
        (["--path", "nowhere", "--", "true"], "--path nowhere: no such file or folder"),
        (["--interval", "0", "--", "true"], "expected more than 0 seconds, got 0"),
        (["--timeout", "soon", "--", "true"], "expected a number of seconds, got 'soon'"),
    ],
)
def test_a_command_line_wisp_cannot_watch_is_a_usage_error(
    run_wisp, tmp_path: Path, args: list[str], said: str
) -> None:
    refused = run_wisp("watch", *args, cwd=tmp_path)
    assert refused.returncode == 2
    assert said in refused.stderr and "Traceback" not in refused.stderr


def test_a_command_the_deny_list_refuses_exits_2_naming_the_reason(
    run_wisp, tmp_path: Path, audit_lines
) -> None:
    refused = run_wisp("watch", "--", "rm", "-rf", "/", cwd=tmp_path)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.startswith("wisp: rm -rf /: command denied by policy: ")
    assert "deny pattern" in refused.stderr
    kinds = [(line["kind"], line["details"]) for line in audit_lines()]
    start, decision = kinds[0][1], kinds[1][1]
    assert start["entryPoint"] == "watch"
    assert (decision["verdict"], decision["origin"]) == ("denied", "person")
    assert "watch.run" not in [kind for kind, _ in kinds]
