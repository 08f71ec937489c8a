"""bench/ab.py: a bench script's rows read, and run end to end against a baseline commit (no
time is asserted)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

from tests.hang import HANG

BENCH = Path(__file__).resolve().parents[2] / "bench"

CHAT_STARTUP_OUTPUT = """
wisp chat --json startup and throughput, 1 interleaved rounds
measure                                         median       min
----------------------------------------------------------------
spawn to first status (ms)                       445.7     445.7
ratio (startup / python3 -c pass)                38.11
target: first status ≤ 150 ms median: missed
deltas per second (10000 deltas)                 39,978     39978
"""


def load_ab():
    spec = importlib.util.spec_from_file_location("ab", BENCH / "ab.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_row_is_read_as_its_label_and_first_number() -> None:
    rows = load_ab().figures(CHAT_STARTUP_OUTPUT)
    assert rows == {
        "spawn to first status (ms)": 445.7,
        "ratio (startup / python3 -c pass)": 38.11,
        "deltas per second (10000 deltas)": 39978.0,
    }


def test_a_run_against_the_baseline_reports_each_row_on_both_sides() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "ab.py"), "--baseline", "HEAD", "--runs", "1",
         "chat_startup.py", "--quick", "--rounds", "1"],
        capture_output=True, text=True, timeout=HANG, check=True,
    )  # fmt: skip
    assert "A/B over 1 runs a side, alternating; baseline HEAD" in done.stdout
    row = re.search(r"^spawn to first status \(ms\)\s+[\d.]+\s+[\d.]+\s+[\d.]+$", done.stdout, re.M)
    assert row is not None, done.stdout
    worktrees = subprocess.run(
        ["git", "-C", str(BENCH.parent), "worktree", "list"], capture_output=True, text=True
    )
    assert "baseline" not in worktrees.stdout  # the temporary checkout is gone
