"""bench/classifier.py run end to end: it trains, measures the held-out commands the rules do
not know, and the trained label beats the flat moderate there (no time is asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hang import HANG

BENCH = Path(__file__).resolve().parents[2] / "bench" / "classifier.py"

pytest.importorskip("sklearn", reason="the bench trains: pip install 'wisp[classifier]'")


def test_the_bench_reports_accuracy_per_level_against_flat_moderate() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--rounds", "1", "--json"],
        capture_output=True, text=True, timeout=HANG, check=True,
    )  # fmt: skip
    result = json.loads(done.stdout)
    assert set(result["label"]) == {"safe", "moderate", "dangerous", "all"}
    assert result["label"]["all"] > result["flatModerate"]["all"]
    assert result["flatModerate"]["moderate"] == 1.0
    assert result["gate"]["safe"] == 0.0  # mayLower off never lowers
    assert set(result["microseconds"]) == {"rules", "rulesAndClassifier", "added"}
