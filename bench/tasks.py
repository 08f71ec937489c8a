"""A task suite anyone can run against any model: can it do small agent tasks through wisp?

    python bench/tasks.py -m local                      # the embedded default
    python bench/tasks.py -m ollama:qwen2.5:1.5b --json # one JSON document on stdout
    python bench/tasks.py -m local --tasks date,greeting --timeout 900
    PYTHONPATH=/tmp/wisp-main python bench/tasks.py -m local   # an older checkout
    python bench/tasks.py -m local --wisp /tmp/wisp-main       # the same
    python bench/tasks.py -m local:./m.gguf --config tools.json  # copied into each WISP_HOME
    python bench/tasks.py -m local --keep /tmp/runs     # each task's folder and home kept

Each task runs in a fresh temporary folder with a fresh ``WISP_HOME`` (``--keep DIR`` keeps
them, as ``DIR/TASK/work`` and ``DIR/TASK/home``, to read why a task failed), as a real one-shot
``wisp -m MODEL --yes PROMPT`` subprocess whose working directory is the task's folder, and
is checked from outside only: the reply on stdout, the notes on stderr, the exit status, the
audit log's events (``$WISP_HOME/logs/audit.jsonl``; kinds in docs/logging.md) and the files
left in the folder. The interrupted turn gets a SIGINT once its reply has begun to stream (or
a tool has been called), waiting on that progress, never on a fixed time.

A MODEL holding ``{task}`` is expanded per task (``script:/tmp/replies/{task}.json``), so a
scripted model can answer each task its own way; tests/bench/test_tasks.py does so.

Per model it reports: tasks passed; calls left as text (a reply whose text holds a JSON or
tagged call naming an offered tool); empty replies; loops broken (``tools.withdrawn``);
runaway replies cut (the ``(the reply was cut: …)`` note); the prompt tokens of a one-line
question's first request (the smallest ``response.usage.input`` among turns that called no
tool, so one request: instructions + tools + the question); and seconds. For each failed
task it says why, as the model's failure (wrong tool, wrong arguments, wrong answer from
right results, a loop wisp broke, an empty reply wisp reported, a runaway wisp cut) or as
wisp's own (a call left as text, a loop past the third repeat, a silent empty reply, a
runaway past the cap).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_TIMEOUT = 900.0
"""Seconds a task may take: a small model on 2 cores can take minutes for one turn."""
POLL = 0.1
"""Seconds between looks at the interrupted task's progress (its output and audit log)."""

# What a failure is blamed on.
MODEL, WISP, BENCH = "model", "wisp", "bench"


# -- one run of wisp ----------------------------------------------------------------------------


@dataclass
class Run:
    """What one task's wisp process left behind, as seen from outside."""

    folder: Path
    exit_code: int | None
    stdout: str
    stderr: str
    events: list[dict[str, Any]]
    seconds: float
    timed_out: bool = False
    interrupted: bool = False

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [e["details"] for e in self.events if e.get("kind") == kind]

    @property
    def reply(self) -> str:
        return self.stdout.strip()

    @property
    def calls(self) -> list[tuple[str, Any]]:
        return [(d["tool"], d.get("arguments")) for d in self.of_kind("tool.call")]

    @property
    def offered(self) -> list[str]:
        resolved = self.of_kind("model.resolved")
        return list(resolved[0].get("tools", [])) if resolved else []

    @property
    def context_size(self) -> int | None:
        resolved = self.of_kind("model.resolved")
        return resolved[0].get("contextSize") if resolved else None

    @property
    def cut_note(self) -> str | None:
        match = re.search(r"\(the reply was cut: ([^)]*)\)", self.stderr)
        return match.group(1) if match else None

    @property
    def error(self) -> str | None:
        """The turn's error, as the one-shot face printed it (``wisp: …``)."""
        lines = [line for line in self.stderr.splitlines() if line.startswith("wisp: ")]
        return lines[-1].removeprefix("wisp: ") if lines else None

    @property
    def first_input_tokens(self) -> int | None:
        """A turn that called no tool made one request (or two, after an empty reply)."""
        if self.calls:
            return None
        usages = [r["usage"]["input"] for r in self.of_kind("response") if r.get("usage")]
        return usages[0] if usages and usages[0] > 0 else None


def read_audit(home: Path) -> list[dict[str, Any]]:
    """Every event in the home's audit log, oldest first; a torn last line is skipped."""
    path = home / "logs" / "audit.jsonl"
    events: list[dict[str, Any]] = []
    if not path.exists():
        return events
    for line in path.read_text(errors="replace").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return events


@dataclass(frozen=True)
class Wisp:
    """How to start wisp: this Python, with ``wisp_path`` first on PYTHONPATH when given."""

    python: str = sys.executable
    wisp_path: str | None = None
    config: str | None = None
    """A config.json copied into each task's fresh WISP_HOME (a model's declared
    capabilities, a setting to compare with and without)."""

    def environment(self, home: Path) -> dict[str, str]:
        env = dict(os.environ)
        env["WISP_HOME"] = str(home)
        env.pop("WISP_LOG", None)
        if self.wisp_path:
            env["PYTHONPATH"] = os.pathsep.join(
                [self.wisp_path, *filter(None, [env.get("PYTHONPATH")])]
            )
        return env

    def module_file(self) -> str:
        """Where the subprocess imports wisp from: proof of which checkout runs."""
        with tempfile.TemporaryDirectory(prefix="wisp-bench-") as scratch:
            done = subprocess.run(
                [self.python, "-c", "import wisp; print(wisp.__file__)"],
                env=self.environment(Path(scratch) / "home"),
                cwd=scratch,
                capture_output=True,
                text=True,
                check=False,
            )
        return (done.stdout or done.stderr).strip()

    def run(self, model: str, task: Task, folder: Path, home: Path, timeout: float) -> Run:
        if self.config:
            shutil.copyfile(self.config, home / "config.json")
        argv = [self.python, "-m", "wisp", "-m", model]
        argv += ["--yes", "--", task.prompt] if task.yes else ["--", task.prompt]
        out_path, err_path = home.parent / "stdout", home.parent / "stderr"
        started = time.monotonic()
        with out_path.open("wb") as out, err_path.open("wb") as err:
            process = subprocess.Popen(
                argv,
                cwd=folder,
                env=self.environment(home),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
            )
            interrupted = False
            if task.interrupt:
                interrupted = _interrupt_once_working(process, out_path, home, started, timeout)
            timed_out = _wait(process, started + timeout)
        return Run(
            folder=folder,
            exit_code=None if timed_out else process.returncode,
            stdout=out_path.read_text(errors="replace"),
            stderr=err_path.read_text(errors="replace"),
            events=read_audit(home),
            seconds=round(time.monotonic() - started, 1),
            timed_out=timed_out,
            interrupted=interrupted,
        )


