"""wisp-tui: startup, streaming, a long transcript, pastes, panels, quitting, wisp's death,
start-up on a terminal.

    python bench/tui.py            # 11 interleaved rounds
    python bench/tui.py --quick    # 3 rounds, shorter replies

Every measurement runs in a fresh child process (this script with `--child KIND`), headless
through `App.run_test()`, and every figure is set against a baseline measured in the same rounds,
the two sides alternating in order from round to round:

(a) ready: the wall time from spawning the child to its saying the input is ready. For wisp-tui:
    a WispApp on `wisp chat --json -m script:FILE` has mounted and focused its input, which takes
    typing (what is typed before wisp's first `status` is kept and sent after our `hello`); the
    time to wisp's first `status` is a row of its own. Baseline: a bare Textual App with one
    Input, started the same way (a child process, `run_test()`), ready when its Input has focus.
    Target: ratio ≤ 1.2.
(b) deltas per second end to end: a script: reply of many 4-character chunks with delay_ms 0,
    through the real `wisp chat --json` into the app; from the first delta reaching the
    transcript to the end of the turn's handling (all the reply's text appended to its Markdown
    and the blocks mounted; drawing them follows). Target ≥ 5,000.
    Baseline: the same reply read from the pipe by a plain process (no app).
(c) CPU while a reply streams at a model's pace (delay_ms 20: about 50 fragments a second): the
    child's CPU time over the wall time from the first delta to the turn's end, as a share of one
    core; wisp's own CPU (the backend process, from /proc) separately. Target ≤ 10 %. Baseline: a
    plain Textual `Markdown` fed the same fragments through `MarkdownStream` at the same pace.
(d) one more turn at 2,000 turns against one more at 10: the transcript is filled with N turns
    (a sent line, a turn start, 20 deltas, the turn's end with its `ran:` line) through the app's
    own handlers, then one more turn is added and drawn (`pilot.pause()`), several times. Its
    cost is the CPU time that takes; the wall time, which also holds Textual's waits for the
    next frame, and the handlers alone are rows of their own. Target: ratio ≤ 1.2.
(e) a megabyte paste: a 1,000,000-character line pasted into wisp-tui's input, until all of it
    is there, then ten keys typed; then 13,000 lines of 80 characters, and ten keys. Baseline: the
    same into a bare Textual `TextArea` that does not wrap (wisp-tui's input stops wrapping for
    such lines; wrapping, a bare TextArea takes over a minute for the line). (The test once
    asserted the first under 5 s and the second's keys under 4 s.)
(f) a 10,000-row panel: pushed and drawn (`pilot.pause()`), against a 16-row panel, a screenful,
    in the same child. Only the rows in view are drawn, so the ratio should be near 1. (The test
    once asserted under 2 s.)
(g) quitting: the real `wisp-tui` console script on a pseudo-terminal (120×40), at idle with
    wisp's status shown; from writing Ctrl-C to the process's exit (wisp's exit included).
    Baseline: a bare Textual app bound to quit on Ctrl-C, the same way. (The real-terminal test
    once asserted under 5 s.)
(h) wisp's death: the same wisp-tui; from SIGKILL of its `wisp chat --json` to "wisp stopped
    unexpectedly" written to the terminal. Baseline: from writing `/help` and Enter to wisp's
    help written back, a round trip through wisp. (The real-terminal test once asserted under
    1 s.)
(i) start-up on a terminal: the real `wisp-tui` console script on a pseudo-terminal (120×40),
    from spawning it to its input drawn (the placeholder written to the terminal) and to wisp's
    hello shown (the status line's approval mode, written after wisp's hello, notes and
    status), on a `script:` model and on `local` (whose weights load at the first request).
    Baseline: a bare Textual app with one Input, spawned the same way, to its Input drawn. Each
    round runs the three in turn, the order reversed every other round; the ratios are taken
    within a round and their median reported. Target: both ratios ≤ 1.2 on `script:`.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import os
import pty
import re
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve()
WISP = Path(sys.executable).parent / "wisp"
SIZE = (120, 40)

PARAGRAPH = (
    "The **transcript** keeps every entry, and the reply streams in as `Markdown`. "
    "Each fragment is appended, never re-rendered from the start.\n\n"
    "- a list item with `code`\n- another item, a little longer than the first one\n\n"
)


def reply_text(characters: int) -> str:
    """``characters`` of Markdown, numbered paragraphs so that no stretch repeats itself (wisp
    cuts a reply that does)."""
    paragraphs, size, n = [], 0, 0
    while size < characters:
        n += 1
        paragraphs.append(f"Part {n}: {PARAGRAPH}")
        size += len(paragraphs[-1])
    return "".join(paragraphs)[:characters]


# Children: each prints one JSON line of results on stdout.


def child_env(folder: Path) -> tuple[dict[str, str], Path]:
    home = folder / "home"
    work = home / "work"
    work.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("WISP_LOG", "WISP_BIN")}
    env["HOME"] = str(home)
    env["WISP_HOME"] = str(home / ".wisp")
    allow_long_replies(home / ".wisp")
    return env, work


def allow_long_replies(wisp_home: Path) -> None:
    """A config whose reply cap lets the longest reply here through whole."""
    wisp_home.mkdir(parents=True, exist_ok=True)
    (wisp_home / "config.json").write_text(json.dumps({"agent": {"maxReplyTokens": 1_000_000}}))


def make_wisp_app(folder: Path, responses: list[dict[str, object]]):
    from wisp_tui.app import WispApp

    env, work = child_env(folder)
    (work / "script.json").write_text(json.dumps({"responses": responses}))
    return WispApp(["-m", "script:script.json"], env=env, cwd=work, command=str(WISP))


async def until(condition, step: float = 0.001, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the benchmark waited too long")
        await asyncio.sleep(step)


def say(result: dict[str, object]) -> None:
    print(json.dumps(result), flush=True)


async def ready_wisp(folder: Path) -> None:
    """Ready: the input has focus and takes typing (what is typed before wisp's first `status`
    is kept and sent after our `hello`). A second line gives the clock at that first `status`."""
    app = make_wisp_app(folder, [])
    async with app.run_test(size=SIZE):
        prompt = app.prompt
        await until(lambda: app.focused is prompt.input and prompt.is_taking_typing)
        say({"ready": True})
        await until(lambda: app.status_bar.status is not None)
        say({"status_at": time.monotonic()})  # CLOCK_MONOTONIC: the parent's clock too
        await app.backend.quit()


async def ready_bare(folder: Path) -> None:
    from textual.app import App, ComposeResult
    from textual.widgets import Input

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Input(placeholder="Ask wisp to do anything")

        def on_mount(self) -> None:
            self.query_one(Input).focus()

    app = Bare()
    async with app.run_test(size=SIZE):
        await until(lambda: isinstance(app.focused, Input))
        say({"ready": True})


def proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def stream_wisp(folder: Path, characters: int, delay_ms: int) -> None:
    """A reply through the real backend into the app: rate and CPU from first delta to turn end."""
    app = make_wisp_app(folder, [{"text": reply_text(characters), "delay_ms": delay_ms}])
    marks: dict[str, float] = {}
    count = 0
    async with app.run_test(size=SIZE):
        await until(lambda: app.status_bar.status is not None)
        transcript = app.transcript
        write_reply, turn_edge = transcript.write_reply, app._turn_edge

        async def counted_write(fragment: str) -> None:
            nonlocal count
            if count == 0:
                marks["first"] = time.perf_counter()
                marks["cpu"] = time.process_time()
                marks["backend"] = proc_cpu_seconds(app.backend._process.pid)
            count += 1
            await write_reply(fragment)

        async def timed_edge(turn) -> None:
            await turn_edge(turn)
            if turn.phase == "end":  # the reply's stream has stopped: all of it is in the widget
                marks["end"] = time.perf_counter()
                marks["cpu_end"] = time.process_time()
                marks["backend_end"] = proc_cpu_seconds(app.backend._process.pid)

        transcript.write_reply = counted_write  # instrumentation on this instance only
        app._turn_edge = timed_edge
        from textual.widgets import Markdown

        appends = 0
        markdown_append = Markdown.append

        def counted_append(markdown: Markdown, text: str):  # this child's class only
            nonlocal appends
            appends += 1
            return markdown_append(markdown, text)

        Markdown.append = counted_append  # type: ignore[method-assign]
        await app.backend.message("go")
        await until(lambda: "end" in marks, step=0.005, timeout=300)
        await app.backend.quit()
    wall = marks["end"] - marks["first"]
    say(
        {
            "deltas": count,
            "wall": wall,
            "rate": count / wall,
            "appends": appends / wall,
            "cpu": (marks["cpu_end"] - marks["cpu"]) / wall,
            "backend_cpu": (marks["backend_end"] - marks["backend"]) / wall,
        }
    )


async def stream_bare(characters: int, delay_ms: int) -> None:
    """A plain Textual Markdown fed through MarkdownStream, 4 characters every delay_ms."""
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Markdown

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield Markdown()

    text = reply_text(characters)
    app = Bare()
    async with app.run_test(size=SIZE) as pilot:
        markdown = app.query_one(Markdown)
        stream = Markdown.get_stream(markdown)
        first, cpu = time.perf_counter(), time.process_time()
        count = 0
        for at in range(0, len(text), 4):
            if count:
                await asyncio.sleep(delay_ms / 1000)
            await stream.write(text[at : at + 4])
            count += 1
        await stream.stop()
        await pilot.pause()
        wall = time.perf_counter() - first
        used = time.process_time() - cpu
    say({"deltas": count, "wall": wall, "rate": count / wall, "cpu": used / wall})


async def turns(folder: Path, n: int, extra: int) -> None:
    """Fill the transcript with n turns through the app's handlers; time `extra` more, one each."""
    from wisp.protocol import Delta, Turn
    from wisp_tui.backend import Backend

    app = make_wisp_app(folder, [])
    fragments = [f"word{i} " for i in range(20)]

    async def one_turn(number: int) -> None:
        await app.transcript.add_sent(f"question {number}", is_command=False)
        await app.on_backend_line(Backend.Line(Turn(phase="start", turn=number)))
        for fragment in fragments:
            await app.on_backend_line(Backend.Line(Delta(text=fragment)))
        end = Turn(phase="end", turn=number, seconds=0.1, outcome="ok", ran="ran: current_date")
        await app.on_backend_line(Backend.Line(end))

    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.status_bar.status is not None)
        built = time.perf_counter()
        for number in range(1, n + 1):
            await one_turn(number)
            if number % 100 == 0:
                await pilot.pause()
        await pilot.pause()
        built = time.perf_counter() - built
        times, handled, cpu = [], [], []
        for number in range(n + 1, n + extra + 1):
            started, cpu_started = time.perf_counter(), time.process_time()
            await one_turn(number)
            handled.append(time.perf_counter() - started)
            await pilot.pause()  # drawn: Textual's wait for idle after the refresh
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - cpu_started)
        widgets = len(list(app.transcript.walk_children()))  # what Textual lays out
        entries = len(list(app.transcript.texts()))  # archived ones included
        await app.backend.quit()
    say(
        {
            "times": times,
            "handled": handled,
            "cpu": cpu,
            "built": built,
            "widgets": widgets,
            "entries": entries,
        }
    )


