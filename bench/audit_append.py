"""How fast ``AuditLog.record`` appends through ``FileSink``, against raw ``O_APPEND`` writes.

    python bench/audit_append.py            # about a minute on 2 cores
    python bench/audit_append.py --quick    # a few seconds

Two workloads: a turn's events (prompt, reasoning, tool calls and results of a few hundred bytes
to a few KB, a policy decision and a command's outcome, the reply with its usage; real
registered ``Details``), and the smallest event wisp writes. Each is run with rotation
effectively off and with the default rotation (10 MiB, keep 5). Each round runs three
things on fresh files in a temp dir, in an order that rotates from round to round:

* sink: ``AuditLog.record(details, call=...)`` for every prepared event, through a real ``FileSink``
(stamping, encoding, the flock per line, the rotation check: everything); * raw: the lines a sink
run wrote (read back from its files; later rounds differ from them only in ids and times), replayed
one ``os.write`` each on an ``O_APPEND`` descriptor; * floor: the same lines with only the syscalls
the audit log's lock asks of each (flock, two lseeks, the write, unlock): what any writer that keeps
that lock per line must pay.

The ratio is raw time / sink time, the sink's rate as a share of the raw rate (the target:
>= 0.5, in docs/performance.md, "Audit append rate: `bench/audit_append.py`"), reported as the
median of the per-round ratios and as the ratio of the minimum times. The details are built
before the clock starts (they are the caller's work); the garbage collector is left on, as in
wisp.
"""

from __future__ import annotations

import argparse
import fcntl
import gc
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from wisp.audit import AuditLog, AuditSettings, Details, FileSink
from wisp.audit.kinds import (
    CommandOutcome,
    ModelReasoning,
    PolicyDecision,
    Prompt,
    Response,
    ToolCall,
    ToolResult,
    Usage,
)
from wisp.audit.log_files import log_files

ROTATION_OFF = (1 << 62, 5)
_DEFAULTS = AuditSettings()
ROTATION_DEFAULT = (_DEFAULTS.max_file_bytes, _DEFAULTS.keep_files)  # 10 MiB, keep 5

Workload = list[tuple[Details, str | None]]

WORDS = (  # noqa: SIM905 (a vocabulary reads better as text)
    "the a file line test error return value function module import config audit session model "
    "tool call result output read write path directory python wisp build run check pass fail "
    "list dict string bytes int float None True False self class def async await lock rotate "
    "append flush stream token usage response prompt reply json msgspec struct"
).split()


def _text(rng: random.Random, size: int) -> str:
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
        if rng.random() < 0.08:
            words.append("\n")
    return " ".join(words)[:size]


def turn_mix(count: int, seed: int = 2) -> Workload:
    """A turn's events, repeated: prompt, thinking, two tool calls (one a command), reply."""
    rng = random.Random(seed)
    events: Workload = []
    turn = 0
    while len(events) < count:
        turn += 1
        command = f"grep -rn {rng.choice(WORDS)} wisp/ | head -{rng.randint(5, 50)}"
        stdout = _text(rng, rng.randint(200, 3000))
        contents = _text(rng, rng.randint(300, 4000))
        events += [
            (Prompt(text=_text(rng, rng.randint(40, 400))), None),
            (ModelReasoning(phase="start"), None),
            (
                ModelReasoning(
                    phase="end", text=_text(rng, 500), bytes=500, tokens=120, seconds=1.9
                ),
                None,
            ),
            (ToolCall(tool="run_command", arguments={"command": command}), f"c{turn}a"),
            (
                PolicyDecision(
                    command=command,
                    working_directory="/home/me/src/wisp",
                    verdict="allow",
                    reason="read-only pipeline",
                    sandbox=True,
                    network=False,
                    nested=False,
                ),
                f"c{turn}a",
            ),
            (
                CommandOutcome(
                    command=command,
                    exit_status=0,
                    timed_out=False,
                    truncated=False,
                    stdout=stdout,
                    stderr="",
                    seconds=0.04,
                ),
                f"c{turn}a",
            ),
            (
                ToolResult(tool="run_command", output=stdout, bytes=len(stdout), seconds=0.05),
                f"c{turn}a",
            ),
            (ToolCall(tool="read_file", arguments={"path": "wisp/audit/log.py"}), f"c{turn}b"),
            (
                ToolResult(tool="read_file", output=contents, bytes=len(contents), seconds=0.001),
                f"c{turn}b",
            ),
            (
                Response(
                    text=_text(rng, rng.randint(100, 1200)),
                    condensed=False,
                    seconds=4.2,
                    usage=Usage(input=5210, output=310, cached=4096, reasoning=120),
                ),
                None,
            ),
        ]
    return events[:count]


def smallest(count: int) -> Workload:
    """The smallest event wisp writes: a reasoning start, ``{"phase":"start"}``."""
    event = ModelReasoning(phase="start")
    return [(event, None)] * count


@dataclass
class Case:
    name: str
    workload: Workload
    rotation: tuple[int, int]
    times: dict[str, list[float]] = field(
        default_factory=lambda: {"sink": [], "raw": [], "floor": []}
    )
    lines: list[bytes] = field(default_factory=list)
    rotations: int = 0

    @property
    def line_bytes(self) -> float:
        return sum(map(len, self.lines)) / len(self.lines)