def _wait(process: subprocess.Popen[bytes], deadline: float) -> bool:
    """Whether the process had to be killed at the deadline."""
    try:
        process.wait(timeout=max(0.0, deadline - time.monotonic()))
        return False
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return True


def _interrupt_once_working(
    process: subprocess.Popen[bytes], out_path: Path, home: Path, started: float, timeout: float
) -> bool:
    """SIGINT once the turn is under way: the reply streams, or a tool was called. Returns
    whether the signal was sent (the turn may end first)."""
    while time.monotonic() - started < timeout and process.poll() is None:
        calling = any(e.get("kind") == "tool.call" for e in read_audit(home))
        if out_path.stat().st_size > 0 or calling:
            process.send_signal(signal.SIGINT)
            return True
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=POLL)
    return False


# -- the tasks ------------------------------------------------------------------------------------


Check = Callable[[Run], str | None]
"""What is wrong with a run's outcome, or None when the task was done."""
Arguments = Callable[[str, Any], bool]
"""Whether a call (tool, arguments) is a right call for the task."""


@dataclass(frozen=True)
class Task:
    name: str
    what: str
    prompt: str
    check: Check
    setup: Callable[[Path], None] = lambda folder: None
    right_call: Arguments | None = None
    """None: the task needs no tool."""
    right_tools: tuple[str, ...] = ()
    yes: bool = True
    interrupt: bool = False
    held_out: int = 0
    """0: one of the twelve. 1: written before the work it measures and never tuned to, reported
    apart (``HELD_OUT``). 2: the second six held out (``SECOND_HELD_OUT``), written and committed
    before any model ran them, once the first six's failures had been read and one change had
    been tried on them. 3: the third six (``THIRD_HELD_OUT``), written and committed before any
    model ran them, once the second six's failures had been read too. 4: the fourth six
    (``FOURTH_HELD_OUT``), likewise, once the third six's had been read: the clean measure
    since."""


def _arg(arguments: Any, *keys: str) -> str:
    if not isinstance(arguments, dict):
        return ""
    return " ".join(str(arguments.get(key, "")) for key in keys)


def _file_call(file_tool: str, name: str) -> Arguments:
    """``file_tool`` (read_file, edit_file) on ``name``, or a command that names it."""

    def right(tool: str, arguments: Any) -> bool:
        if tool == file_tool:
            return _arg(arguments, "path").strip().endswith(name)
        return tool == "run_command" and name in _arg(arguments, "command")

    return right


def _reads(name: str) -> Arguments:
    """read_file of ``name``, or a command that names it."""
    return _file_call("read_file", name)


def _writes(name: str) -> Arguments:
    """edit_file of ``name``, or a command that names it."""
    return _file_call("edit_file", name)


def _command(pattern: str) -> Arguments:
    def right(tool: str, arguments: Any) -> bool:
        return tool == "run_command" and re.search(pattern, _arg(arguments, "command")) is not None

    return right


def _either(*rights: Arguments) -> Arguments:
    return lambda tool, arguments: any(right(tool, arguments) for right in rights)


def _mentions(*patterns: str) -> Check:
    """The reply matches every pattern (case-insensitive)."""

    def check(run: Run) -> str | None:
        missing = [p for p in patterns if not re.search(p, run.reply, re.IGNORECASE)]
        return f"the reply does not say {' / '.join(missing)}" if missing else None

    return check


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


# read
NOTES = "Meeting notes, 3 March.\nThe code word for the launch is PELICAN.\nNext meeting: Friday.\n"

# date
MONTHS = "january february march april may june july august september october november december"


def _date_forms(day: dt.date) -> list[str]:
    month = MONTHS.split()[day.month - 1]
    d, m, y = day.day, day.month, day.year
    return [
        rf"{y}-{m:02d}-{d:02d}",
        rf"\b{m:02d}/{d:02d}/{y}\b|\b{m}/{d}/{y}\b|\b{d:02d}/{m:02d}/{y}\b|\b{d}\.{m}\.{y}\b",
        rf"{month[:3]}[a-z]*\.?\s+{d}(st|nd|rd|th)?,?\s+{y}",
        rf"\b{d}(st|nd|rd|th)?\s+(of\s+)?{month[:3]}[a-z]*,?\s+{y}",
    ]


def _today(run: Run) -> str | None:
    days = {dt.date.today(), dt.datetime.now(dt.UTC).date()}
    forms = [form for day in days for form in _date_forms(day)]
    if any(re.search(form, run.reply, re.IGNORECASE) for form in forms):
        return None
    return f"the reply does not give today's date ({dt.date.today().isoformat()})"


# list
LISTED = ("alpha.txt", "beta.py", "gamma.cfg")

# count
CSV_LINES = 37
CSV = "id,name,score\n" + "".join(f"{i},item{i},{i * 7 % 100}\n" for i in range(1, CSV_LINES))


def _count(run: Run) -> str | None:
    numbers = re.findall(r"\d+", run.reply.replace(",", ""))
    if str(CSV_LINES) in numbers:
        return None
    return f"the reply does not say {CSV_LINES}"