async def paste_wisp(folder: Path) -> None:
    """(e) wisp-tui's input: the megabyte line, then the 13,000 lines, ten keys after each."""
    from textual import events

    app = make_wisp_app(folder, [])
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.status_bar.status is not None)
        prompt = app.prompt
        times = await pasted(
            pilot,
            lambda text: app.post_message(events.Paste(text)),
            lambda: prompt.text,
            lambda text: setattr(prompt, "text", text),
        )
        await app.backend.quit()
    say(times)


async def paste_bare() -> None:
    """(e)'s baseline: the same pastes and keys into a bare Textual TextArea, not wrapping."""
    from textual import events
    from textual.app import App, ComposeResult
    from textual.widgets import TextArea

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield TextArea(soft_wrap=False)  # as wisp-tui's input has it for such lines

        def on_mount(self) -> None:
            self.query_one(TextArea).focus()

    app = Bare()
    async with app.run_test(size=SIZE) as pilot:
        area = app.query_one(TextArea)
        times = await pasted(
            pilot,
            lambda text: area.post_message(events.Paste(text)),
            lambda: area.text,
            lambda text: setattr(area, "text", text),
        )
    say(times)


async def pasted(pilot, paste, text_of, set_text) -> dict[str, float]:
    """Seconds for the megabyte line and its keys, and for the keys after 13,000 lines."""
    line = "y" * 1_000_000
    started = time.perf_counter()
    paste(line)
    await until(lambda: len(text_of()) >= len(line), step=0.005, timeout=600)
    for _ in range(10):
        await pilot.press("z")
    one_line = time.perf_counter() - started
    set_text("")
    await pilot.pause()
    lines = ("x" * 79 + "\n") * 13_000
    paste(lines)
    await until(lambda: len(text_of()) >= len(lines), step=0.005, timeout=600)
    started = time.perf_counter()
    for _ in range(10):
        await pilot.press("z")
    keys = time.perf_counter() - started
    return {"line": one_line, "keys": keys}


