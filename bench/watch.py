"""`wisp watch` beside entr: the time from a file's write to the command's start, and the CPU
each spends idle-watching a tree of 10,000 files (docs/performance.md, "Watch: `bench/watch.py`").

    python bench/watch.py                 # 30 writes a way, then a 60 s idle window (~3 min)
    python bench/watch.py --quick         # 8 writes a way, a 10 s idle window
    python bench/watch.py --ways entr     # entr alone (a comma-separated list of ways)
    python bench/watch.py --json          # one JSON document on stdout

**The ways.** Each watches its own generated tree of ``--files`` files (10 × 10 folders of 100
small files; a git repository with a ``.gitignore``, the files committed, as a project is: wisp
asks git which changes it ignores) and runs the same command, ``sh -c 'date +%s%N > stamps'``,
from the folder holding the tree (``stamps``, a FIFO, is outside the tree, so a run never
triggers another):

* entr: ``entr -n sh -c …`` with the tree's files on stdin (``-n``: no TTY; neither ``-d``,
  the writes make no new files, nor ``-r``, the command is short; its default consolidation,
  which drops what changes while the command runs, is never exercised: writes are spaced).
  On Linux entr reads inotify until 50 ms pass with no event, then runs the command: its
  latency is those 50 ms and a fork and exec;
* wisp: ``wisp watch --path tree --no-triage -- sh -c …`` under a fresh WISP_HOME,
  the command confined as wisp confines it;
* wisp unconfined: the same with ``commandPolicy.sandbox.enabled: false`` in that WISP_HOME's
  config.json.

The three run at once, all started before any figure is taken; each is ready once its first
run's stamp is read and a first write has been seen (a write is repeated until one is).

**Latency.** In rounds whose order rotates, each way in turn: a random file of its tree is
rewritten in place (``open``, ``O_TRUNC``, ``write``, ``close``: as ``echo >`` saves, not an
editor's rename); the time is taken just before the ``open`` (``time.time_ns``) and compared
with the stamp the command's ``date`` writes (both the wall clock). The bench reads the FIFO
for that stamp, then waits a random 0.25 to 0.5 s before the next write: the think time between
edits, which also places writes at random points of any polling or debounce clock. Runs beyond
one a write are counted (``extra runs``). Reported: median, p90 and minimum ms, and each wisp
way's median minus entr's. Target (the issue's): wisp's median <= entr's + 60 ms.

**Idle CPU.** After the latency rounds nothing is written for ``--idle`` seconds (60; 10 with
``--quick``); each way's CPU time (user + system of the watcher and every live descendant, and
of its reaped children, from ``/proc/PID/stat``) is read before and after. Reported: CPU seconds
and percent of one core over the window. Target: under 1% of one core.

Exits 1 when a target is missed (2 when a way failed to run), 0 otherwise. Every process the
bench starts is ended on exit, Ctrl-C included; the trees live in a temp dir removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path

WISP = Path(sys.executable).with_name("wisp")
STAMP = "date +%s%N > stamps"
WAYS = ("entr", "wisp", "wisp unconfined")
LATENCY_TARGET_MS = 60.0
"""wisp's median may exceed entr's by this much."""
IDLE_TARGET_PERCENT = 1.0
STARTUP_SECONDS = 120.0
"""How long a way may take to run its command the first time (the tree scanned, the sandbox
probed, on a busy machine)."""
RUN_SECONDS = 10.0
"""How long after a write its run may start before the bench calls it lost."""
PRIME_SECONDS = 2.0
"""How long the first write waits for its run before it is made again (the watch not set up)."""
THINK_SECONDS = (0.25, 0.5)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class WayFailed(Exception):
    """A way did not run its command when it should have."""


# --- The tree ----------------------------------------------------------------------------------


def make_tree(root: Path, files: int) -> list[Path]:
    """``files`` small text files under ``root``, 100 a folder in two levels of 10 folders."""
    made = []
    for number in range(files):
        top, sub = divmod(number // 100, 10)
        folder = root / f"package_{top}" / f"module_{sub}"
        if number % 100 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"part_{number % 100:02}.py"
        path.write_text(f'"""Part {number}."""\n\nVALUE = {number}\n')
        made.append(path)
    return made


def make_repository(root: Path) -> None:
    """``root`` as a project is: a git repository with a ``.gitignore``, its files committed,
    so that wisp asks git about each change as it would in one (entr asks nothing)."""
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    identity = ["-c", "user.name=bench", "-c", "user.email=bench"]  # not a real address
    for words in (["init", "-q"], ["add", "-A"], [*identity, "commit", "-q", "-m", "tree"]):
        subprocess.run(["git", "-C", str(root), *words], check=True, capture_output=True)


def rewrite(path: Path, generation: int) -> int:
    """Rewrite ``path`` in place; the wall-clock time (ns) just before it was opened."""
    started = time.time_ns()
    with path.open("w") as file:
        file.write(f'"""Rewritten."""\n\nGENERATION = {generation}\n')
    return started


# --- Stamps: what the command writes ----------------------------------------------------------


class Stamps:
    """The FIFO each run of a way's command writes its start time (ns) to, one line a run.

    Held open for reading and writing, so that it never reads end-of-file between runs and a
    run's ``date`` never blocks waiting for a reader."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        self.lines: deque[int] = deque()
        self.arrived = asyncio.Event()
        self.partial = b""
        asyncio.get_running_loop().add_reader(self.fd, self._read)

    def _read(self) -> None:
        with contextlib.suppress(BlockingIOError):
            self.partial += os.read(self.fd, 65536)
        *complete, self.partial = self.partial.split(b"\n")
        self.lines.extend(int(line) for line in complete if line.strip())
        if self.lines:
            self.arrived.set()

    async def next(self, seconds: float) -> int | None:
        """The next run's stamp, or None when none comes within ``seconds``."""
        with contextlib.suppress(TimeoutError):
            while not self.lines:
                self.arrived.clear()
                await asyncio.wait_for(self.arrived.wait(), seconds)
            return self.lines.popleft()
        return None

    def drain(self) -> int:
        """How many stamps were waiting; they are dropped."""
        count = len(self.lines)
        self.lines.clear()
        return count

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.fd)
        os.close(self.fd)