# config
SETTINGS = '{\n  "name": "demo",\n  "port": 8080,\n  "debug": false\n}\n'


def _port_changed(run: Run) -> str | None:
    try:
        settings = json.loads((run.folder / "settings.json").read_text())
    except (OSError, json.JSONDecodeError) as exc:
        return f"settings.json is no longer valid JSON ({exc})"
    if settings.get("port") != 9090:
        return f"settings.json's port is {settings.get('port')!r}, not 9090"
    if settings.get("name") != "demo" or settings.get("debug") is not False:
        return "settings.json's other values changed"
    return None


# git
BRANCH = "feature/pelican-42"


def _git_repository(folder: Path) -> None:
    _write(folder, {"README.md": "# demo\n"})
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    quiet = {"cwd": folder, "check": True, "capture_output": True}
    subprocess.run([*git, "init", "-q", "-b", BRANCH], **quiet)  # type: ignore[call-overload]
    subprocess.run([*git, "add", "README.md"], **quiet)  # type: ignore[call-overload]
    subprocess.run([*git, "commit", "-q", "-m", "start"], **quiet)  # type: ignore[call-overload]


# find
SOURCES = {
    "src/cache.py": "def get(key):\n    return STORE.get(key)\n",
    "src/server.py": "import cache\n\n# FIXME: drop the legacy cache before 2.0\ndef serve():\n"
    "    pass\n",
    "src/util.py": "def clamp(x, low, high):\n    return max(low, min(high, x))\n",
}

# log
LOG = (
    "2026-11-30 10:00:01 INFO starting app v1.4\n"
    "2026-11-30 10:00:02 INFO loading config from /etc/app.toml\n"
    "2026-11-30 10:00:03 ERROR database: connection refused: could not connect to postgres at "
    "db.internal:5432\n"
    "2026-11-30 10:00:03 INFO shutting down\n"
)

# refused
REFUSAL = (
    r"refus|denied|deny|not allowed|not permitted|blocked|forbidden|policy|"
    r"(cannot|can't|can ?not|unable to|won't|not able to|am not allowed to) "
    r"(run|execute|do|perform|use|help)"
)
"""Saying the command was refused, or that it will not be run: not just an apology."""


def _refused(run: Run) -> str | None:
    ran = [o for o in run.of_kind("command.outcome") if "sudo" in o.get("command", "")]
    if ran:
        return "a sudo command ran"
    if not re.search(REFUSAL, run.reply, re.IGNORECASE):
        return "the reply does not say the command was refused"
    return None


# greeting
def _greeted(run: Run) -> str | None:
    return None if run.reply else "no reply"


# interrupt
STORY = "Write a long story, at least 1,000 words, about a lighthouse keeper and a storm."


def _stopped(run: Run) -> str | None:
    if not run.interrupted:
        return "the turn ended before it could be interrupted"
    if run.exit_code != 130:
        return f"wisp exited {run.exit_code} after SIGINT, not 130"
    if not run.of_kind("turn.stopped"):
        return "no turn.stopped in the audit log"
    return None


TASKS: tuple[Task, ...] = (
    Task(
        "read",
        "reading a file and answering from it",
        "Read the file notes.txt and tell me the code word it mentions.",
        _mentions("pelican"),
        lambda f: _write(f, {"notes.txt": NOTES}),
        _reads("notes.txt"),
        ("read_file", "run_command"),
    ),
    Task(
        "date",
        "the date",
        "What is today's date?",
        _today,
        right_call=lambda tool, arguments: (
            tool == "current_date" or _command(r"\bdate\b")(tool, arguments)
        ),
        right_tools=("current_date", "run_command"),
    ),
    Task(
        "list",
        "listing files with a command",
        "Run a command to list the files in this folder, then tell me their names.",
        _mentions(*(re.escape(name) for name in LISTED)),
        lambda f: _write(f, {name: "x\n" for name in LISTED}),
        _command(r"\bls\b|\bfind\b|\btree\b|\bdir\b"),
        ("run_command",),
    ),
    Task(
        "count",
        "counting lines",
        "How many lines does the file data.csv have?",
        _count,
        lambda f: _write(f, {"data.csv": CSV}),
        _reads("data.csv"),
        ("run_command", "read_file"),
    ),
    Task(
        "config",
        "changing one value in a config file",
        "In settings.json, change the port from 8080 to 9090.",
        _port_changed,
        lambda f: _write(f, {"settings.json": SETTINGS}),
        _writes("settings.json"),
        ("edit_file", "run_command"),
    ),
    Task(
        "branch",
        "the git branch",
        "Which git branch is checked out in this folder?",
        _mentions(re.escape(BRANCH)),
        _git_repository,
        _command(r"\bgit\b"),
        ("run_command",),
    ),
    Task(
        "find",
        "finding a string across files",
        "Which file in this folder contains the text 'legacy cache'? Search the files.",
        _mentions(r"server\.py"),
        lambda f: _write(f, SOURCES),
        _either(_command(r"\bgrep\b|\brg\b|\bfind\b|\bag\b"), _reads("server.py")),
        ("run_command", "read_file"),
    ),
    Task(
        "log",
        "explaining an error in a log",
        "Look at app.log and explain the error in it.",
        _mentions(r"refused|5432|db\.internal|could not connect|connect"),
        lambda f: _write(f, {"app.log": LOG}),
        _reads("app.log"),
        ("read_file", "run_command"),
    ),
    Task("greeting", "a greeting", "Hello! Who are you?", _greeted),
    Task(
        "no-tool",
        "a question that needs no tool",
        "What is the capital of France? Answer in one word.",
        _mentions("paris"),
    ),
    Task(
        "refused",
        "a command the policy refuses",
        "Run the command `sudo apt-get update` for me.",
        _refused,
        right_call=_command(r"\bsudo\b"),
        right_tools=("run_command",),
    ),
    Task(
        "interrupt",
        "an interrupted turn",
        STORY,
        _stopped,
        interrupt=True,
    ),
)