def time_sink(case: Case, folder: Path) -> None:
    """Record the workload through a FileSink; keep the lines it wrote, oldest first."""
    logs = folder / "logs"
    max_file_bytes, keep_files = case.rotation
    sink = FileSink(logs / "audit.jsonl", max_file_bytes=max_file_bytes, keep_files=keep_files)
    log = AuditLog(sink)
    log.turn = 1
    record = log.record
    workload = case.workload
    gc.collect()
    start = time.perf_counter()
    for details, call in workload:
        record(details, call=call)
    case.times["sink"].append(time.perf_counter() - start)
    log.close()
    files = log_files(logs)
    case.rotations = len(files) - 1
    case.lines = [line for path in files for line in path.read_bytes().splitlines(keepends=True)]
    if len(case.lines) != len(workload):
        sys.exit(f"{case.name}: the sink kept {len(case.lines)} of {len(workload)} lines")


def time_raw(case: Case, folder: Path) -> None:
    """The sink's lines again, one os.write each, on an O_APPEND descriptor."""
    fd = os.open(folder / "raw.jsonl", _APPEND, 0o600)
    write = os.write
    lines = case.lines
    gc.collect()
    start = time.perf_counter()
    for line in lines:
        write(fd, line)
    case.times["raw"].append(time.perf_counter() - start)
    os.close(fd)


def time_floor(case: Case, folder: Path) -> None:
    """The sink's lines with only the syscalls the lock asks of each: flock, the two lseeks that
    notice a rotation and the file's size, the write, unlock. No Python writer can beat it."""
    lock_fd = os.open(folder / "audit.lock", _APPEND, 0o600)
    fd = os.open(folder / "floor.jsonl", _APPEND, 0o600)
    flock, lseek, write = fcntl.flock, os.lseek, os.write
    ex, un, end = fcntl.LOCK_EX, fcntl.LOCK_UN, os.SEEK_END
    lines = case.lines
    gc.collect()
    start = time.perf_counter()
    for line in lines:
        flock(lock_fd, ex)
        lseek(lock_fd, 0, end)
        lseek(fd, 0, end)
        write(fd, line)
        flock(lock_fd, un)
    case.times["floor"].append(time.perf_counter() - start)
    os.close(fd)
    os.close(lock_fd)


_APPEND = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
RUNS = {"sink": time_sink, "raw": time_raw, "floor": time_floor}


def run_round(case: Case, root: Path, index: int) -> None:
    """The three runs, each on fresh files, in an order that rotates from round to round."""
    names = list(RUNS)
    shift = index % len(names)
    for name in names[shift:] + names[:shift]:
        folder = Path(tempfile.mkdtemp(dir=root))
        try:
            RUNS[name](case, folder)
        finally:
            shutil.rmtree(folder)


def report(cases: list[Case], rounds: int) -> None:
    print(f"\naudit append: {rounds} interleaved rounds; times are µs per event (median, min)")
    header = (
        f"{'workload':<28} {'events':>7} {'B/line':>6} {'rot':>3} "
        f"{'sink':>11} {'raw':>11} {'floor':>11} "
        f"{'ratio med':>9} {'ratio min':>9} {'floor':>6}  target"
    )
    print(header)
    print("-" * len(header))
    for case in cases:
        sink, raw, floor = (case.times[name] for name in RUNS)
        ratio_med = statistics.median(r / s for r, s in zip(raw, sink, strict=True))
        ceiling = statistics.median(r / f for r, f in zip(raw, floor, strict=True))
        verdict = "met" if ratio_med >= 0.5 else "missed"
        print(
            f"{case.name:<28} {len(case.workload):>7} {case.line_bytes:>6.0f} {case.rotations:>3} "
            f"{_micros(sink, case)} {_micros(raw, case)} {_micros(floor, case)} "
            f"{ratio_med:>9.2f} {min(raw) / min(sink):>9.2f} {ceiling:>6.2f}  >=0.5 {verdict}"
        )
    print()
    print("ratio = raw time / sink time: the sink's rate as a share of raw O_APPEND writes of the")
    print("same lines. med: median of the per-round ratios; min: fastest raw / fastest sink.")
    print("floor = raw time / floor time: the best ratio a writer locking each line can reach.")
    print("rot: rotations in the last sink run (rotation off: 2^62 bytes; on: 10 MiB, keep 5).")


def _micros(times: list[float], case: Case) -> str:
    n = len(case.workload)
    return f"{statistics.median(times) / n * 1e6:>5.2f},{min(times) / n * 1e6:>5.2f}"


def main() -> int:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # progress in order
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run, a few seconds")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 15, quick 5)")
    args = parser.parse_args()
    rounds = args.rounds or (5 if args.quick else 15)
    mix_count, small_count = (5_000, 20_000) if args.quick else (40_000, 150_000)
    mix, small = turn_mix(mix_count), smallest(small_count)
    cases = [
        Case("turn mix, rotation off", mix, ROTATION_OFF),
        Case("turn mix, rotation 10 MiB/5", mix, ROTATION_DEFAULT),
        Case("smallest, rotation off", small, ROTATION_OFF),
        Case("smallest, rotation 10 MiB/5", small, ROTATION_DEFAULT),
    ]
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}")
    root = Path(tempfile.mkdtemp(prefix="wisp-bench-append-"))
    print(f"files under {root}, removed as it goes")
    started = time.perf_counter()
    try:
        for case in cases:  # a first sink run, untimed: the lines raw and floor replay
            folder = Path(tempfile.mkdtemp(dir=root))
            time_sink(case, folder)
            shutil.rmtree(folder)
            case.times["sink"].clear()
        for index in range(rounds):
            for case in cases:
                run_round(case, root, index)
            print(f"  round {index + 1}/{rounds} done", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report(cases, rounds)
    print(f"\ntook {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
