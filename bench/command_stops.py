"""How soon a command ends when its time limit passes or it is stopped (docs/sandbox.md, "Running a
command").

    python bench/command_stops.py            # 11 interleaved rounds, about two minutes
    python bench/command_stops.py --quick    # 3 rounds

Each case runs a shell line through wisp's own `run_process` (its own process group, the real
limit, grace and stops) and is set against a baseline in the same round: `sleep S` run the same
way with no limit, where S is the moment the case should end at (the limit, the
stop, the stop plus the 2 s grace, the 1 s bound on draining). Spawning, waiting and reaping are
in both sides, so the ratio case / baseline is 1.0 for a command that ends exactly when its
limit says; what is over it is the cost of ending it (signals, the sweep of the group, the pipes).

The cases are the ones the tests once bounded in wall time (tests/sandbox/test_process.py):

- timeout: `sleep 100` with a 1 s limit: SIGTERM at 1 s.
- timeout, a background child: `sleep 100 & sleep 100`, 1 s: the whole group ends.
- timeout, TERM ignored: `trap '' TERM; …`, 0.5 s: SIGKILL after the 2 s grace, at 2.5 s.
- stop: `sleep 100` stopped at 0.3 s: SIGTERM.
- second stop: TERM ignored, stopped at 0.3 s and again at 0.6 s: SIGKILL at once.
- stop, TERM ignored: stopped at 0.3 s: SIGKILL after the grace, at 2.3 s.
- pipes held: `(setsid sleep 5 &); echo done`: draining stops after 1 s.

Medians and minimums over rounds; each round runs every case and its baseline, in an order
that alternates from round to round.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from wisp.sandbox.process import DRAIN_SECONDS, TERM_GRACE, run_process

IGNORE_TERM = "trap '' TERM; "


@dataclass(frozen=True)
class Case:
    name: str
    line: str
    ends_at: float
    """When the command should end: the baseline sleeps this long."""
    timeout: float | None = None
    stop_at: float | None = None
    kill_at: float | None = None


CASES = [
    Case("timeout", "sleep 100", 1.0, timeout=1.0),
    Case("timeout, a background child", "sleep 100 & sleep 100", 1.0, timeout=1.0),
    Case(
        "timeout, TERM ignored",
        IGNORE_TERM + "sleep 100 & sleep 100",
        0.5 + TERM_GRACE,
        timeout=0.5,
    ),
    Case("stop", "sleep 100", 0.3, stop_at=0.3),
    Case("second stop", IGNORE_TERM + "sleep 100", 0.6, stop_at=0.3, kill_at=0.6),
    Case("stop, TERM ignored", IGNORE_TERM + "sleep 100", 0.3 + TERM_GRACE, stop_at=0.3),
    Case("pipes held by a child", "(setsid sleep 5 &) ; echo done", DRAIN_SECONDS),
]


async def timed(case: Case, folder: Path) -> float:
    loop = asyncio.get_running_loop()
    stop, kill_now = asyncio.Event(), asyncio.Event()
    started = time.perf_counter()
    if case.stop_at is not None:
        loop.call_later(case.stop_at, stop.set)
    if case.kill_at is not None:
        loop.call_later(case.kill_at, kill_now.set)
    await run_process(
        ["/bin/sh", "-c", case.line], cwd=folder, timeout=case.timeout, stop=stop,
        kill_now=kill_now,
    )  # fmt: skip
    return time.perf_counter() - started


async def baseline(seconds: float, folder: Path) -> float:
    started = time.perf_counter()
    await run_process(["/bin/sh", "-c", f"sleep {seconds}"], cwd=folder, timeout=None)
    return time.perf_counter() - started


async def measure(
    rounds: int, folder: Path, say: Callable[[str], None]
) -> dict[str, tuple[list[float], list[float]]]:
    """Each case's times and its baseline's, by name."""
    results: dict[str, tuple[list[float], list[float]]] = {case.name: ([], []) for case in CASES}
    for index in range(rounds):
        for case in CASES:
            took, base = results[case.name]
            if index % 2 == 0:
                took.append(await timed(case, folder))
                base.append(await baseline(case.ends_at, folder))
            else:
                base.append(await baseline(case.ends_at, folder))
                took.append(await timed(case, folder))
        say(f"  round {index + 1}/{rounds} done")
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds")
    parser.add_argument("--rounds", type=int, help="rounds (default 11, quick 3)")
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 11)
    with tempfile.TemporaryDirectory() as folder:
        results = asyncio.run(
            measure(rounds, Path(folder), lambda text: print(text, file=sys.stderr))
        )
    print(f"\nHow soon a command ends, {rounds} interleaved rounds (seconds)")
    header = (
        f"{'case':<30}{'ends at':>9}{'median':>9}{'min':>9}{'sleep':>9}{'ratio':>8}{'over ms':>9}"
    )
    print(header)
    print("-" * len(header))
    for case in CASES:
        took, base = results[case.name]
        ratio = statistics.median(t / b for t, b in zip(took, base, strict=True))
        over = statistics.median(t - b for t, b in zip(took, base, strict=True)) * 1000
        print(
            f"{case.name:<30}{case.ends_at:>9.2f}{statistics.median(took):>9.3f}"
            f"{min(took):>9.3f}{statistics.median(base):>9.3f}{ratio:>8.2f}{over:>9.1f}"
        )
    print("ratio = the case / `sleep` for as long as it should take; over = their difference")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