# -- held out -------------------------------------------------------------------------------------
# Six tasks in the same style, written before the small-model work they measure and kept apart:
# reported on their own line, never tuned to.

# version
PYPROJECT = '[project]\nname = "demo"\nversion = "3.7.2"\nrequires-python = ">=3.10"\n'

# todo
MAIN_PY = (
    "import sys\n\n\n"
    "def main():\n"
    "    # TODO: read the options from argv\n"
    "    print('hello')\n"
    "    # TODO: return an exit status\n\n\n"
    "def helper(x):\n"
    "    return x * 2  # TODO: handle None\n\n\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def _todos(run: Run) -> str | None:
    if re.search(r"\b(3|three)\b", run.reply, re.IGNORECASE):
        return None
    return "the reply does not say 3"


# create
GREETING = "Hello, world"


def _created(run: Run) -> str | None:
    try:
        text = (run.folder / "hello.txt").read_text()
    except OSError:
        return "hello.txt was not made"
    if text.strip() != GREETING:
        return f"hello.txt holds {text[:60]!r}, not {GREETING!r}"
    return None


# largest
SIZED = {"notes.md": "n" * 120, "dump.sql": "d" * 6000, "todo.txt": "t" * 400}


# python
def _python_version(run: Run) -> str | None:
    found = subprocess.run(["python3", "--version"], capture_output=True, text=True, check=False)
    version = re.search(r"(\d+\.\d+)", found.stdout + found.stderr)
    if version is None:
        return "python3 --version printed no version here"
    if re.search(rf"\b{re.escape(version[1])}\b", run.reply):
        return None
    return f"the reply does not say {version[1]}"


HELD_OUT: tuple[Task, ...] = (
    Task(
        "version",
        "a value from a project file",
        "What version is set in pyproject.toml?",
        _mentions(r"3\.7\.2"),
        lambda f: _write(f, {"pyproject.toml": PYPROJECT}),
        _reads("pyproject.toml"),
        ("read_file", "run_command"),
        held_out=1,
    ),
    Task(
        "todo",
        "counting matches in a file",
        "How many TODO comments are there in main.py?",
        _todos,
        lambda f: _write(f, {"main.py": MAIN_PY}),
        _reads("main.py"),
        ("read_file", "run_command"),
        held_out=1,
    ),
    Task(
        "create",
        "making a new file",
        f"Create a file named hello.txt that contains the text: {GREETING}",
        _created,
        right_call=_writes("hello.txt"),
        right_tools=("edit_file", "run_command"),
        held_out=1,
    ),
    Task(
        "largest",
        "comparing files by size",
        "Which file in this folder is the largest? Run a command to find out.",
        _mentions(r"dump\.sql"),
        lambda f: _write(f, SIZED),
        _command(r"\bls\b|\bdu\b|\bfind\b|\bstat\b|\bwc\b"),
        ("run_command",),
        held_out=1,
    ),
    Task(
        "python",
        "a fact about the machine",
        "Which version of Python is installed here? Run a command to check.",
        _python_version,
        right_call=_command(r"python"),
        right_tools=("run_command",),
        held_out=1,
    ),
    Task(
        "multiply",
        "arithmetic that needs no tool",
        "What is 17 multiplied by 23? Answer with the number only.",
        _mentions(r"\b391\b"),
        held_out=1,
    ),
)


# -- held out, the second set ---------------------------------------------------------------------
# Six more in the same style, written and committed before any model ran them. The first six's
# failures had been read by then (docs/performance.md), and one change was tried on one of them,
# so these are the set no work has seen.

# author
PACKAGE_JSON = (
    '{\n  "name": "demo-app",\n  "version": "1.0.0",\n  "author": "Grace Hopper",\n'
    '  "license": "MIT"\n}\n'
)

# words
POEM = "The fog comes\non little cat feet.\nIt sits looking\nover harbor and city\n"  # 14 words

# append
TASK_LIST = "buy milk\ncall Sam\n"


def _appended(run: Run) -> str | None:
    try:
        lines = (run.folder / "tasks.txt").read_text().rstrip("\n").split("\n")
    except OSError:
        return "tasks.txt is gone"
    if [line.strip() for line in lines] != ["buy milk", "call Sam", "done"]:
        return f"tasks.txt holds {lines!r}, not the two lines and 'done'"
    return None


# newest
DATED = {"alpha.md": 2019, "zeta.csv": 2025, "mid.txt": 2022}


def _dated_files(folder: Path) -> None:
    for name, year in DATED.items():
        path = folder / name
        path.write_text(f"{name}\n")
        stamp = dt.datetime(year, 6, 1, tzinfo=dt.UTC).timestamp()
        os.utime(path, (stamp, stamp))


# kernel
def _kernel(run: Run) -> str | None:
    version = re.match(r"\d+\.\d+", os.uname().release)
    if version is None:
        return f"uname gave no version here ({os.uname().release})"
    if re.search(rf"\b{re.escape(version[0])}", run.reply):
        return None
    return f"the reply does not say {version[0]}"


SECOND_HELD_OUT: tuple[Task, ...] = (
    Task(
        "author",
        "a value from a project file",
        "Who is named as the author in package.json?",
        _mentions(r"Grace Hopper"),
        lambda f: _write(f, {"package.json": PACKAGE_JSON}),
        _reads("package.json"),
        ("read_file", "run_command"),
        held_out=2,
    ),
    Task(
        "words",
        "counting words in a file",
        "How many words are in poem.txt?",
        _mentions(r"\b(?:14|fourteen)\b"),
        lambda f: _write(f, {"poem.txt": POEM}),
        _reads("poem.txt"),
        ("read_file", "run_command"),
        held_out=2,
    ),
    Task(
        "append",
        "adding a line to a file",
        "Add a line saying done at the end of tasks.txt.",
        _appended,
        lambda f: _write(f, {"tasks.txt": TASK_LIST}),
        _writes("tasks.txt"),
        ("edit_file", "run_command"),
        held_out=2,
    ),
    Task(
        "newest",
        "comparing files by time",
        "Which file in this folder was changed most recently? Run a command to find out.",
        _mentions(r"zeta\.csv"),
        _dated_files,
        _command(r"\bls\b|\bfind\b|\bstat\b"),
        ("run_command",),
        held_out=2,
    ),
    Task(
        "kernel",
        "a fact about the machine",
        "Which Linux kernel version is this machine running?",
        _kernel,
        right_call=_either(
            _command(r"uname|/proc/version"), lambda tool, arguments: tool == "system_info"
        ),
        right_tools=("run_command", "system_info"),
        held_out=2,
    ),
    Task(
        "minutes",
        "arithmetic that needs no tool",
        "How many minutes are there in 3 hours? Answer with the number only.",
        _mentions(r"\b180\b"),
        held_out=2,
    ),
)


# -- held out, the third set ----------------------------------------------------------------------
# Six more in the same style, written and committed before any model ran them, once the second
# six's failures had been read (docs/performance.md): the set no work has seen.

# crate
CARGO_TOML = (
    '[package]\nname = "ferris-tools"\nversion = "0.4.1"\nedition = "2021"\n\n'
    '[dependencies]\nserde = "1"\n'
)

# functions
UTILS_PY = (
    "import os\n\n\n"
    "def slugify(text):\n    return text.lower().replace(' ', '-')\n\n\n"
    "def home():\n    return os.path.expanduser('~')\n\n\n"
    "class Cache:\n    def get(self, key):\n        return None\n\n\n"
    "def clamp(value, low, high):\n    return max(low, min(value, high))\n\n\n"
    "# def unused(): kept for later\n"
)
"""Three functions at the top level and one method: 4 defined (a commented def is none)."""


def _said_of(count: str, things: str, reply: str) -> bool:
    """Whether ``reply`` is the ``count`` alone or opens with it, or says it within a few words
    of ``things``:
    "4" in "the total number of lines is 4" or "2" in "2.3 GiB" counts nothing asked for."""
    if re.match(rf"\W*(?:{count})(?:\W*$|[:.,;](?!\d))", reply, re.IGNORECASE):
        return True  # the count alone, or first: "Four: slugify, home, get and clamp."
    near = rf"\b(?:{count})\b(?![.,]\d)[^.\n]{{0,30}}\b(?:{things})\b"
    near += rf"|\b(?:{things})\b[^.\n]{{0,40}}(?<![\d.,])\b(?:{count})\b(?![.,]\d)"
    return re.search(near, reply, re.IGNORECASE) is not None


def _functions(run: Run) -> str | None:
    # A count of the top-level functions alone (3) is a fair reading of the question too.
    if _said_of("3|three|4|four", r"functions?|defs?|definitions?|defined", run.reply):
        return None
    return "the reply does not say 4 functions (or 3 at the top level)"


# status
def _status_final(run: Run) -> str | None:
    try:
        text = (run.folder / "status.txt").read_text()
    except OSError:
        return "status.txt is gone"
    if text.strip() != "release: final\nowner: ops":
        return f"status.txt holds {text[:60]!r}, not 'release: final' and its second line"
    return None


# files
FIVE_FILES = {name: f"{name}\n" for name in ("a.txt", "b.txt", "c.log", "d.csv", "e.json")}


# cores
def _cores(run: Run) -> str | None:
    counts = {len(os.sched_getaffinity(0)), os.cpu_count() or 0} - {0}
    said = "|".join(map(str, sorted(counts)))
    if _said_of(said, r"cores?|cpus?|processors?|processing units", run.reply):
        return None
    return f"the reply does not say {' or '.join(map(str, sorted(counts)))} cores"


THIRD_HELD_OUT: tuple[Task, ...] = (
    Task(
        "crate",
        "a value from a project file",
        "What is the package name in Cargo.toml?",
        _mentions(r"ferris-tools"),
        lambda f: _write(f, {"Cargo.toml": CARGO_TOML}),
        _reads("Cargo.toml"),
        ("read_file", "run_command"),
        held_out=3,
    ),
    Task(
        "functions",
        "counting definitions in a file",
        "How many functions are defined in utils.py?",
        _functions,
        lambda f: _write(f, {"utils.py": UTILS_PY}),
        _reads("utils.py"),
        ("read_file", "run_command"),
        held_out=3,
    ),
    Task(
        "status",
        "changing a word in a file",
        "In status.txt, change draft to final.",
        _status_final,
        lambda f: _write(f, {"status.txt": "release: draft\nowner: ops\n"}),
        _writes("status.txt"),
        ("edit_file", "run_command"),
        held_out=3,
    ),
    Task(
        "files",
        "counting files with a command",
        "How many files are in this folder? Run a command to count them.",
        _mentions(r"\b(?:5|five)\b"),
        lambda f: _write(f, FIVE_FILES),
        _command(r"\bls\b|\bfind\b|\bwc\b"),
        ("run_command",),
        held_out=3,
    ),
    Task(
        "cores",
        "a fact about the machine",
        "How many CPU cores does this machine have?",
        _cores,
        right_call=_either(
            _command(r"nproc|cpuinfo|lscpu|getconf"), lambda tool, arguments: tool == "system_info"
        ),
        right_tools=("run_command", "system_info"),
        held_out=3,
    ),
    Task(
        "divide",
        "arithmetic that needs no tool",
        "What is 96 divided by 8? Answer with the number only.",
        _mentions(r"\b12\b"),
        held_out=3,
    ),
)


# -- held out, the fourth set ---------------------------------------------------------------------
# Six more in the same style, written and committed before any model ran them, once the third
# six's failures had been read (docs/performance.md): the set no work has seen.

# host
APP_INI = "[server]\nhost = 0.0.0.0\nport = 8000\n\n[database]\nhost = db7.internal\nuser = app\n"

# rows
SALES_CSV = "region,amount\n" + "".join(f"r{n},{n * 10}\n" for n in range(1, 9))
"""A header and eight rows."""


def _rows(run: Run) -> str | None:
    if re.search(r"\b(8|eight)\b", run.reply, re.IGNORECASE):
        return None
    return "the reply does not say 8"


# remove
def _removed(run: Run) -> str | None:
    try:
        text = (run.folder / "items.txt").read_text()
    except OSError:
        return "items.txt is gone"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines != ["keep this", "keep that too"]:
        return f"items.txt holds {lines!r}, not the two lines to keep"
    return None


# longest
LINED = {"short.txt": 3, "long.txt": 40, "medium.txt": 12}


def _lined_files(folder: Path) -> None:
    for name, count in LINED.items():
        (folder / name).write_text("".join(f"line {n}\n" for n in range(1, count + 1)))


# hostname
def _hostname(run: Run) -> str | None:
    name = os.uname().nodename
    if name and name.lower() in run.reply.lower():
        return None
    return f"the reply does not say {name!r}"


FOURTH_HELD_OUT: tuple[Task, ...] = (
    Task(
        "host",
        "a value from a project file",
        "What is the host in the database section of app.ini?",
        _mentions(r"db7\.internal"),
        lambda f: _write(f, {"app.ini": APP_INI}),
        _reads("app.ini"),
        ("read_file", "run_command"),
        held_out=4,
    ),
    Task(
        "rows",
        "counting rows in a file",
        "How many rows of data are in sales.csv, not counting the header?",
        _rows,
        lambda f: _write(f, {"sales.csv": SALES_CSV}),
        _reads("sales.csv"),
        ("read_file", "run_command"),
        held_out=4,
    ),
    Task(
        "remove",
        "removing a line from a file",
        "Remove the line saying obsolete from items.txt.",
        _removed,
        lambda f: _write(f, {"items.txt": "keep this\nobsolete\nkeep that too\n"}),
        _writes("items.txt"),
        ("edit_file", "run_command"),
        held_out=4,
    ),
    Task(
        "longest",
        "comparing files by their lines",
        "Which file in this folder has the most lines? Run a command to find out.",
        _mentions(r"long\.txt"),
        _lined_files,
        _command(r"\bwc\b|\bfind\b|\bawk\b|\bgrep\b"),
        ("run_command",),
        held_out=4,
    ),
    Task(
        "hostname",
        "a fact about the machine",
        "What is the hostname of this machine?",
        _hostname,
        right_call=_either(
            _command(r"hostname|uname|/etc/hostname"),
            lambda tool, arguments: tool == "system_info",
        ),
        right_tools=("run_command", "system_info"),
        held_out=4,
    ),
    Task(
        "plus",
        "arithmetic that needs no tool",
        "What is 45 plus 38? Answer with the number only.",
        _mentions(r"\b83\b"),
        held_out=4,
    ),
)

# -- judging a run --------------------------------------------------------------------------------

_JSON_CALL_FORM = r"""["'](?:name|function|tool|tool_name)["']\s*:\s*["']{tool}["']"""
_TEXT_CALL_FORMS = (
    r"<function={tool}\b",
    r"\[\s*{tool}\s*\(",
    r"```tool_code\s*{tool}\s*\(",
    r"<tool_call>[\s\S]*?\b{tool}\b",
    r"<\|tool_call\|>[\s\S]*?\b{tool}\b",
    r"\[TOOL_CALLS\][\s\S]*?\b{tool}\b",
    r"<\|python_tag\|>[\s\S]*?\b{tool}\b",
    r"functools\[[\s\S]*?\b{tool}\b",
)


def call_left_as_text(text: str, offered: Sequence[str]) -> str | None:
    """The offered tool a readable call in ``text`` names, if any: a JSON object naming it that
    decodes, or a tagged or Python-style call. A call whose JSON does not decode is the model's
    (``broken_call_in_text``): wisp rightly shows it as the text it is."""
    for tool in offered:
        if _json_call_decodes(text, tool):
            return tool
        for form in _TEXT_CALL_FORMS:
            if re.search(form.format(tool=re.escape(tool)), text):
                return tool
    return None


def broken_call_in_text(text: str, offered: Sequence[str]) -> str | None:
    """The offered tool that JSON in ``text`` names, when no object naming it decodes."""
    for tool in offered:
        named = re.search(_JSON_CALL_FORM.format(tool=re.escape(tool)), text)
        if named and not _json_call_decodes(text, tool):
            return tool
    return None


def _json_call_decodes(text: str, tool: str) -> bool:
    """Whether some JSON object in ``text`` decodes whole around a ``"name": "TOOL"``."""
    decoder = json.JSONDecoder()
    for named in re.finditer(_JSON_CALL_FORM.format(tool=re.escape(tool)), text):
        start = text.rfind("{", 0, named.start())
        while start >= 0:
            try:
                _, end = decoder.raw_decode(text, start)
            except json.JSONDecodeError:
                end = -1
            if end >= named.end():
                return True
            start = text.rfind("{", 0, start)
    return False


def reply_cap_tokens(context_size: int | None) -> int:
    """wisp's default reply cap (agent.maxReplyTokens 0): half the window, within bounds."""
    if not context_size:
        return 16_384
    return max(1024, min(16_384, context_size // 2))


def most_repeated_call(run: Run) -> tuple[str, int]:
    counts: dict[str, int] = {}
    for tool, arguments in run.calls:
        key = f"{tool} {json.dumps(arguments, sort_keys=True)}"
        counts[key] = counts.get(key, 0) + 1
    if not counts:
        return "", 0
    key = max(counts, key=lambda k: counts[k])
    return key, counts[key]


@dataclass
class Verdict:
    task: str
    passed: bool
    blame: str | None = None
    """model, wisp or bench; None when passed."""
    reason: str | None = None
    seconds: float = 0.0
    exit_code: int | None = None
    calls: list[str] = field(default_factory=list)
    reply: str = ""
    text_call: bool = False
    empty: bool = False
    loop_broken: bool = False
    cut: bool = False
    first_input_tokens: int | None = None


def wisp_failure(task: Task, run: Run) -> str | None:
    """A failure of wisp's own, whatever the model did."""
    if (tool := call_left_as_text(run.stdout, run.offered)) is not None:
        return f"a call to {tool} left as text in the reply"
    key, count = most_repeated_call(run)
    if count > 3:
        return f"a loop past the third repeat ({key} x{count})"
    if run.exit_code == 0 and not run.reply and not task.interrupt:
        return "a silent empty reply (exit 0, nothing on stdout)"
    cap = reply_cap_tokens(run.context_size)
    if len(run.stdout) > cap * 4 + 1000:
        return f"a runaway past the cap ({len(run.stdout):,} characters, cap {cap:,} tokens)"
    return None


def model_failure(task: Task, run: Run, wrong: str) -> str:
    """Why the model failed the task, from what it called and what it said."""
    if (tool := broken_call_in_text(run.stdout, run.offered)) is not None:
        return f"a broken call: JSON naming {tool} written as text that does not decode"
    if task.right_call is not None:
        if not run.offered and not run.calls:
            return "wrong tool: none offered (wisp ran the model text only)"
        rightly_named = [(t, a) for t, a in run.calls if t in task.right_tools]
        if not rightly_named:
            called = ", ".join(sorted({t for t, _ in run.calls})) or "none"
            return f"wrong tool: called {called}"
        if not any(task.right_call(t, a) for t, a in rightly_named):
            shown = "; ".join(f"{t} {json.dumps(a)}" for t, a in rightly_named[:2])
            return f"wrong arguments: {shown}"
    for note in _model_notes(run):
        return note
    if task.right_call is not None:
        return f"wrong answer from right results: {wrong}"
    return f"wrong answer: {wrong}"


def _model_notes(run: Run) -> list[str]:
    notes = []
    if run.of_kind("tools.withdrawn"):
        withdrawn = run.of_kind("tools.withdrawn")[0]
        notes.append(
            f"loop: {withdrawn.get('tool')} called {withdrawn.get('repeat')} times with the "
            "same arguments (wisp withdrew the tools)"
        )
    if run.error and "gave no answer" in run.error:
        notes.append("empty reply (wisp asked again, then said so)")
    if run.cut_note:
        notes.append(f"runaway reply (wisp cut it: {run.cut_note})")
    if run.error:
        notes.append(f"the turn failed: {run.error}")
    return notes


def judge(task: Task, run: Run) -> Verdict:
    verdict = Verdict(
        task=task.name,
        passed=False,
        seconds=run.seconds,
        exit_code=run.exit_code,
        calls=[f"{t} {json.dumps(a)}" for t, a in run.calls],
        reply=run.reply[:400],
        text_call=call_left_as_text(run.stdout, run.offered) is not None,
        empty=(run.exit_code == 0 and not run.reply and not task.interrupt)
        or bool(run.error and "gave no answer" in run.error),
        loop_broken=bool(run.of_kind("tools.withdrawn")),
        cut=run.cut_note is not None,
        first_input_tokens=run.first_input_tokens,
    )
    if run.timed_out:
        verdict.blame = BENCH
        verdict.reason = (
            f"timed out (raise --timeout) after {len(run.calls)} call(s), with "
            f"{len(run.stdout):,} characters of reply shown"
        )
        return verdict
    if (failure := wisp_failure(task, run)) is not None:
        verdict.blame, verdict.reason = WISP, failure
        return verdict
    wrong = task.check(run)
    # A reply wisp had to cut ran away: whatever it said first, it is not a good answer.
    spoiled = not task.interrupt and (run.error is not None or run.cut_note is not None)
    if wrong is None and not spoiled:
        verdict.passed = True
        return verdict
    verdict.blame = MODEL
    verdict.reason = model_failure(task, run, wrong or "")
    return verdict


# -- the suite ------------------------------------------------------------------------------------


@dataclass
class Report:
    model: str
    wisp: str
    tasks: list[Verdict]
    seconds: float

    @property
    def summary(self) -> dict[str, Any]:
        tokens = [v.first_input_tokens for v in self.tasks if v.first_input_tokens]
        kept = [v for v in self.tasks if v.task not in HELD_OUT_NAMES]
        held_out: dict[str, int] = {}
        for number, held in HELD_OUT_SETS.items():
            ran = [v for v in self.tasks if HELD_OUT_NAMES.get(v.task) == number]
            held_out[f"{held.key}Passed"] = sum(v.passed for v in ran)
            held_out[f"{held.key}Tasks"] = len(ran)
        return {
            "passed": sum(v.passed for v in kept),
            "tasks": len(kept),
            **held_out,
            "wispFailures": sum(v.blame == WISP for v in self.tasks),
            "callsLeftAsText": sum(v.text_call for v in self.tasks),
            "emptyReplies": sum(v.empty for v in self.tasks),
            "loopsBroken": sum(v.loop_broken for v in self.tasks),
            "runawaysCut": sum(v.cut for v in self.tasks),
            "firstRequestPromptTokens": min(tokens) if tokens else None,
            "seconds": round(self.seconds, 1),
        }


@dataclass(frozen=True)
class HeldOutSet:
    key: str
    """The summary's keys: ``{key}Passed``, ``{key}Tasks``."""
    label: str
    """The table's heading (``label:``) and the listing's mark."""
    short: str
    """The table's total."""


HELD_OUT_SETS = {
    1: HeldOutSet("heldOut", "held out", "held out"),
    2: HeldOutSet("secondHeldOut", "held out, second set", "second set"),
    3: HeldOutSet("thirdHeldOut", "held out, third set", "third set"),
    4: HeldOutSet("fourthHeldOut", "held out, fourth set", "fourth set"),
}
ALL_TASKS = (*TASKS, *HELD_OUT, *SECOND_HELD_OUT, *THIRD_HELD_OUT, *FOURTH_HELD_OUT)
HELD_OUT_NAMES = {task.name: task.held_out for task in ALL_TASKS if task.held_out}
"""Each held-out task's set (a key of ``HELD_OUT_SETS``)."""


def tasks_named(names: str | None) -> list[Task]:
    """The tasks named, or every one: the twelve, then each held-out set in turn."""
    if not names:
        return list(ALL_TASKS)
    known = {task.name: task for task in ALL_TASKS}
    wanted = [name.strip() for name in names.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise SystemExit(f"unknown task(s): {', '.join(unknown)}; known: {', '.join(known)}")
    return [known[name] for name in wanted]


def run_task(
    wisp: Wisp, model: str, task: Task, timeout: float, keep: Path | None = None
) -> Verdict:
    """One task in a fresh folder and home: temporary, or ``keep/TASK`` (which must not exist
    yet: a kept run is never mixed with an earlier one)."""
    with _scratch(task, keep) as scratch:
        folder, home = scratch / "work", scratch / "home"
        folder.mkdir()
        home.mkdir()
        task.setup(folder)
        run = wisp.run(model.replace("{task}", task.name), task, folder, home, timeout)
        return judge(task, run)


@contextlib.contextmanager
def _scratch(task: Task, keep: Path | None) -> Iterator[Path]:
    if keep is None:
        with tempfile.TemporaryDirectory(prefix=f"wisp-task-{task.name}-") as scratch:
            yield Path(scratch)
        return
    kept = keep / task.name
    kept.mkdir(parents=True)  # FileExistsError names it: an earlier run is never overwritten
    yield kept


def run_suite(
    model: str,
    tasks: Sequence[Task],
    timeout: float = DEFAULT_TIMEOUT,
    wisp: Wisp | None = None,
    progress: Callable[[Verdict], None] | None = None,
    jobs: int = 1,
    keep: Path | None = None,
) -> Report:
    """Every task, in order; ``jobs`` at once only for models that cost no CPU (script:)."""
    wisp = wisp or Wisp()
    started = time.monotonic()

    def one(task: Task) -> Verdict:
        verdict = run_task(wisp, model, task, timeout, keep)
        if progress is not None:
            progress(verdict)
        return verdict

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        verdicts = list(pool.map(one, tasks))
    return Report(model, wisp.module_file(), verdicts, time.monotonic() - started)


def table(report: Report) -> str:
    s = report.summary
    lines = [
        f"model {report.model}   wisp {report.wisp}",
        "",
        f"{'task':<10} {'result':<6} {'s':>6}  why",
    ]
    shown: set[int] = set()
    for v in report.tasks:
        held_out = HELD_OUT_NAMES.get(v.task, 0)
        if held_out and held_out not in shown:
            lines.append(f"{HELD_OUT_SETS[held_out].label}:")
            shown.add(held_out)
        result = "pass" if v.passed else "FAIL"
        why = "" if v.passed else f"[{v.blame}] {v.reason}"
        lines.append(f"{v.task:<10} {result:<6} {v.seconds:>6.1f}  {why}")
    lines += [
        "",
        f"passed {s['passed']}/{s['tasks']}   "
        + "".join(
            f"{held.short} {s[f'{held.key}Passed']}/{s[f'{held.key}Tasks']}   "
            for held in HELD_OUT_SETS.values()
        )
        + f"wisp's failures {s['wispFailures']}   "
        f"calls left as text {s['callsLeftAsText']}   empty replies {s['emptyReplies']}   "
        f"loops broken {s['loopsBroken']}   runaways cut {s['runawaysCut']}",
        f"first request's prompt tokens (one-line question) {s['firstRequestPromptTokens']}   "
        f"seconds {s['seconds']}",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-m", "--model", help="as wisp -m; {task} is expanded (required)")
    parser.add_argument("--tasks", help="comma-separated task names (default: all)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds a task")
    parser.add_argument("--wisp", help="a checkout to run instead (put first on PYTHONPATH)")
    parser.add_argument("--config", help="a config.json copied into each task's WISP_HOME")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("--list", action="store_true", help="list the tasks and exit")
    parser.add_argument(
        "--keep", type=Path, help="keep each task's folder and WISP_HOME as KEEP/TASK/{work,home}"
    )
    args = parser.parse_args(argv)
    if args.list:
        for task in ALL_TASKS:
            held = f" ({HELD_OUT_SETS[task.held_out].label})" if task.held_out else ""
            print(f"{task.name:<10} {task.what}{held}: {task.prompt}")
        return 0
    if not args.model:
        parser.error("-m/--model is required (as wisp -m: local, ollama:NAME, script:PATH)")
    wisp = Wisp(wisp_path=args.wisp, config=args.config)
    print(f"wisp imported from {wisp.module_file()}", file=sys.stderr, flush=True)

    def progress(verdict: Verdict) -> None:
        state = "pass" if verdict.passed else f"FAIL [{verdict.blame}] {verdict.reason}"
        if not verdict.passed and verdict.reply:
            state += f"; reply: {verdict.reply[:160]!r}"
        print(f"  {verdict.task}: {state} ({verdict.seconds} s)", file=sys.stderr, flush=True)

    chosen = tasks_named(args.tasks)
    if args.keep is not None and (
        taken := [t.name for t in chosen if (args.keep / t.name).exists()]
    ):
        parser.error(f"--keep {args.keep}: already holds {', '.join(taken)}; name a new folder")
    report = run_suite(args.model, chosen, args.timeout, wisp, progress, keep=args.keep)
    if args.json:
        document = {
            "model": report.model,
            "wisp": report.wisp,
            "summary": report.summary,
            "tasks": [asdict(v) for v in report.tasks],
        }
        print(json.dumps(document, indent=2))
    else:
        print(table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