async def panels(folder: Path, repeat: int) -> None:
    """(f) a 10,000-row panel pushed and drawn, against a 16-row one, alternately."""
    from wisp_tui.screens.panel import Panel

    app = make_wisp_app(folder, [])
    sizes = {"big": 10_000, "small": 16}
    times: dict[str, list[float]] = {name: [] for name in sizes}
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.status_bar.status is not None)
        for index in range(repeat):
            order = list(sizes) if index % 2 == 0 else list(reversed(sizes))
            for name in order:
                text = "".join(f"row {n}\n" for n in range(sizes[name]))
                started = time.perf_counter()
                await app.push_screen(Panel("output", text))
                await pilot.pause()
                times[name].append(time.perf_counter() - started)
                app.pop_screen()
                await pilot.pause()
        await app.backend.quit()
    say({name: statistics.median(values) for name, values in times.items()})


def run_child(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        kind = args.child
        if kind == "ready-wisp":
            asyncio.run(ready_wisp(folder))
        elif kind == "ready-bare":
            asyncio.run(ready_bare(folder))
        elif kind == "stream-wisp":
            asyncio.run(stream_wisp(folder, args.characters, args.delay_ms))
        elif kind == "stream-bare":
            asyncio.run(stream_bare(args.characters, args.delay_ms))
        elif kind == "turns":
            asyncio.run(turns(folder, args.turns, args.extra))
        elif kind == "paste-wisp":
            asyncio.run(paste_wisp(folder))
        elif kind == "paste-bare":
            asyncio.run(paste_bare())
        elif kind == "panels":
            asyncio.run(panels(folder, 5))


# The parent: spawns children and reads their results.


def spawn_child(*args: str) -> tuple[float, str, str]:
    """(seconds from spawn to the child's first line, that line, the lines after it)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, str(HERE), "--child", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    line = process.stdout.readline()
    elapsed = time.perf_counter() - started
    rest, err = process.communicate(timeout=600)
    if not line:
        raise RuntimeError(f"child {args} failed:\n{err}")
    return elapsed, line, rest


def spawn(*args: str) -> tuple[float, dict[str, object]]:
    """(seconds from spawn to the child's first line, that line)."""
    elapsed, line, _ = spawn_child(*args)
    return elapsed, json.loads(line)


def spawn_ready(kind: str) -> tuple[float, float | None]:
    """(seconds from spawn to the child's input being ready, to wisp's first status or None)."""
    started_clock = time.monotonic()
    ready, _, rest = spawn_child(kind)
    status = [json.loads(later)["status_at"] for later in rest.splitlines() if "status_at" in later]
    return ready, (status[0] - started_clock if status else None)


def pipe_rate(characters: int) -> float:
    """Baseline for (b): the same reply read from `wisp chat --json` by a plain process."""
    with tempfile.TemporaryDirectory() as name:
        env, work = child_env(Path(name))
        script = work / "script.json"
        script.write_text(json.dumps({"responses": [{"text": reply_text(characters)}]}))
        process = subprocess.Popen(
            [str(WISP), "chat", "--json", "-m", f"script:{script}"], cwd=work, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(b'{"type":"message","text":"go"}\n')
        process.stdin.flush()
        first, count = None, 0
        for line in process.stdout:
            if line.startswith(b'{"type":"delta"'):
                count += 1
                first = first or time.perf_counter()
            elif line.startswith(b'{"type":"turn","phase":"end"'):
                break
        elapsed = time.perf_counter() - (first or time.perf_counter())
        process.stdin.close()
        process.wait()
        return count / elapsed


# (g) and (h): programs on a pseudo-terminal of their own, as a person's shell runs them.

ESCAPES = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]"
)
BARE_QUITTER = """\
from textual.app import App
from textual.widgets import Static


class Bare(App[None]):
    BINDINGS = [("ctrl+c", "quit")]

    def compose(self):
        yield Static("bare app ready")


Bare().run()
"""


class OnPty:
    """A program on a 120×40 pseudo-terminal; what it writes is read on a thread."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        main_fd, sub_fd = pty.openpty()
        fcntl.ioctl(sub_fd, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
        self.process = subprocess.Popen(
            argv, env=env, cwd=cwd, stdin=sub_fd, stdout=sub_fd, stderr=sub_fd,
            start_new_session=True,
        )  # fmt: skip
        os.close(sub_fd)
        self.fd = main_fd
        self.raw = bytearray()
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                data = b""
            with self.changed:
                self.raw += data
                self.changed.notify_all()
            if not data:
                return

    def text(self, since: int = 0) -> bytes:
        with self.changed:
            return ESCAPES.sub(b"", bytes(self.raw[since:]))

    def until(self, marker: bytes, since: int = 0) -> None:
        deadline = time.monotonic() + 120
        with self.changed:
            while marker not in ESCAPES.sub(b"", bytes(self.raw[since:])):
                if not self.changed.wait(timeout=deadline - time.monotonic()):
                    raise TimeoutError(f"{marker!r} never came")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        os.close(self.fd)


def pty_env(folder: Path) -> tuple[dict[str, str], Path]:
    env, work = child_env(folder)
    for name in ("COLUMNS", "LINES"):  # Textual would believe them over the terminal's size
        env.pop(name, None)
    env["TERM"] = "xterm-256color"
    (work / "script.json").write_text(json.dumps({"responses": []}))
    return env, work


def quit_seconds(kind: str) -> float:
    """(g) Ctrl-C at idle to the process's exit: wisp-tui, or the bare app."""
    with tempfile.TemporaryDirectory() as name:
        env, work = pty_env(Path(name))
        if kind == "wisp":
            argv, ready = [str(WISP.with_name("wisp-tui")), "-m", "script:script.json"], b"approve"
        else:
            argv, ready = [sys.executable, "-c", BARE_QUITTER], b"bare app ready"
        run = OnPty(argv, env, work)
        try:
            run.until(ready)
            started = time.perf_counter()
            os.write(run.fd, b"\x03")
            run.process.wait(timeout=120)
            return time.perf_counter() - started
        finally:
            run.close()


def child_pid(parent: int, name: bytes) -> int:
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) != parent:
                continue
            if name in (stat.parent / "cmdline").read_bytes().replace(b"\0", b" "):
                return int(stat.parent.name)
        except (OSError, ValueError):
            continue
    raise RuntimeError(f"no child of {parent} runs {name!r}")