# --- Processes ---------------------------------------------------------------------------------


def process_table() -> dict[int, tuple[int, int]]:
    """Every process's parent and CPU ticks (user + system, its own and its reaped children's)."""
    table = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            text = Path(entry.path, "stat").read_text()
        except OSError:  # gone since the listing
            continue
        fields = text[text.rindex(")") + 2 :].split()
        # After the name: state, ppid, …; utime, stime, cutime, cstime are the 12th to 15th.
        table[int(entry.name)] = (int(fields[1]), sum(int(value) for value in fields[11:15]))
    return table


def descendants(pid: int, table: dict[int, tuple[int, int]]) -> list[int]:
    children: dict[int, list[int]] = {}
    for child, (parent, _) in table.items():
        children.setdefault(parent, []).append(child)
    found, pending = [], [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def cpu_seconds(pid: int) -> float:
    """CPU time of ``pid``, its live descendants and the children they have reaped."""
    table = process_table()
    pids = [pid, *descendants(pid, table)]
    return sum(table[each][1] for each in pids if each in table) / CLOCK_TICKS


async def end(process: asyncio.subprocess.Process) -> None:
    """End ``process``, its process group and any descendant that left the group."""
    if process.returncode is not None:
        return
    family = descendants(process.pid, process_table())
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), 5)
    for pid in [process.pid, *family]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    await process.wait()


# --- A way -------------------------------------------------------------------------------------


@dataclass
class Way:
    name: str
    folder: Path
    files: list[Path]
    stamps: Stamps
    process: asyncio.subprocess.Process
    latencies_ms: list[float] = field(default_factory=list)
    extra_runs: int = 0
    generation: int = 0

    def log(self) -> str:
        parts = [(self.folder / name).read_text(errors="replace") for name in ("out", "err")]
        return "\n".join(part[-2000:] for part in parts if part)

    async def next_run(self, seconds: float) -> int | None:
        """The next run's stamp, None when none comes within ``seconds``; WayFailed when the
        watcher ends first."""
        stamp = asyncio.ensure_future(self.stamps.next(seconds))
        ended = asyncio.ensure_future(self.process.wait())
        try:
            await asyncio.wait((stamp, ended), return_when=asyncio.FIRST_COMPLETED)
        finally:
            stamp.cancel()
            ended.cancel()
        if stamp.done() and not stamp.cancelled():
            return stamp.result()
        status = self.process.returncode
        raise WayFailed(f"{self.name} ended, status {status}, before it ran\n{self.log()}")

    async def write_and_wait(self, path: Path, seconds: float) -> float | None:
        """Rewrite ``path``; ms from the write to its run's stamp, None if no run came."""
        self.extra_runs += self.stamps.drain()
        self.generation += 1
        written = rewrite(path, self.generation)
        stamp = await self.next_run(seconds)
        return None if stamp is None else (stamp - written) / 1e6

    async def ready(self) -> None:
        """The first run seen, and a first write seen (made again until it is)."""
        if await self.next_run(STARTUP_SECONDS) is None:
            raise WayFailed(f"{self.name}: no first run in {STARTUP_SECONDS:.0f} s\n{self.log()}")
        for _ in range(int(STARTUP_SECONDS / PRIME_SECONDS)):
            if await self.write_and_wait(self.files[0], PRIME_SECONDS) is not None:
                self.stamps.drain()
                return
        raise WayFailed(f"{self.name}: no run after a write\n{self.log()}")

    async def measure_one(self, rng: random.Random) -> None:
        latency = await self.write_and_wait(rng.choice(self.files), RUN_SECONDS)
        if latency is None:
            raise WayFailed(f"{self.name}: no run within {RUN_SECONDS:.0f} s of a write")
        self.latencies_ms.append(latency)


