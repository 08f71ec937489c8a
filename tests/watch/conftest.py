"""A real ``wisp watch`` on a real tree: its run lines read as they come, a FIFO the command
writes to when it has started, and the processes a marker names."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import msgspec
import pytest

from tests.conftest import WISP
from tests.hang import HANG

RUN_LINE = re.compile(
    r"\d\d:\d\d:\d\d run (?P<number>\d+) · (?P<trigger>start|change|interval)"
    r"(?:: (?P<changed>.+?))? · (?P<verdict>pass|fail[^·]*) · (?P<seconds>[\d.]+) s"
)
PYTHON = sys.executable

SLEEPER = """\
import sys, time
with open(sys.argv[1], "w") as fifo:
    fifo.write("started\\n")
time.sleep(600)
"""
"""A long command: it says on the FIFO it names that it has started, then sleeps."""

GATE = """\
import sys
with open(sys.argv[1], "w") as fifo:
    fifo.write("started\\n")
with open(sys.argv[2]) as fifo:
    sys.exit(int(fifo.readline()))
"""
"""A command that says it has started, then ends with the status the test sends it."""


class Run(msgspec.Struct):
    """One run line, and the lines printed under it before the next."""

    number: int
    trigger: str
    changed: str | None
    verdict: str
    under: list[str] = msgspec.field(default_factory=list)


class Watching:
    """A ``wisp watch`` process and what it printed."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        """Every stdout line so far."""
        self.runs: list[Run] = []

    async def line(self) -> str:
        assert self.process.stdout is not None
        raw = await asyncio.wait_for(self.process.stdout.readline(), HANG)
        if not raw:
            stderr = await self._stderr()
            raise AssertionError(f"wisp watch ended ({self.process.returncode}): {stderr}")
        line = raw.decode().rstrip("\n")
        self.lines.append(line)
        return line

    async def run(self, number: int | None = None) -> Run:
        """The next run line (the given run's), the lines before it kept under the last."""
        while True:
            line = await self.line()
            found = RUN_LINE.fullmatch(line)
            if found is None:
                if self.runs:
                    self.runs[-1].under.append(line)
                continue
            run = Run(int(found["number"]), found["trigger"], found["changed"], found["verdict"])
            self.runs.append(run)
            if number is None or run.number == number:
                return run

    async def until(self, text: str) -> str:
        """Lines up to one holding ``text``, kept under the last run."""
        while True:
            line = await self.line()
            if self.runs:
                self.runs[-1].under.append(line)
            if text in line:
                return line

    async def stop(self) -> tuple[int, str]:
        """Ctrl-C, then its exit status and what it said on stderr."""
        self.process.send_signal(signal.SIGINT)
        await asyncio.wait_for(self.process.wait(), HANG)
        assert self.process.stdout is not None
        rest = await self.process.stdout.read()
        self.lines += rest.decode().splitlines()
        assert self.process.returncode is not None
        return self.process.returncode, await self._stderr()

    async def _stderr(self) -> str:
        assert self.process.stderr is not None
        if self.process.returncode is None:
            return ""
        return (await self.process.stderr.read()).decode()


@pytest.fixture
def watch_env(wisp_env: dict[str, str]) -> dict[str, str]:
    """The fresh home, and no desktop: every notification route unavailable, so each is
    recorded as refused, with the routes skipped."""
    env = {k: v for k, v in wisp_env.items() if k not in ("DBUS_SESSION_BUS_ADDRESS",)}
    env.pop("XDG_RUNTIME_DIR", None)
    return env


@pytest.fixture
def put(tmp_path: Path) -> Callable[[Path, str], None]:
    """Write a file at once, as an editor's save does: the text goes to a file outside the
    watched tree, renamed over the one in it. The watch sees one change, never a file half
    written (a writer paused between the truncation and the write, on a busy machine, would
    be two changes and two runs)."""

    def put(path: Path, text: str) -> None:
        staged = tmp_path / ".staged"
        staged.write_text(text)
        os.replace(staged, path)

    return put


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    tree.mkdir()
    return tree


@pytest.fixture
async def start_watch(
    watch_env: dict[str, str], tree: Path
) -> AsyncIterator[Callable[..., asyncio.Future[Watching]]]:
    """Start ``wisp watch ARGS`` in ``tree``; each is ended (SIGKILL) after the test if it
    still runs."""
    started: list[asyncio.subprocess.Process] = []

    async def start(*args: str) -> Watching:
        process = await asyncio.create_subprocess_exec(
            str(WISP), "watch", *args, cwd=tree, env=watch_env,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        started.append(process)
        return Watching(process)

    yield start  # type: ignore[misc]
    for process in started:
        if process.returncode is None:
            process.kill()
            await process.wait()


class Fifo:
    """A FIFO between the test and the command, held open both ways here: a read waits for a
    line rather than seeing no writer as the end, and a write never waits for a reader."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = path
        self._fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        self._reader: asyncio.StreamReader | None = None

    async def line(self) -> str:
        """The next line the command wrote."""
        if self._reader is None:
            loop = asyncio.get_running_loop()
            self._reader = asyncio.StreamReader()
            pipe = os.fdopen(self._fd, "rb", buffering=0)
            protocol = asyncio.StreamReaderProtocol(self._reader)
            await loop.connect_read_pipe(lambda: protocol, pipe)
        return (await asyncio.wait_for(self._reader.readline(), HANG)).decode()

    def send(self, line: str) -> None:
        """A line for the command to read."""
        os.write(self._fd, line.encode() + b"\n")


def running(marker: str, but: int | None = None) -> list[int]:
    """The processes whose command line holds ``marker`` (a path of the test's own), ``but``
    aside (the watch, whose own words hold it), and zombies too: they have ended, and hold no
    command line."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == but:
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as file:
                cmdline = file.read()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(entry.name))
    return found


def events(audit_lines: Callable[[], list[dict]], kind: str) -> list[dict]:
    return [line["details"] for line in audit_lines() if line["kind"] == kind]


def routed_to(wisp_home: Path, script: Path, replies: list[dict]) -> None:
    """``routing.tasks.triage`` set to a replay model answering ``replies`` in order."""
    script.write_text(json.dumps({"responses": [], "routed": {"triage": replies}}))
    wisp_home.mkdir(parents=True, exist_ok=True)
    config = {"routing": {"tasks": {"triage": f"script:{script}"}}}
    (wisp_home / "config.json").write_text(json.dumps(config))
