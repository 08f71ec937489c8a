"""How fast ``AuditLog.record`` appends through ``FileSink``, against raw ``O_APPEND`` writes.

    python bench/audit_append.py            # the full run (about a minute on 2 cores)
    python bench/audit_append.py --quick    # a few seconds

Each round, for each workload, two runs on fresh files in a temp dir, in alternating order:

* sink: ``AuditLog.record(details, call=...)`` for every prepared event, through a real
  ``FileSink`` (the flock per line, rotation check, encoding, stamping: everything);
* raw: the very lines the sink wrote (read back from its files), replayed one ``os.write``
  each on an ``O_APPEND`` descriptor: the floor for the same bytes and the same writes.

The ratio is raw time / sink time, i.e. the sink's rate as a share of the raw rate (issue 2's
target: >= 0.5). It is reported as the median of the per-round ratios, and as the ratio of the
two minimum times. The details are built before the clock starts (they are the caller's work).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
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
from wisp.audit.reader import log_files

ROTATION_OFF = (1 << 62, 5)
_DEFAULTS = AuditSettings()
ROTATION_DEFAULT = (_DEFAULTS.max_file_bytes, _DEFAULTS.keep_files)  # 10 MiB, keep 5

Workload = list[tuple[Details, str | None]]

WORDS = (
    "the a file line test error return value function module import config audit session "
    "model tool call result output read write path directory python wisp build run check "
    "pass fail list dict string bytes int float None True False self class def async await "
    "lock rotate append flush stream token usage response prompt reply json msgspec struct"
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
    sink_times: list[float] = field(default_factory=list)
    raw_times: list[float] = field(default_factory=list)
    line_bytes: float = 0.0
    rotations: int = 0


def time_sink(case: Case, folder: Path) -> list[bytes]:
    """Record the workload through a FileSink; return the lines it wrote, oldest first."""
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
    case.sink_times.append(time.perf_counter() - start)
    log.close()
    files = log_files(logs)
    case.rotations = len(files) - 1
    lines = [line for path in files for line in path.read_bytes().splitlines(keepends=True)]
    if len(lines) != len(workload):
        sys.exit(f"{case.name}: the sink kept {len(lines)} of {len(workload)} lines (rotated out?)")
    return lines


def time_raw(case: Case, folder: Path, lines: list[bytes]) -> None:
    """Write the same lines, one os.write each, on an O_APPEND descriptor."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
    fd = os.open(folder / "raw.jsonl", flags, 0o600)
    write = os.write
    gc.collect()
    start = time.perf_counter()
    for line in lines:
        write(fd, line)
    case.raw_times.append(time.perf_counter() - start)
    os.close(fd)


def fresh(root: Path, run: Callable[[Path], object]) -> object:
    folder = Path(tempfile.mkdtemp(dir=root))
    try:
        return run(folder)
    finally:
        shutil.rmtree(folder)


def run_round(case: Case, root: Path, index: int, lines: list[bytes] | None) -> list[bytes]:
    # Alternate which goes first, so neither always gets the warmer cache.
    if index % 2 == 0 or lines is None:
        lines = fresh(root, lambda folder: time_sink(case, folder))  # type: ignore[assignment]
        fresh(root, lambda folder: time_raw(case, folder, lines))
    else:
        fresh(root, lambda folder: time_raw(case, folder, lines))
        lines = fresh(root, lambda folder: time_sink(case, folder))  # type: ignore[assignment]
    assert lines is not None
    case.line_bytes = sum(map(len, lines)) / len(lines)
    return lines


def report(cases: list[Case], rounds: int) -> None:
    print()
    print(f"audit append: {rounds} interleaved rounds; times are per event (µs)")
    header = (
        f"{'workload':<30} {'events':>7} {'B/line':>7} {'rot':>4} "
        f"{'sink med':>9} {'raw med':>8} {'sink min':>9} {'raw min':>8} "
        f"{'ratio med':>9} {'ratio min':>9}  target"
    )
    print(header)
    print("-" * len(header))
    for case in cases:
        n = len(case.workload)
        ratios = [raw / sink for raw, sink in zip(case.raw_times, case.sink_times, strict=True)]
        ratio_med = statistics.median(ratios)
        ratio_min = min(case.raw_times) / min(case.sink_times)
        verdict = "met" if ratio_med >= 0.5 else "missed"
        print(
            f"{case.name:<30} {n:>7} {case.line_bytes:>7.0f} {case.rotations:>4} "
            f"{statistics.median(case.sink_times) / n * 1e6:>9.2f} "
            f"{statistics.median(case.raw_times) / n * 1e6:>8.2f} "
            f"{min(case.sink_times) / n * 1e6:>9.2f} {min(case.raw_times) / n * 1e6:>8.2f} "
            f"{ratio_med:>9.2f} {ratio_min:>9.2f}  >=0.5 {verdict}"
        )
    print()
    print("ratio = raw time / sink time (the sink's rate as a share of raw O_APPEND writes);")
    print("med: median over rounds of the per-round ratio; min: fastest raw / fastest sink.")
    print("rot: rotations in a sink run (rotation off: maxFileBytes 2^62; on: 10 MiB, keep 5).")


def main() -> int:
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
    print(f"files under {root} (filesystem of the temp dir), removed as it goes")
    started = time.perf_counter()
    lines: dict[str, list[bytes] | None] = {case.name: None for case in cases}
    try:
        for index in range(rounds):
            for case in cases:
                lines[case.name] = run_round(case, root, index, lines[case.name])
            print(f"  round {index + 1}/{rounds} done", file=sys.stderr)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report(cases, rounds)
    print(f"\ntook {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
