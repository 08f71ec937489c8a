"""bench/tasks.py, the task suite, judged on scripted models (``script:``, instant replies).

A scripted model that does every task right must pass them all; one that fails must be
blamed on the model or on wisp as the failure deserves. The real runs through ``wisp``
subprocesses are the suite's own machinery; the failures wisp itself prevents (a call left as
text, a fourth identical call, a silent reply, a reply past the cap) cannot be produced
through today's wisp, so they are judged on runs made by hand.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.bench.scripts import load_bench

BENCH = Path(__file__).resolve().parents[2] / "bench" / "tasks.py"


tasks = load_bench("tasks")


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def text(words: str, tokens: int = 0) -> dict[str, Any]:
    reply: dict[str, Any] = {"text": words}
    if tokens:
        reply["usage"] = {"input": tokens, "output": 5}
    return reply


def right_replies(never: Path) -> dict[str, list[dict[str, Any]]]:
    """What a model that does each task right answers, request by request."""
    return {
        "read": [call("read_file", path="notes.txt"), text("The code word is PELICAN.")],
        "date": [call("current_date"), text(f"Today is {dt.date.today().isoformat()}.")],
        "list": [call("run_command", command="ls"), text("alpha.txt, beta.py and gamma.cfg")],
        "count": [call("run_command", command="wc -l data.csv"), text("It has 37 lines.")],
        "config": [
            call(
                "edit_file",
                path="settings.json",
                mode="replace",
                find='"port": 8080',
                content='"port": 9090',
            ),
            text("The port is now 9090."),
        ],
        "branch": [
            call("run_command", command="git branch --show-current"),
            text("You are on feature/pelican-42."),
        ],
        "find": [
            call("run_command", command="grep -rl 'legacy cache' ."),
            text("It is in src/server.py."),
        ],
        "log": [
            call("read_file", path="app.log"),
            text("The database refused the connection to db.internal:5432."),
        ],
        "greeting": [text("Hello! I am a model wisp runs.", tokens=321)],
        "no-tool": [text("Paris", tokens=300)],
        "refused": [
            call("run_command", command="sudo apt-get update"),
            text("wisp's policy refused it: sudo runs as another user."),
        ],
        # Held out.
        "version": [call("read_file", path="pyproject.toml"), text("It is version 3.7.2.")],
        "todo": [call("run_command", command="grep -c TODO main.py"), text("There are 3.")],
        "create": [
            call("edit_file", path="hello.txt", mode="write", content="Hello, world\n"),
            text("Made hello.txt."),
        ],
        "largest": [call("run_command", command="ls -S | head -1"), text("dump.sql")],
        "python": [
            call("run_command", command="python3 --version"),
            text(f"Python {python_version()} is installed."),
        ],
        "multiply": [text("391", tokens=300)],
        # Held out, the second set.
        "author": [call("read_file", path="package.json"), text("Grace Hopper.")],
        "words": [call("run_command", command="wc -w poem.txt"), text("It has 14 words.")],
        "append": [
            call("edit_file", path="tasks.txt", mode="append", content="done\n"),
            text("Added."),
        ],
        "newest": [call("run_command", command="ls -t | head -1"), text("zeta.csv")],
        "kernel": [
            call("run_command", command="uname -r"),
            text(f"It runs Linux {os.uname().release}."),
        ],
        "minutes": [text("180", tokens=300)],
        # Held out, the third set.
        "crate": [call("read_file", path="Cargo.toml"), text("It is ferris-tools.")],
        "functions": [
            call("run_command", command="grep -c 'def ' utils.py"),
            text("Four: slugify, home, get and clamp."),
        ],
        "status": [
            call("edit_file", path="status.txt", mode="replace", find="draft", content="final"),
            text("Changed."),
        ],
        "files": [call("run_command", command="ls | wc -l"), text("There are 5 files.")],
        "cores": [
            call("run_command", command="nproc"),
            text(f"It has {len(os.sched_getaffinity(0))} cores."),
        ],
        "divide": [text("12", tokens=300)],
        # Held out, the fourth set.
        "host": [call("read_file", path="app.ini"), text("db7.internal")],
        "rows": [call("run_command", command="tail -n +2 sales.csv | wc -l"), text("8 rows.")],
        # No rule offers edit_file for "remove": the first call is withheld, and retried.
        "remove": [
            call("edit_file", path="items.txt", mode="replace", find="obsolete\n", content=""),
            call("edit_file", path="items.txt", mode="replace", find="obsolete\n", content=""),
            text("Removed."),
        ],
        "longest": [call("run_command", command="wc -l *.txt"), text("long.txt, 40 lines.")],
        "hostname": [call("run_command", command="hostname"), text(os.uname().nodename)],
        "plus": [text("83", tokens=300)],
        # The story's first words stream, then it waits for a file that never comes: the
        # SIGINT, sent once text has streamed, is what ends it.
        "interrupt": [{"text": "Once upon a time, " * 20, "wait_for_file": str(never)}],
    }


def python_version() -> str:
    """``python3 --version`` here, as the python task checks it: major.minor."""
    found = subprocess.run(["python3", "--version"], capture_output=True, text=True, check=True)
    return found.stdout.split()[1]


def scripts(folder: Path, replies: dict[str, list[dict[str, Any]]]) -> str:
    """One script file per task; the model name the suite expands per task."""
    folder.mkdir(exist_ok=True)
    for name, responses in replies.items():
        body = {"responses": responses, "contextSize": 8192}
        (folder / f"{name}.json").write_text(json.dumps(body))
    return f"script:{folder}/{{task}}.json"


def test_a_model_that_does_each_task_right_passes_them_all(tmp_path: Path) -> None:
    model = scripts(tmp_path / "right", right_replies(tmp_path / "never"))
    report = tasks.run_suite(model, tasks.tasks_named(None), timeout=300, jobs=4)
    failed = {v.task: v.reason for v in report.tasks if not v.passed}
    assert failed == {}
    summary = report.summary
    assert summary["passed"] == summary["tasks"] == len(tasks.TASKS) >= 12
    # The held out are counted apart.
    assert summary["heldOutPassed"] == summary["heldOutTasks"] == len(tasks.HELD_OUT) == 6
    assert summary["secondHeldOutPassed"] == summary["secondHeldOutTasks"] == 6
    assert summary["thirdHeldOutPassed"] == summary["thirdHeldOutTasks"] == 6
    assert summary["fourthHeldOutPassed"] == summary["fourthHeldOutTasks"] == 6
    assert "held out 6/6   second set 6/6   third set 6/6   fourth set 6/6" in tasks.table(report)
    assert "held out, second set:\nauthor" in tasks.table(report)
    assert "held out, third set:\ncrate" in tasks.table(report)
    assert summary["wispFailures"] == summary["callsLeftAsText"] == summary["emptyReplies"] == 0
    assert summary["firstRequestPromptTokens"] == 300
    assert report.wisp.endswith("wisp/__init__.py")


def test_a_model_that_fails_is_blamed_for_what_it_did(tmp_path: Path) -> None:
    repeat = call("read_file", path="notes.txt")
    replies = {
        # The wrong tool (asked again with every tool, as the assessment retries a call of a
        # tool it did not offer), then a wrong answer.
        "read": [call("current_date"), call("current_date"), text("I do not know.")],
        # The right tool with the wrong file.
        "log": [call("read_file", path="other.log"), text("There is no error.")],
        # The right call, then an answer that ignores its result.
        "count": [call("run_command", command="wc -l data.csv"), text("It has 12 lines.")],
        # The same call twice in a row: wisp withdraws the tools; the answer is still wrong.
        # (read_file is not what the rules offer for a date: the first is asked again.)
        "date": [repeat, repeat, repeat, text("I could not find it.")],
        # (The first is asked again with every tool: the rules offered run_command alone.)
        "find": [*[call("read_file", path="src/server.py")] * 3, text("In no file.")],
        # Empty twice: wisp asks again, then fails the turn saying so.
        "greeting": [text(""), text("")],
        # A reply that repeats itself: wisp cuts it.
        "no-tool": [text("I am a wizard, a wizard. " * 200)],
    }
    model = scripts(tmp_path / "wrong", replies)
    chosen = tasks.tasks_named(",".join(replies))
    report = tasks.run_suite(model, chosen, timeout=300, jobs=4)
    why = {v.task: (v.blame, v.reason) for v in report.tasks}
    assert why["read"] == ("model", "wrong tool: called current_date")
    assert why["log"][0] == "model" and why["log"][1].startswith("wrong arguments: read_file")
    assert why["count"][0] == "model"
    assert why["count"][1].startswith("wrong answer from right results")
    assert why["date"][0] == "model" and why["date"][1].startswith("wrong tool")
    assert why["find"][0] == "model"
    assert why["find"][1].startswith("loop: read_file called 2 times")
    assert why["greeting"] == ("model", "empty reply (wisp asked again, then said so)")
    assert why["no-tool"][0] == "model" and why["no-tool"][1].startswith("runaway reply")
    summary = report.summary
    assert summary["passed"] == summary["wispFailures"] == 0
    assert (summary["loopsBroken"], summary["emptyReplies"], summary["runawaysCut"]) == (2, 1, 1)


def made_run(
    tmp_path: Path, stdout: str, events: list[dict[str, Any]], code: int = 0, stderr: str = ""
) -> Any:
    resolved = {
        "kind": "model.resolved",
        "details": {"tools": ["current_date", "read_file", "run_command"], "contextSize": 4096},
    }
    return tasks.Run(tmp_path, code, stdout, stderr, [resolved, *events], 1.0)


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "tool.call", "details": {"tool": name, "arguments": arguments}}


@pytest.mark.parametrize(
    ("stdout", "reason"),
    [
        ('```json\n{"name": "current_date", "arguments": {}}\n```', "a call to current_date left"),
        ('<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>', "a call to"),
        ("[current_date()]", "a call to current_date left as text"),
        ("", "a silent empty reply"),
        ("word " * 3000, "a runaway past the cap"),
    ],
)
def test_what_wisp_should_have_caught_is_blamed_on_wisp(
    tmp_path: Path, stdout: str, reason: str
) -> None:
    date = tasks.tasks_named("date")[0]
    verdict = tasks.judge(date, made_run(tmp_path, stdout, []))
    assert verdict.blame == "wisp"
    assert verdict.reason.startswith(reason)


def test_a_fourth_identical_call_is_a_loop_wisp_let_through(tmp_path: Path) -> None:
    read = tasks.tasks_named("read")[0]
    calls = [tool_call("read_file", {"path": "notes.txt"})] * 4
    verdict = tasks.judge(read, made_run(tmp_path, "PELICAN", calls))
    assert verdict.blame == "wisp"
    assert verdict.reason.startswith("a loop past the third repeat")


def test_a_call_whose_json_does_not_decode_is_the_models_broken_call(tmp_path: Path) -> None:
    # Seen from Qwen2.5-Coder-0.5B: each object lacks its last brace. By the parser's rule
    # (arguments must parse) it is text; the fault is the model's, not a call wisp missed.
    refused = tasks.tasks_named("refused")[0]
    broken = '{"name": "current_date", "arguments": {"zone": "UTC"}{"name": "current_date"'
    verdict = tasks.judge(refused, made_run(tmp_path, broken, []))
    assert (verdict.blame, verdict.text_call) == ("model", False)
    assert verdict.reason.startswith("a broken call: JSON naming current_date")


def test_a_json_example_in_prose_naming_no_offered_tool_is_an_answer(tmp_path: Path) -> None:
    no_tool = tasks.tasks_named("no-tool")[0]
    stdout = 'Paris. For example {"name": "paris", "country": "France"}'
    verdict = tasks.judge(no_tool, made_run(tmp_path, stdout, []))
    assert verdict.passed and not verdict.text_call


def test_an_apology_is_not_a_refusal_and_a_cut_reply_is_no_answer(tmp_path: Path) -> None:
    refused, greeting = tasks.tasks_named("refused,greeting")
    rambling = "I'm sorry, but I'm not a tool. I'm a human."
    verdict = tasks.judge(refused, made_run(tmp_path, rambling, []))
    assert verdict.blame == "model" and not verdict.passed
    said_so = "I cannot run sudo: the policy refused it."
    assert tasks.judge(refused, made_run(tmp_path, said_so, [])).passed
    note = "(the reply was cut: it kept repeating itself)"
    cut = tasks.judge(greeting, made_run(tmp_path, "I'm a wizard, a wizard", [], stderr=note))
    assert not cut.passed and cut.cut
    assert cut.reason == "runaway reply (wisp cut it: it kept repeating itself)"


def test_keep_leaves_each_tasks_folder_and_audit_log_to_read(tmp_path: Path) -> None:
    model = scripts(tmp_path / "right", right_replies(tmp_path / "never"))
    kept = tmp_path / "kept"
    command = [sys.executable, str(BENCH), "-m", model, "--tasks", "read,date", "--keep", kept]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "PELICAN" in (kept / "read" / "work" / "notes.txt").read_text()
    kinds = [e["kind"] for e in tasks.read_audit(kept / "date" / "home")]
    assert "tool.call" in kinds and "response" in kinds
    # A second run into the same folder is refused, naming what it would overwrite.
    again = subprocess.run(command, capture_output=True, text=True, check=False)
    assert again.returncode == 2
    assert f"--keep {kept}: already holds read, date" in again.stderr


def test_list_names_every_task_and_its_set_with_no_model_given() -> None:
    listed = subprocess.run(
        [sys.executable, str(BENCH), "--list"], capture_output=True, text=True, check=True
    ).stdout
    assert len(listed.splitlines()) == len(tasks.ALL_TASKS) == 36
    assert "crate      a value from a project file (held out, third set): " in listed
    # Running needs a model, and says so.
    ran = subprocess.run([sys.executable, str(BENCH)], capture_output=True, text=True, check=False)
    assert ran.returncode == 2 and "-m/--model is required" in ran.stderr


@pytest.mark.parametrize(
    ("name", "reply", "passed"),
    [
        ("functions", "There are 4 functions defined in utils.py.", True),
        ("functions", "4", True),
        ("functions", "Four: slugify, home, get and clamp.", True),
        ("functions", "4 lines.", False),
        ("functions", "utils.py defines three functions and one method.", True),
        # Recorded: Qwen2.5-Coder-1.5B after `ls -l` ("total 4"), which the first check passed.
        ("functions", "The total number of lines in the file is 4, with the first line …", False),
        ("cores", "This machine has {cores} CPU cores.", True),
        ("cores", "{cores}", True),
        ("cores", "cpus: {cores} (Intel Xeon)", True),
        # Recorded: the 1.5B after system_info's memory, which the first check passed on 2.3.
        ("cores", "The system has 20 GiB of free space, with 2.3 GiB of buffers and cache.", False),
    ],
)
def test_a_count_passes_only_when_said_of_what_was_asked(
    tmp_path: Path, name: str, reply: str, passed: bool
) -> None:
    (task,) = tasks.tasks_named(name)
    cores = str(len(os.sched_getaffinity(0)))
    assert (task.check(made_run(tmp_path, reply.format(cores=cores), [])) is None) is passed