def argv_of(name: str, wisp: Path) -> list[str]:
    command = ["sh", "-c", STAMP]
    if name == "entr":
        return ["entr", "-n", *command]
    return [str(wisp), "watch", "--path", "tree", "--no-triage", "--", *command]


def environment_of(name: str, folder: Path) -> dict[str, str]:
    env = {**os.environ}
    env.pop("WISP_LOG", None)
    if name.startswith("wisp"):
        home = folder / "home"
        home.mkdir(mode=0o700)
        env["WISP_HOME"] = str(home)
        if name == "wisp unconfined":
            config = {"commandPolicy": {"sandbox": {"enabled": False}}}
            (home / "config.json").write_text(json.dumps(config))
    return env


async def start(name: str, folder: Path, files: int, wisp: Path) -> Way:
    folder.mkdir()
    made = make_tree(folder / "tree", files)
    make_repository(folder / "tree")
    listing = folder / "files"
    listing.write_text("".join(f"{path}\n" for path in made))
    stamps = Stamps(folder / "stamps")
    out, err = (folder / "out").open("w"), (folder / "err").open("w")
    with listing.open() as stdin, out, err:
        process = await asyncio.create_subprocess_exec(
            *argv_of(name, wisp),
            cwd=folder, env=environment_of(name, folder),
            stdin=stdin if name == "entr" else asyncio.subprocess.DEVNULL, stdout=out, stderr=err,
            start_new_session=True,
        )  # fmt: skip
    return Way(name, folder, made, stamps, process)


# --- The measures ------------------------------------------------------------------------------


async def latency_rounds(ways: list[Way], writes: int, rng: random.Random) -> None:
    for round_ in range(writes):
        order = ways[round_ % len(ways) :] + ways[: round_ % len(ways)]
        for way in order:
            # Think time, as between edits: it also lets the previous run end, since entr drops
            # what changes while its command runs, and it places writes at random points of
            # any polling or debounce clock.
            await asyncio.sleep(rng.uniform(*THINK_SECONDS))
            await way.measure_one(rng)
        if (round_ + 1) % 10 == 0 or round_ + 1 == writes:
            print(f"  latency round {round_ + 1}/{writes} done", file=sys.stderr, flush=True)


async def idle_window(ways: list[Way], seconds: float) -> tuple[dict[str, float], float]:
    """Each way's CPU seconds over about ``seconds`` in which nothing is written, and the
    window's measured length."""
    for way in ways:
        way.extra_runs += way.stamps.drain()
    before = {way.name: cpu_seconds(way.process.pid) for way in ways}
    started = time.monotonic()
    await asyncio.sleep(seconds)  # the window measured: nothing happens in it, by design
    elapsed = time.monotonic() - started
    after = {way.name: cpu_seconds(way.process.pid) for way in ways}
    for way in ways:
        way.extra_runs += way.stamps.drain()
    return {name: after[name] - before[name] for name in before}, elapsed


def percentile(values: list[float], percent: int) -> float:
    """The ``percent``-th percentile, interpolated between the nearest values."""
    return statistics.quantiles(values, n=100, method="inclusive")[percent - 1]


@dataclass(frozen=True)
class Figures:
    """One way's figures: its latencies (ms) and its CPU over the idle window."""

    way: str
    median_ms: float
    p90_ms: float
    min_ms: float
    writes: int
    extra_runs: int
    idle_cpu_s: float
    idle_percent: float
    over_entr_ms: float | None
    """Its median minus entr's; None for entr, or when entr was not measured."""

    def misses(self) -> list[str]:
        """The targets it missed, in words (only wisp's ways have targets)."""
        if not self.way.startswith("wisp"):
            return []
        found = []
        if self.over_entr_ms is not None and self.over_entr_ms > LATENCY_TARGET_MS:
            found.append(
                f"{self.way}: median {self.over_entr_ms:+.0f} ms from entr's "
                f"(target <= +{LATENCY_TARGET_MS:.0f})"
            )
        if self.idle_percent >= IDLE_TARGET_PERCENT:
            found.append(
                f"{self.way}: idle {self.idle_percent:.2f}% of a core "
                f"(target < {IDLE_TARGET_PERCENT:.0f}%)"
            )
        return found


