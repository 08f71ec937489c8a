"""bench/verification.py run end to end on two rounds: every figure is there and each reply is
checked as the bench says (no time is asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.hang import HANG

BENCH = Path(__file__).resolve().parents[2] / "bench" / "verification.py"


def test_the_bench_reports_each_reply_against_the_cited_baseline() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--rounds", "2"],
        capture_output=True, text=True, timeout=HANG, check=True,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    assert lines[0].endswith("4096 B replies")
    figures = r"verify \d+ µs, cited \d+ µs, ratio [\d.]+"
    for name in ("typical", "dense claims", "no claims"):
        assert any(re.fullmatch(rf"{name}: {figures}", line) for line in lines), done.stdout
    assert "  found: unsupported, claimed but not done: updated app.py" in done.stdout
    assert "  found: none" in done.stdout
