"""run_command end to end through `wisp`: a real repository, the real Landlock sandbox."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import RunWisp
from tests.hang import HANG
from wisp.sandbox.plan import probe_uncached

WISP = Path(sys.executable).parent / "wisp"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True, timeout=HANG
    )
    return done.stdout.strip()


def one_shot(
    run_wisp: RunWisp, cwd: Path, prompt: str, *arguments: dict[str, object], **script: object
) -> subprocess.CompletedProcess[str]:
    """``wisp --yes PROMPT`` in ``cwd`` on a script that calls run_command with each of
    ``arguments`` and then says done (``script``: the file's other keys)."""
    calls = [{"tool_calls": [{"name": "run_command", "arguments": a}]} for a in arguments]
    path = cwd.parent / f"{cwd.name}-script.json"
    path.write_text(json.dumps({"responses": [*calls, {"text": "done"}], **script}))
    done = run_wisp("--yes", "-m", f"script:{path}", prompt, input="", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done


def test_a_confined_git_commit_by_the_model_works(
    tmp_path: Path, run_wisp: RunWisp, audit_lines
) -> None:
    # wisp's own git runs confined and ignores the repository's programs; the model's git, confined
    # in the working directory, still commits.
    if probe_uncached().landlock_abi is None:
        pytest.skip("this kernel has no Landlock")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "t")
    git(repo, "config", "user.email", "t@example.com")
    (repo / "notes.txt").write_text("one\n")
    line = "git add notes.txt && git commit -qm 'the model commits'"
    one_shot(run_wisp, repo, "commit notes.txt", {"command": line})
    assert git(repo, "log", "--format=%s") == "the model commits"
    decisions = [e["details"] for e in audit_lines() if e["kind"] == "policy.decision"]
    assert [d["sandbox"] for d in decisions] == [True]  # it ran confined


def test_a_long_output_held_back_by_run_command_is_kept_under_the_id_its_marker_names(
    tmp_path: Path, run_wisp: RunWisp, wisp_home: Path, audit_lines
) -> None:
    # run_command fits its output to B itself; the whole of it must still be kept, or the
    # marker's "of output <id>" names nothing memory can recall.
    one_shot(run_wisp, tmp_path, "count", {"command": "seq 1 200000"})
    events = audit_lines()
    result = next(e for e in events if e["kind"] == "tool.result")
    kept = [e for e in events if e["kind"] == "output.kept"]
    assert [e["call"] for e in kept] == [result["call"]]
    assert f"of output {result['call']};" in result["details"]["output"]
    whole = "".join(f"{n}\n" for n in range(1, 200_001))
    stored = wisp_home / "output" / result["session"] / result["call"]
    assert stored.read_text() == whole
    assert kept[0]["details"]["totalBytes"] == len(whole)


def test_on_a_small_window_a_call_may_still_send_the_parameters_it_was_not_offered(
    tmp_path: Path, run_wisp: RunWisp, audit_lines
) -> None:
    # A small window is not offered workingDirectory or timeoutSeconds (to save prompt
    # tokens); a model that sends them anyway is still taken at its word.
    folder = tmp_path / "sub"
    folder.mkdir()
    arguments = {"command": "pwd", "workingDirectory": str(folder), "timeoutSeconds": 30}
    one_shot(run_wisp, tmp_path, "where am I?", arguments, contextSize=4096)
    events = audit_lines()
    decision = next(e["details"] for e in events if e["kind"] == "policy.decision")
    outcome = next(e["details"] for e in events if e["kind"] == "command.outcome")
    assert decision["workingDirectory"] == str(folder)
    assert outcome["timeoutSeconds"] == 30
    assert outcome["stdout"].strip() == str(folder)


def run_in(tmp_path: Path, run_wisp: RunWisp, arguments: dict[str, object]) -> str:
    """One ``run_command`` call through ``wisp --yes`` started in ``tmp_path / "work"``; the
    result the model got. The prompt asks for an action, so a command that fails is reported
    as it is, not sent back to be tried another way (docs/turn.md, "An answer that
    answers")."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return one_shot(run_wisp, work, "Run it in that folder.", arguments).stdout


@pytest.mark.parametrize(("given", "folder"), [(".", "work"), ("src", "work/src")])
def test_a_relative_working_directory_runs_in_the_conversations_folder(
    tmp_path: Path, run_wisp: RunWisp, audit_lines, given: str, folder: str
) -> None:
    # Qwen2.5-Coder-1.5B sends workingDirectory "." to list files (bench/tasks.py); it was
    # refused as not absolute, and the model answered with the refusal.
    (tmp_path / "work" / "src").mkdir(parents=True)
    run_in(tmp_path, run_wisp, {"command": "pwd", "workingDirectory": given})
    events = audit_lines()
    decision = next(e["details"] for e in events if e["kind"] == "policy.decision")
    outcome = next(e["details"] for e in events if e["kind"] == "command.outcome")
    assert decision["workingDirectory"] == str(tmp_path / folder)
    assert outcome["stdout"].strip() == str(tmp_path / folder)


def test_a_relative_working_directory_out_of_the_folder_is_confined_as_an_absolute_one(
    tmp_path: Path, run_wisp: RunWisp, audit_lines
) -> None:
    # ".." is resolved, not trusted: the policy and the sandbox decide on the folder it names,
    # exactly as for that folder written absolute, and nothing is written there.
    if probe_uncached().landlock_abi is None:
        pytest.skip("this kernel has no Landlock")
    work = tmp_path / "work"
    up_to_etc = "../" * (len(work.parts) - 1) + "etc"  # /etc, where only the sandbox stops us
    leaf = f"wisp-test-{os.getpid()}-escaped"
    decided = []
    try:
        for given in (up_to_etc, "/etc"):
            run_in(tmp_path, run_wisp, {"command": f"pwd; touch {leaf}", "workingDirectory": given})
            events = audit_lines()
            decision = [e["details"] for e in events if e["kind"] == "policy.decision"][-1]
            outcome = [e["details"] for e in events if e["kind"] == "command.outcome"][-1]
            decided.append((decision["verdict"], decision["sandbox"], decision["workingDirectory"]))
            assert outcome["stdout"].strip() == "/etc"
            assert outcome["exitStatus"] != 0  # touch was refused by the sandbox
        assert decided == [("allowed", True, "/etc")] * 2
        assert not (Path("/etc") / leaf).exists()
    finally:
        (Path("/etc") / leaf).unlink(missing_ok=True)
