"""``wisp draft`` as a person runs it, in a real git repository made for each test: the text on
stdout and nothing else, its own audited session, the model routed for ``draft``
(docs/draft.md). The embedded model writes for real once; ``script:`` models routed with
``routing.tasks.draft`` say exactly what the cleaning, the tasks and the errors must do with."""

from __future__ import annotations

import json
import subprocess
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from tests.cli.models.test_pull_hf import Terminal
from tests.conftest import WISP
from tests.hang import HANG
from wisp.draft.cleaning import SUBJECT_MOST

CALC = "def add(a, b):\n    return a + b\n"
SUB = "\n\ndef sub(a, b):\n    return a - b\n"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True, timeout=HANG
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with two commits and a staged change."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Ada Example")
    git(repo, "config", "user.email", "ada.example")
    (repo / "README.md").write_text("Arithmetic.\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "Add a README")
    (repo / "calc.py").write_text(CALC)
    git(repo, "add", "calc.py")
    git(repo, "commit", "-q", "-m", "Add calc.add")
    (repo / "calc.py").write_text(CALC + SUB)
    git(repo, "add", "calc.py")
    return repo


def routed(wisp_home: Path, tmp_path: Path, *replies: dict[str, Any], **script: Any) -> Path:
    """``routing.tasks.draft`` set to a replay model answering ``replies`` in order."""
    path = tmp_path / "draft.json"
    path.write_text(json.dumps({"responses": [], "routed": {"draft": list(replies)}, **script}))
    write_config(wisp_home, {"routing": {"tasks": {"draft": f"script:{path}"}}})
    return path


def write_config(wisp_home: Path, config: dict[str, Any]) -> None:
    wisp_home.mkdir(parents=True, exist_ok=True)
    (wisp_home / "config.json").write_text(json.dumps(config))


def events(audit_lines, kind: str) -> list[dict[str, Any]]:
    return [line["details"] for line in audit_lines() if line["kind"] == kind]


@pytest.mark.skipif(find_spec("llama_cpp") is None, reason="needs the local extra")
def test_the_embedded_model_writes_a_commit_message_git_takes(
    run_wisp, repo: Path, audit_lines, tmp_path: Path
) -> None:
    drafted = run_wisp("draft", "commit", cwd=repo)
    assert drafted.returncode == 0, drafted.stderr
    message = drafted.stdout
    assert message.strip() and message.endswith("\n")
    subject = message.splitlines()[0]
    assert subject.strip() and len(subject) <= SUBJECT_MOST
    assert "```" not in message and "wisp:" not in message  # the message alone
    (tmp_path / "message.txt").write_text(message)
    git(repo, "commit", "-q", "-F", str(tmp_path / "message.txt"))
    assert git(repo, "log", "-1", "--format=%s") == subject.strip() + "\n"
    assert git(repo, "status", "--porcelain") == ""
    (start,) = events(audit_lines, "session.start")
    assert start["entryPoint"] == "draft"
    (chosen,) = events(audit_lines, "model.routed")
    assert (chosen["task"], chosen["model"]) == ("draft", "local")
    assert chosen["inputBytes"] > len(SUB)  # the staged diff went to the model


def test_git_commit_takes_the_cleaned_message_through_process_substitution(
    wisp_env: dict[str, str], wisp_home: Path, repo: Path, tmp_path: Path, audit_lines
) -> None:
    wrapped = "Here is the commit message:\n\n```\nAdd calc.sub\n\nIt subtracts b from a.\n```\n"
    routed(wisp_home, tmp_path, {"text": wrapped})
    done = subprocess.run(
        ["bash", "-c", f"git commit -q -F <({WISP} draft commit)"],
        cwd=repo, env=wisp_env, capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert git(repo, "log", "-1", "--format=%B") == "Add calc.sub\n\nIt subtracts b from a.\n\n"
    (chosen,) = events(audit_lines, "model.routed")
    assert (chosen["task"], chosen["reason"]) == ("draft", "routing.tasks.draft names it")
    # The repository's style and its staged change were gathered, each run confined.
    commands = [event["command"] for event in events(audit_lines, "policy.decision")]
    assert [command.split()[:2] for command in commands] == [["git", "log"], ["git", "diff"]]


def test_stdout_is_the_message_alone_and_notes_go_to_stderr(
    run_wisp, wisp_home: Path, repo: Path, tmp_path: Path
) -> None:
    routed(wisp_home, tmp_path, {"text": 'Sure! "Add calc.sub"'})
    drafted = run_wisp("draft", "commit", cwd=repo)
    assert (drafted.returncode, drafted.stdout) == (0, "Add calc.sub\n")
    assert drafted.stderr.startswith("wisp: draft: written by script:")


def test_nothing_staged_is_an_error_before_any_model(
    run_wisp, wisp_home: Path, repo: Path, tmp_path: Path, audit_lines
) -> None:
    routed(wisp_home, tmp_path, {"text": "never asked"})
    git(repo, "commit", "-q", "-m", "Add calc.sub")
    drafted = run_wisp("draft", "commit", cwd=repo)
    assert (drafted.returncode, drafted.stdout) == (2, "")
    assert drafted.stderr == (
        "wisp: nothing is staged to commit: stage the changes first (git add)\n"
    )
    assert [start["entryPoint"] for start in events(audit_lines, "session.start")] == ["draft"]
    assert events(audit_lines, "model.routed") == []


def test_outside_a_repository_the_failing_command_is_named(
    run_wisp, wisp_home: Path, tmp_path: Path
) -> None:
    routed(wisp_home, tmp_path, {"text": "never asked"})
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    drafted = run_wisp("draft", "commit", cwd=elsewhere)
    assert (drafted.returncode, drafted.stdout) == (2, "")
    assert drafted.stderr.startswith("wisp: git diff --cached --no-color ")
    assert " failed (exit " in drafted.stderr


def test_a_diff_too_long_for_the_window_is_cut_to_fit_and_said_so(
    run_wisp, wisp_home: Path, repo: Path, tmp_path: Path
) -> None:
    # The replay model refuses a request over its window, as a server does: this one fits.
    routed(wisp_home, tmp_path, {"text": "Add numbers.txt"}, contextSize=1024)
    (repo / "numbers.txt").write_text("".join(f"line {n}\n" for n in range(5000)))
    git(repo, "add", "numbers.txt")
    drafted = run_wisp("draft", "commit", cwd=repo)
    assert (drafted.returncode, drafted.stdout) == (0, "Add numbers.txt\n"), drafted.stderr
    assert "wisp: draft: The staged changes cut to " in drafted.stderr
    assert "to fit the model's window (1,024 tokens)" in drafted.stderr


def test_a_summary_of_stdin(run_wisp, wisp_home: Path, tmp_path: Path, audit_lines) -> None:
    routed(wisp_home, tmp_path, {"text": "Summary:\nThe team meets on Friday at noon.\n\n"})
    notes = "Minutes. We agreed to meet on Friday at noon in the small room.\n"
    drafted = run_wisp("draft", "summary", "-", input=notes)
    assert (drafted.returncode, drafted.stdout) == (0, "The team meets on Friday at noon.\n")
    (chosen,) = events(audit_lines, "model.routed")
    assert chosen["inputBytes"] > len(notes)


def test_a_task_of_your_own_gathers_its_command_and_its_file(
    run_wisp, wisp_home: Path, repo: Path, tmp_path: Path, audit_lines
) -> None:
    script = routed(wisp_home, tmp_path, {"text": "Yesterday: calc.add. Today: calc.sub."})
    standup = {
        "instructions": "Write my stand-up note from my commits and my list.",
        "inputs": [{"command": "git log -n 1 --format=%s"}, {"file": "todo.txt"}],
    }
    write_config(wisp_home, {
        "routing": {"tasks": {"draft": f"script:{script}"}},
        "draft": {"tasks": {"standup": standup}},
    })  # fmt: skip
    (repo / "todo.txt").write_text("- calc.sub\n")
    drafted = run_wisp("draft", "standup", cwd=repo)
    assert (drafted.returncode, drafted.stdout) == (0, "Yesterday: calc.add. Today: calc.sub.\n")
    commands = [event["command"] for event in events(audit_lines, "policy.decision")]
    assert commands == ["git log -n 1 --format=%s"]
    (repo / "todo.txt").unlink()
    missing = run_wisp("draft", "standup", cwd=repo)
    assert (missing.returncode, missing.stdout) == (2, "")
    assert missing.stderr == "wisp: cannot read todo.txt: No such file or directory\n"


def test_a_task_of_your_own_with_a_bad_entry_names_the_key(
    run_wisp, wisp_home: Path, tmp_path: Path
) -> None:
    write_config(wisp_home, {"draft": {"tasks": {"standup": {"inputs": [{"url": "x"}]}}}})
    drafted = run_wisp("draft", "standup")
    assert drafted.returncode == 2
    assert drafted.stderr == (
        f"wisp: {wisp_home / 'config.json'}: draft.tasks.standup.inputs: expected a list of "
        'objects, each {"command": LINE} or {"file": PATH}\n'
    )


def test_an_unknown_task_exits_2_naming_the_tasks(run_wisp) -> None:
    drafted = run_wisp("draft", "comit")
    assert drafted.returncode == 2
    assert drafted.stderr.startswith(
        "wisp: no draft task 'comit': the tasks are commit, summary, reply; did you mean "
        '"commit"?'
    )


def test_edit_prints_what_the_person_saved(
    run_wisp, wisp_env: dict[str, str], wisp_home: Path, repo: Path, tmp_path: Path
) -> None:
    routed(wisp_home, tmp_path, {"text": "Add calc.sub"})
    wisp_env.pop("VISUAL", None)
    wisp_env["EDITOR"] = "sed -i s/calc.sub/subtraction/"
    drafted = run_wisp("draft", "commit", "--edit", cwd=repo)
    assert (drafted.returncode, drafted.stdout) == (0, "Add subtraction\n"), drafted.stderr
    wisp_env["EDITOR"] = "false"
    refused = run_wisp("draft", "commit", "--edit", cwd=repo)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert "the editor (false) exited with 1: nothing printed" in refused.stderr


def test_on_a_terminal_the_text_shows_as_it_comes(
    wisp_env: dict[str, str], wisp_home: Path, tmp_path: Path
) -> None:
    go_on = tmp_path / "go-on"
    # The replay model streams four characters a piece, and waits after the first: one line.
    reply = {"text": "Hi.\nThe rest comes later.\n", "wait_for_file": str(go_on)}
    routed(wisp_home, tmp_path, reply)
    (tmp_path / "mail.txt").write_text("How are you?\n")
    with Terminal(["draft", "reply", str(tmp_path / "mail.txt")], wisp_env) as terminal:
        terminal.wait_for("Hi.\r\n")  # the first line, while the rest waits
        assert "The rest" not in terminal.text
        go_on.touch()
        assert terminal.finish() == 0, terminal.text
    assert "Hi.\r\nThe rest comes later.\r\n" in terminal.text


def test_help_shows_the_tasks_and_examples(run_wisp) -> None:
    helped = run_wisp("draft", "--help")
    assert helped.returncode == 0
    assert "git commit -F <(wisp draft commit)" in helped.stdout
    assert "draft.tasks.NAME" in helped.stdout


def test_a_model_that_fails_or_writes_nothing_usable_exits_2(
    run_wisp, wisp_home: Path, tmp_path: Path
) -> None:
    script = routed(wisp_home, tmp_path, {"error": "the server went away"})
    failed = run_wisp("draft", "summary", "-", input="Some notes.\n")
    assert (failed.returncode, failed.stdout) == (2, "")
    assert failed.stderr.splitlines()[-1] == (
        f"wisp: the model (script:{script}) could not write it: the server went away"
    )
    routed(wisp_home, tmp_path, {"text": "```\n```"})  # each run replays from the first
    empty = run_wisp("draft", "summary", "-", input="Some notes.\n")
    assert (empty.returncode, empty.stdout) == (2, "")
    assert empty.stderr.splitlines()[-1] == (
        f"wisp: script:{script} wrote nothing to use (its reply: '```\\n```')"
    )