def death_seconds() -> tuple[float, float]:
    """(h) (SIGKILL of wisp to the error written, /help to its answer written) in one run."""
    with tempfile.TemporaryDirectory() as name:
        env, work = pty_env(Path(name))
        run = OnPty([str(WISP.with_name("wisp-tui")), "-m", "script:script.json"], env, work)
        try:
            run.until(b"approve")
            mark = len(run.raw)
            started = time.perf_counter()
            os.write(run.fd, b"/help\r")
            run.until(b"/quit", since=mark)  # wisp's help lists /quit
            round_trip = time.perf_counter() - started
            wisp = child_pid(run.process.pid, b"chat --json")
            mark = len(run.raw)
            started = time.perf_counter()
            os.kill(wisp, signal.SIGKILL)
            run.until(b"stopped unexpectedly", since=mark)
            return time.perf_counter() - started, round_trip
        finally:
            run.close()


# (i): start-up on a terminal, the way a person sees it.

BARE_INPUT = """\
from textual.app import App
from textual.widgets import Input


class Bare(App[None]):
    def compose(self):
        yield Input(placeholder="Ask wisp to do anything")

    def on_mount(self):
        self.query_one(Input).focus()


Bare().run()
"""
START_MODELS = ("script:script.json", "local")
"""The models (i) starts wisp-tui on: the target is the script: one's; local must not wait for
its weights (they load at the first request)."""
INPUT_DRAWN = b"Ask wisp to do anything"
HELLO_SHOWN = b"approve"  # the status line's approval mode: wisp's hello, notes and status are in


