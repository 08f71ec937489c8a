"""How long the policy takes over a line of thousands of parts, and how soon an interrupt ends it
(docs/policy.md, "The approval gate"; docs/turn.md, "Stopping a turn").

    python bench/long_line_gate.py            # 5 interleaved rounds
    python bench/long_line_gate.py --quick    # 2 rounds

Each case runs `wisp chat --json --yes -m script:FILE` for real, in a fresh WISP_HOME; the
script model asks `run_command` for one line, then replies. Measured: the wall time from writing
the `message` line to reading the turn's `end` line, against the same turn with the line `true`
(the baseline, in the same round), and the bytes the turn left in the audit log (all its
files, rotated ones too: 60 MB at most by default). The lines, each under the 32 KiB limit:

- `true;` 6,500 times: one part repeated (safe);
- `:;` 16,000 times: the most parts the limit allows, one repeated (moderate: approved by --yes);
- `echo 0;echo 1;…`, about 3,800 distinct safe parts;
- `true 0;true 1;…`, about 3,400 distinct moderate parts (each approved by --yes).

Interrupt: the `:;` line again, with an `interrupt` written as soon as the turn's first event
line is read; the time from writing it to the turn's `end` line, and the turn's outcome.

Medians (and minimums) over rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WISP = Path(sys.executable).parent / "wisp"
LIMIT = 32 * 1024


def filled(part: str) -> str:
    """``part`` repeated, ``;``-joined, as long as fits under the limit."""
    return ";".join([part] * ((LIMIT - 1) // (len(part) + 1)))


def numbered(program: str) -> str:
    """``program 0;program 1;…`` as long as fits under the limit."""
    parts: list[str] = []
    size = 0
    while size + len(f"{program} {len(parts)};") < LIMIT:
        parts.append(f"{program} {len(parts)}")
        size += len(parts[-1]) + 1
    return ";".join(parts)


CASES = {
    "`true` (baseline)": "true",
    "`true;` × 6,500": filled("true"),
    "`:;` × 16,000": filled(":"),
    "distinct safe parts": numbered("echo"),
    "distinct moderate parts": numbered("true"),
}


def script(folder: Path, line: str) -> Path:
    path = folder / f"script-{time.monotonic_ns()}.json"
    call = {"name": "run_command", "arguments": {"command": line}}
    path.write_text(json.dumps({"responses": [{"tool_calls": [call]}, {"text": "done"}]}))
    return path


def start(folder: Path, line: str, home: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "WISP_HOME": str(home)}
    return subprocess.Popen(
        [str(WISP), "chat", "--json", "--yes", "-m", f"script:{script(folder, line)}"],
        cwd=folder, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip


def send(process: subprocess.Popen[bytes], line: dict) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(line).encode() + b"\n")
    process.stdin.flush()


def read_until(process: subprocess.Popen[bytes], kind: str, phase: str | None = None) -> dict:
    assert process.stdout is not None
    while raw := process.stdout.readline():
        line = json.loads(raw)
        if line.get("type") == kind and (phase is None or line.get("phase") == phase):
            return line
    raise RuntimeError(f"wisp ended before a {kind} line")


def end(process: subprocess.Popen[bytes]) -> None:
    send(process, {"type": "message", "text": "/quit"})
    process.communicate()


def audit_bytes(home: Path) -> int:
    return sum(path.stat().st_size for path in (home / "logs").glob("audit*.jsonl"))


def turn_seconds(folder: Path, line: str) -> tuple[float, int]:
    """The turn's wall time, and the audit log's size after it."""
    home = Path(tempfile.mkdtemp(dir=folder, prefix="home-"))
    process = start(folder, line, home)
    read_until(process, "status")
    started = time.perf_counter()
    send(process, {"type": "message", "text": "go"})
    turn = read_until(process, "turn", "end")
    seconds = time.perf_counter() - started
    end(process)
    assert turn["outcome"] == "ok", turn
    return seconds, audit_bytes(home)


def interrupt_seconds(folder: Path, line: str) -> tuple[float, str]:
    process = start(folder, line, Path(tempfile.mkdtemp(dir=folder, prefix="home-")))
    read_until(process, "status")
    send(process, {"type": "message", "text": "go"})
    read_until(process, "event")
    started = time.perf_counter()
    send(process, {"type": "interrupt"})
    turn = read_until(process, "turn", "end")
    seconds = time.perf_counter() - started
    end(process)
    return seconds, turn["outcome"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 rounds instead of 5")
    rounds = 2 if parser.parse_args().quick else 5
    times: dict[str, list[float]] = {name: [] for name in CASES}
    sizes: dict[str, int] = {}
    stops: list[float] = []
    outcomes: set[str] = set()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        for round_ in range(rounds):
            names = list(CASES) if round_ % 2 == 0 else list(reversed(CASES))
            for name in names:
                seconds, sizes[name] = turn_seconds(folder, CASES[name])
                times[name].append(seconds)
            seconds, outcome = interrupt_seconds(folder, CASES["`:;` × 16,000"])
            stops.append(seconds)
            outcomes.add(outcome)
    baseline = statistics.median(times["`true` (baseline)"])
    print(f"{'line':26} {'bytes':>7} {'median s':>9} {'min s':>7} {'ratio':>6} {'audit MB':>9}")
    for name, line in CASES.items():
        median = statistics.median(times[name])
        ratio = median / baseline
        print(
            f"{name:26} {len(line):7,} {median:9.3f} {min(times[name]):7.3f} {ratio:6.1f} "
            f"{sizes[name] / 1e6:9.2f}"
        )
    print(
        f"interrupt during `:;` × 16,000: {statistics.median(stops) * 1000:.0f} ms median "
        f"(min {min(stops) * 1000:.0f} ms), outcome {', '.join(sorted(outcomes))}"
    )


if __name__ == "__main__":
    sys.exit(main())