def figures_of(ways: list[Way], idle_cpu: dict[str, float], window: float) -> list[Figures]:
    entr = next((statistics.median(w.latencies_ms) for w in ways if w.name == "entr"), None)
    rows = []
    for way in ways:
        times, cpu = way.latencies_ms, idle_cpu[way.name]
        median = statistics.median(times)
        over = None if entr is None or way.name == "entr" else median - entr
        latency = (median, percentile(times, 90), min(times), len(times), way.extra_runs)
        rows.append(Figures(way.name, *latency, cpu, 100 * cpu / window, over))
    return rows


# --- Report ------------------------------------------------------------------------------------


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def report(rows: list[Figures], window: float, files: int) -> None:
    print(
        f"Latency, a write to the command's start ({rows[0].writes} writes a way, "
        f"a tree of {files:,} files, {os.cpu_count()} CPUs)"
    )
    heads = f"{'median ms':>10} {'p90 ms':>8} {'min ms':>8} {'- entr ms':>10} {'extra':>6}"
    print(f"{'way':<18} {heads}  target")
    for row in rows:
        over, target = "", ""
        if row.over_entr_ms is not None:
            over = f"{row.over_entr_ms:+.1f}"
            met = verdict(row.over_entr_ms <= LATENCY_TARGET_MS)
            target = f"<= entr + {LATENCY_TARGET_MS:.0f}: {met}"
        print(
            f"{row.way:<18} {row.median_ms:>10.1f} {row.p90_ms:>8.1f} {row.min_ms:>8.1f} "
            f"{over:>10} {row.extra_runs:>6}  {target}"
        )
    print(f"\nIdle CPU over {window:.0f} s, nothing written, {files:,} files")
    print(f"{'way':<18} {'CPU s':>8} {'% of a core':>12}  target")
    for row in rows:
        target = ""
        if row.way.startswith("wisp"):
            target = (
                f"< {IDLE_TARGET_PERCENT:.0f}%: {verdict(row.idle_percent < IDLE_TARGET_PERCENT)}"
            )
        print(f"{row.way:<18} {row.idle_cpu_s:>8.2f} {row.idle_percent:>12.2f}  {target}")


async def measure(
    names: list[str], files: int, writes: int, idle: float, seed: int, wisp: Path = WISP
) -> tuple[list[Figures], float]:
    """Each way's figures, and the idle window's length (s)."""
    rng = random.Random(seed)
    ways: list[Way] = []
    with tempfile.TemporaryDirectory(prefix="wisp-bench-watch-") as temp:
        try:
            for index, name in enumerate(names):
                ways.append(await start(name, Path(temp) / f"way-{index}", files, wisp))
            for way in ways:
                await way.ready()
            print(f"  {len(ways)} ways watching", file=sys.stderr, flush=True)
            await latency_rounds(ways, writes, rng)
            idle_cpu, window = await idle_window(ways, idle)
        finally:
            for way in ways:
                await end(way.process)
                way.stamps.close()
    return figures_of(ways, idle_cpu, window), window


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="8 writes, a 10 s idle window")
    parser.add_argument("--writes", type=int, help="writes a way (default 30, quick 8)")
    parser.add_argument("--idle", type=float, help="idle window, seconds (default 60, quick 10)")
    parser.add_argument("--files", type=int, default=10_000, help="files in each tree")
    parser.add_argument("--ways", default=",".join(WAYS), help=f"of: {', '.join(WAYS)}")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--wisp", type=Path, default=WISP, help="the wisp program (default: beside this python)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    args = parser.parse_args()
    names = [name.strip() for name in args.ways.split(",")]
    if unknown := set(names) - set(WAYS):
        parser.error(f"unknown ways: {', '.join(sorted(unknown))}")
    if shutil.which("git") is None:
        sys.exit("needs git: each tree is a repository, as a project is")
    if "entr" in names and shutil.which("entr") is None:
        sys.exit("entr is not installed (apt-get install entr), or leave it out: --ways")
    if any(name.startswith("wisp") for name in names) and not args.wisp.exists():
        sys.exit(f"no wisp program at {args.wisp}")
    writes = args.writes or (8 if args.quick else 30)
    idle = args.idle or (10.0 if args.quick else 60.0)
    try:
        rows, window = asyncio.run(measure(names, args.files, writes, idle, args.seed, args.wisp))
    except WayFailed as failure:
        print(f"failed: {failure}", file=sys.stderr)
        return 2
    if args.json:
        machine = {"files": args.files, "cpus": os.cpu_count(), "python": sys.version.split()[0]}
        ways = {row.way: asdict(row) for row in rows}
        print(json.dumps({**machine, "idle_seconds": window, "ways": ways}, indent=1))
    else:
        report(rows, window, args.files)
    misses = [miss for row in rows for miss in row.misses()]
    for miss in misses:
        print(f"target missed: {miss}", file=sys.stderr)
    return 1 if misses else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