class Marked(OnPty):
    """A program on a pty that notes, as its output is read, when each marker first appears."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, markers: list[bytes]):
        self.seen: dict[bytes, float] = {}
        self.markers = markers
        self.started = time.perf_counter()
        super().__init__(argv, env, cwd)

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                data = b""
            now = time.perf_counter()
            with self.changed:
                self.raw += data
                text = ESCAPES.sub(b"", bytes(self.raw))
                for marker in self.markers:
                    if marker not in self.seen and marker in text:
                        self.seen[marker] = now - self.started
                self.changed.notify_all()
            if not data:
                return

    def wait_all(self) -> None:
        deadline = time.monotonic() + 120
        with self.changed:
            while len(self.seen) < len(self.markers):
                if not self.changed.wait(timeout=deadline - time.monotonic()):
                    raise TimeoutError(f"{self.markers} never all came: {self.text()[-400:]!r}")


def terminal_start(kind: str) -> dict[str, float]:
    """(i) spawn to the input drawn, and for wisp-tui to wisp's hello shown, on a pty.

    `kind` is "bare" (a Textual app with one Input) or a model for `wisp-tui -m`."""
    with tempfile.TemporaryDirectory() as name:
        env, work = pty_env(Path(name))
        if kind == "bare":
            argv, markers = [sys.executable, "-c", BARE_INPUT], [INPUT_DRAWN]
        else:
            argv = [str(WISP.with_name("wisp-tui")), "-m", kind]
            markers = [INPUT_DRAWN, HELLO_SHOWN]
        run = Marked(argv, env, work, markers)
        try:
            run.wait_all()
            return {"input": run.seen[INPUT_DRAWN], "hello": run.seen.get(HELLO_SHOWN, 0.0)}
        finally:
            run.close()


def row(label: str, values: list[float], scale: float = 1.0, fmt: str = ".1f") -> str:
    med, low = statistics.median(values) * scale, min(values) * scale
    return f"{label:<52}{med:>12{fmt}}{low:>12{fmt}}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds and shorter replies")
    parser.add_argument("--rounds", type=int, help="rounds (default 11, quick 3)")
    parser.add_argument("--only", help="a comma-separated subset of a,b,c,d,e,f,g,h,i")
    parser.add_argument("--big", type=int, default=2_000, help="turns for (d) (default 2,000)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--characters", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--delay-ms", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--turns", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--extra", type=int, default=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_child(args)
        return 0
    rounds = args.rounds or (3 if args.quick else 11)
    only = set((args.only or "a,b,c,d,e,f,g,h,i").split(","))
    fast_chars = 40_000 if args.quick else 200_000  # (b): 10,000 / 50,000 deltas
    paced_chars = 400 if args.quick else 1_200  # (c): 100 / 300 fragments at 20 ms
    big = args.big
    turn_rounds = 1 if args.quick else 3  # building a long transcript takes minutes
    import textual

    import wisp
    import wisp_tui

    # As an installed wheel would be: compiled once, not from source on every start.
    for package in (wisp, wisp_tui, textual):
        folder = str(Path(package.__file__).parent)
        subprocess.run([sys.executable, "-m", "compileall", "-q", folder], check=True)
    spawn("ready-wisp")  # warm the file cache, untimed
    spawn("ready-bare")

    results: dict[str, list[float]] = {}

    def add(key: str, value: float) -> None:
        results.setdefault(key, []).append(value)

    for index in range(rounds):
        forward = index % 2 == 0
        if "a" in only:
            for kind in ("ready-wisp", "ready-bare") if forward else ("ready-bare", "ready-wisp"):
                ready, status = spawn_ready(kind)
                add(kind, ready)
                if status is not None:
                    add("status-wisp", status)
            add("ready-ratio", results["ready-wisp"][-1] / results["ready-bare"][-1])
        if "b" in only:
            sides = ["app", "pipe"] if forward else ["pipe", "app"]
            for side in sides:
                if side == "app":
                    _, out = spawn("stream-wisp", "--characters", str(fast_chars))
                    add("rate-app", out["rate"])  # type: ignore[arg-type]
                    add("rate-deltas", out["deltas"])  # type: ignore[arg-type]
                else:
                    add("rate-pipe", pipe_rate(fast_chars))
        if "c" in only:
            for kind in (
                ("stream-wisp", "stream-bare") if forward else ("stream-bare", "stream-wisp")
            ):
                _, out = spawn(kind, "--characters", str(paced_chars), "--delay-ms", "20")
                add(f"cpu-{kind}", out["cpu"])  # type: ignore[arg-type]
                add(f"pace-{kind}", out["rate"])  # type: ignore[arg-type]
                if kind == "stream-wisp":
                    add("cpu-backend", out["backend_cpu"])  # type: ignore[arg-type]
                    add("appends-wisp", out["appends"])  # type: ignore[arg-type]
        if "d" in only and index < turn_rounds:
            sizes = (10, big) if forward else (big, 10)
            for size in sizes:
                _, out = spawn("turns", "--turns", str(size), "--extra", "15")
                add(f"turn-{size}", statistics.median(out["times"]))  # type: ignore[arg-type]
                add(f"handled-{size}", statistics.median(out["handled"]))  # type: ignore[arg-type]
                add(f"cpu-{size}", statistics.median(out["cpu"]))  # type: ignore[arg-type]
                add(f"built-{size}", out["built"])  # type: ignore[arg-type]
                add(f"widgets-{size}", out["widgets"])  # type: ignore[arg-type]
                add(f"entries-{size}", out["entries"])  # type: ignore[arg-type]
            add("turn-ratio", results[f"turn-{big}"][-1] / results["turn-10"][-1])
            add("handled-ratio", results[f"handled-{big}"][-1] / results["handled-10"][-1])
            add("cpu-ratio", results[f"cpu-{big}"][-1] / results["cpu-10"][-1])
        if "e" in only:
            for kind in ("paste-wisp", "paste-bare") if forward else ("paste-bare", "paste-wisp"):
                _, out = spawn(kind)
                add(f"{kind}-line", out["line"])  # type: ignore[arg-type]
                add(f"{kind}-keys", out["keys"])  # type: ignore[arg-type]
            add("paste-ratio", results["paste-wisp-line"][-1] / results["paste-bare-line"][-1])
            add("keys-ratio", results["paste-wisp-keys"][-1] / results["paste-bare-keys"][-1])
        if "f" in only:
            _, out = spawn("panels")
            add("panel-big", out["big"])  # type: ignore[arg-type]
            add("panel-small", out["small"])  # type: ignore[arg-type]
            add("panel-ratio", results["panel-big"][-1] / results["panel-small"][-1])
        if "g" in only:
            for kind in ("wisp", "bare") if forward else ("bare", "wisp"):
                add(f"quit-{kind}", quit_seconds(kind))
            add("quit-ratio", results["quit-wisp"][-1] / results["quit-bare"][-1])
        if "h" in only:
            death, round_trip = death_seconds()
            add("death", death)
            add("help", round_trip)
            add("death-ratio", death / round_trip)
        if "i" in only:
            kinds = ["bare", *START_MODELS]
            for kind in kinds if forward else reversed(kinds):
                times = terminal_start(kind)
                if kind == "bare":
                    add("start-bare", times["input"])
                else:
                    add(f"start-{kind}-input", times["input"])
                    add(f"start-{kind}-hello", times["hello"])
            for model in START_MODELS:
                bare = results["start-bare"][-1]
                for what in ("input", "hello"):
                    add(f"start-{model}-{what}-ratio", results[f"start-{model}-{what}"][-1] / bare)
        print(f"  round {index + 1}/{rounds} done", file=sys.stderr)

    def verdict(ok: bool) -> str:
        return "met" if ok else "missed"

    print(
        f"\nwisp-tui, {rounds} interleaved rounds"
        f" (children headless via run_test, {SIZE[0]}×{SIZE[1]})"
    )
    print(f"{'measure':<52}{'median':>12}{'min':>12}")
    print("-" * 76)
    if "a" in only:
        print(row("(a) spawn to input ready, wisp-tui (ms)", results["ready-wisp"], 1000))
        print(row("    spawn to input ready, bare Textual Input (ms)", results["ready-bare"], 1000))
        print(row("    spawn to wisp's first status, wisp-tui (ms)", results["status-wisp"], 1000))
        ratio = statistics.median(results["ready-ratio"])
        print(row("    ratio", results["ready-ratio"], fmt=".2f"))
        print(f"    target ratio ≤ 1.2: {verdict(ratio <= 1.2)}")
    if "b" in only:
        deltas = int(results["rate-deltas"][0])
        print(
            row(
                f"(b) deltas/s into the app, end to end ({deltas:,})",
                results["rate-app"],
                fmt=",.0f",
            )
        )
        print(row("    deltas/s through the pipe alone", results["rate-pipe"], fmt=",.0f"))
        rate = statistics.median(results["rate-app"])
        print(f"    target ≥ 5,000 deltas/s: {verdict(rate >= 5000)}")
    if "c" in only:
        print(
            row(
                "(c) CPU while streaming at 20 ms, wisp-tui (% core)",
                results["cpu-stream-wisp"],
                100,
            )
        )
        print(row("    CPU of wisp chat --json meanwhile (% core)", results["cpu-backend"], 100))
        print(
            row(
                "    CPU, plain Markdown + MarkdownStream (% core)", results["cpu-stream-bare"], 100
            )
        )
        print(row("    fragments/s reached, wisp-tui", results["pace-stream-wisp"]))
        print(row("    fragments/s reached, plain Markdown", results["pace-stream-bare"]))
        print(row("    Markdown appends/s, wisp-tui", results["appends-wisp"]))
        cpu = statistics.median(results["cpu-stream-wisp"])
        print(f"    target ≤ 10 % of a core: {verdict(cpu <= 0.10)}")
    if "d" in only:
        print(row("(d) CPU of one more turn, drawn, at 10 turns (ms)", results["cpu-10"], 1000))
        print(row(f"    the same at {big:,} turns (ms)", results[f"cpu-{big}"], 1000))
        print(row("    ratio (the cost)", results["cpu-ratio"], fmt=".2f"))
        print(row("    wall time of one more turn, at 10 turns (ms)", results["turn-10"], 1000))
        print(row(f"    the same at {big:,} turns (ms)", results[f"turn-{big}"], 1000))
        print(row("    ratio, wall time", results["turn-ratio"], fmt=".2f"))
        print(row("    the handlers alone, at 10 turns (ms)", results["handled-10"], 1000))
        print(
            row(f"    the handlers alone, at {big:,} turns (ms)", results[f"handled-{big}"], 1000)
        )
        print(row("    ratio, the handlers alone", results["handled-ratio"], fmt=".2f"))
        print(row(f"    building {big:,} turns (s)", results[f"built-{big}"]))
        entries, widgets = (int(results[f"{key}-{big}"][0]) for key in ("entries", "widgets"))
        print(f"    transcript entries at {big:,} turns: {entries:,} ({widgets:,} widgets)")
        ratio = statistics.median(results["cpu-ratio"])
        print(f"    target ratio ≤ 1.2 (the cost: CPU): {verdict(ratio <= 1.2)}")
    if "e" in only:
        print(row("(e) megabyte line pasted, then 10 keys, wisp-tui (ms)",
                  results["paste-wisp-line"], 1000))  # fmt: skip
        print(row("    the same, bare TextArea (ms)", results["paste-bare-line"], 1000))
        print(row("    ratio", results["paste-ratio"], fmt=".2f"))
        print(
            row("    10 keys after 13,000 lines, wisp-tui (ms)", results["paste-wisp-keys"], 1000)
        )
        print(row("    the same, bare TextArea (ms)", results["paste-bare-keys"], 1000))
        print(row("    ratio", results["keys-ratio"], fmt=".2f"))
    if "f" in only:
        print(row("(f) 10,000-row panel pushed and drawn (ms)", results["panel-big"], 1000))
        print(row("    16-row panel (ms)", results["panel-small"], 1000))
        print(row("    ratio", results["panel-ratio"], fmt=".2f"))
    if "g" in only:
        print(row("(g) Ctrl-C at idle to exit, wisp-tui on a pty (ms)", results["quit-wisp"], 1000))
        print(row("    the same, bare Textual app (ms)", results["quit-bare"], 1000))
        print(row("    ratio", results["quit-ratio"], fmt=".2f"))
    if "h" in only:
        print(row("(h) wisp killed to its error on the terminal (ms)", results["death"], 1000))
        print(row("    /help to wisp's help on the terminal (ms)", results["help"], 1000))
        print(row("    ratio", results["death-ratio"], fmt=".2f"))
    if "i" in only:
        print(row("(i) spawn to the input drawn, bare app (ms)", results["start-bare"], 1000))
        for model in START_MODELS:
            print(f"    wisp-tui -m {model}:")
            for what, label in (("input", "the input drawn"), ("hello", "wisp's hello shown")):
                print(row(f"      spawn to {label} (ms)", results[f"start-{model}-{what}"], 1000))
                ratios = results[f"start-{model}-{what}-ratio"]
                print(row(f"      ratio to the bare app, {what}", ratios, fmt=".2f"))
                if model == START_MODELS[0]:
                    print(f"      target ≤ 1.2: {verdict(statistics.median(ratios) <= 1.2)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
