"""How fast `wisp chat --json` is ready, puts deltas through the pipe, and stops a turn.

    python bench/chat_startup.py            # 21 interleaved rounds
    python bench/chat_startup.py --quick    # 5 rounds

Startup: the wall time from spawning `wisp chat --json -m script:FILE` to reading its first
`status` line (the session is ready), against spawning `python3 -c pass` in the same rounds.
Before timing, wisp's modules are compiled to bytecode (`compileall`), as installing a wheel
does: an editable install under PYTHONDONTWRITEBYTECODE=1 would otherwise compile about sixty
modules from source on every start, which is not what a user's wisp pays.

Throughput: a script: reply of many 4-character chunks with no pause, streamed as `delta` lines
through the real pipe and read by this process; deltas per second from the first delta to the
turn's end line.

Interrupt: in a session streaming a slow script: reply (a 4-character delta every 50 ms), the
wall time from writing an `interrupt` line to reading the turn's end line, against the round
trip of a `complete` line to its `completions` in the same session (a line wisp answers at once).

Medians (and minimums) over rounds; the rounds interleave the measurements.
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
TARGET_MS = 150


def first_status_seconds(env: dict[str, str], script: Path) -> float:
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(WISP), "chat", "--json", "-m", f"script:{script}"],
        env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert process.stdout is not None and process.stdin is not None
    for line in process.stdout:
        if line.startswith(b'{"type":"status"'):
            break
    elapsed = time.perf_counter() - started
    process.stdin.close()
    process.wait()
    return elapsed


def baseline_seconds() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def deltas_per_second(env: dict[str, str], script: Path) -> tuple[float, int]:
    process = subprocess.Popen(
        [str(WISP), "chat", "--json", "-m", f"script:{script}"],
        env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert process.stdout is not None and process.stdin is not None
    process.stdin.write(b'{"type":"message","text":"go"}\n')
    process.stdin.flush()
    first = None
    count = 0
    for line in process.stdout:
        if line.startswith(b'{"type":"delta"'):
            count += 1
            if first is None:
                first = time.perf_counter()
        elif line.startswith(b'{"type":"turn","phase":"end"'):
            break
    elapsed = time.perf_counter() - (first or time.perf_counter())
    process.stdin.close()
    process.wait()
    return count / elapsed if elapsed else 0.0, count


def interrupt_seconds(env: dict[str, str], script: Path) -> tuple[float, float]:
    """(interrupt line to the turn's end line, complete line to its completions) in one session."""
    process = subprocess.Popen(
        [str(WISP), "chat", "--json", "-m", f"script:{script}"],
        env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert process.stdout is not None and process.stdin is not None

    def write(line: bytes) -> None:
        process.stdin.write(line + b"\n")  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]

    def read_until(prefix: bytes) -> None:
        for line in process.stdout:  # type: ignore[union-attr]
            if line.startswith(prefix):
                return
        raise RuntimeError(f"wisp ended before a line starting {prefix!r}")

    read_until(b'{"type":"status"')
    started = time.perf_counter()
    write(b'{"type":"complete","id":"k","text":"/mo","cursor":3}')
    read_until(b'{"type":"completions"')
    round_trip = time.perf_counter() - started
    write(b'{"type":"message","text":"go"}')
    read_until(b'{"type":"delta"')
    started = time.perf_counter()
    write(b'{"type":"interrupt"}')
    read_until(b'{"type":"turn","phase":"end"')
    stopped = time.perf_counter() - started
    process.stdin.close()
    process.wait()
    return stopped, round_trip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds and a shorter reply")
    parser.add_argument("--rounds", type=int, help="rounds (default 21, quick 5)")
    args = parser.parse_args()
    rounds = args.rounds or (5 if args.quick else 21)
    characters = 40_000 if args.quick else 200_000
    import wisp

    package = Path(wisp.__file__).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder) / "home"
        env = {**os.environ, "WISP_HOME": str(home)}
        env.pop("WISP_LOG", None)
        empty = Path(folder) / "empty.json"
        empty.write_text(json.dumps({"responses": []}))
        long = Path(folder) / "long.json"
        # No stretch repeats itself (wisp cuts a reply that does), and the cap lets it through.
        words = " ".join(f"w{n}" for n in range(characters))[:characters]
        long.write_text(json.dumps({"responses": [{"text": words}]}))
        home.mkdir()
        (home / "config.json").write_text(json.dumps({"agent": {"maxReplyTokens": 1_000_000}}))
        slow = Path(folder) / "slow.json"
        slow.write_text(json.dumps({"responses": [{"text": words[:2600], "delay_ms": 50}]}))
        starts, bases, rates, stops, trips = [], [], [], [], []
        count = 0
        first_status_seconds(env, empty)  # warm the file cache once, untimed
        for index in range(rounds):
            order = [0, 1, 2, 3] if index % 2 == 0 else [3, 2, 1, 0]
            for which in order:
                if which == 0:
                    starts.append(first_status_seconds(env, empty))
                elif which == 1:
                    bases.append(baseline_seconds())
                elif which == 2:
                    rate, count = deltas_per_second(env, long)
                    rates.append(rate)
                else:
                    stop, trip = interrupt_seconds(env, slow)
                    stops.append(stop)
                    trips.append(trip)
            print(f"  round {index + 1}/{rounds} done", file=sys.stderr)
    start_ms, base_ms = statistics.median(starts) * 1000, statistics.median(bases) * 1000
    ratios = [s / b for s, b in zip(starts, bases, strict=True)]
    verdict = "met" if start_ms <= TARGET_MS else "missed"
    print(f"\nwisp chat --json startup and throughput, {rounds} interleaved rounds")
    print(f"{'measure':<44}{'median':>10}{'min':>10}")
    print("-" * 64)
    print(f"{'spawn to first status (ms)':<44}{start_ms:>10.1f}{min(starts) * 1000:>10.1f}")
    print(f"{'python3 -c pass (ms)':<44}{base_ms:>10.1f}{min(bases) * 1000:>10.1f}")
    print(f"{'ratio (startup / python3 -c pass)':<44}{statistics.median(ratios):>10.2f}")
    print(f"target: first status ≤ {TARGET_MS} ms median: {verdict}")
    print(f"{'deltas per second (' + str(count) + ' deltas)':<44}{statistics.median(rates):>10.0f}"
          f"{min(rates):>10.0f}")  # fmt: skip
    stop_ms, trip_ms = statistics.median(stops) * 1000, statistics.median(trips) * 1000
    stop_ratios = [s / t for s, t in zip(stops, trips, strict=True)]
    print(f"{'interrupt to the turn end line (ms)':<44}{stop_ms:>10.1f}{min(stops) * 1000:>10.1f}")
    print(f"{'complete to completions (ms)':<44}{trip_ms:>10.1f}{min(trips) * 1000:>10.1f}")
    print(f"{'ratio (interrupt / complete round trip)':<44}{statistics.median(stop_ratios):>10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
