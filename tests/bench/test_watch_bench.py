"""bench/watch.py: its tree, its figures and targets, and a short run end to end on entr (and on
`wisp watch`, where this tree has it). No time is asserted, only that every figure is there."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bench.scripts import load_bench
from tests.hang import HANG

BENCH = Path(__file__).resolve().parents[2] / "bench" / "watch.py"


bench = load_bench("watch")


def figures(way: str, over_entr_ms: float | None, idle_percent: float) -> object:
    return bench.Figures(way, 80.0, 95.0, 60.0, 30, 0, 0.6, idle_percent, over_entr_ms)


def test_the_tree_has_the_files_asked_for_a_hundred_a_folder(tmp_path: Path) -> None:
    made = bench.make_tree(tmp_path, 250)

    assert len(made) == len(set(made)) == 250
    assert all(path.is_file() for path in made)
    assert {path.parent for path in made} == {
        tmp_path / "package_0" / "module_0",
        tmp_path / "package_0" / "module_1",
        tmp_path / "package_0" / "module_2",
    }


def test_a_wisp_way_misses_what_is_over_its_targets_and_entr_has_none() -> None:
    assert figures("wisp", 60.0, 0.99).misses() == []
    assert figures("entr", None, 5.0).misses() == []
    missed = figures("wisp unconfined", 61.0, 1.0).misses()
    assert missed == [
        "wisp unconfined: median +61 ms from entr's (target <= +60)",
        "wisp unconfined: idle 1.00% of a core (target < 1%)",
    ]


def test_p90_lies_between_the_values_around_it() -> None:
    assert bench.percentile([float(value) for value in range(1, 11)], 90) == pytest.approx(9.1)


def test_descendants_are_found_through_every_generation() -> None:
    table = {10: (1, 0), 11: (10, 0), 12: (11, 0), 13: (10, 0), 20: (1, 0)}

    assert sorted(bench.descendants(10, table)) == [11, 12, 13]


def run_bench(*options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH), "--files", "50", "--writes", "2", "--idle", "0.2", *options],
        capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip


@pytest.mark.skipif(shutil.which("entr") is None, reason="entr is not installed (Debian: entr)")
def test_a_short_run_on_entr_reports_each_figure() -> None:
    done = run_bench("--ways", "entr")

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Latency, a write to the command's start (2 writes a way, ")
    latency, idle = (line.split() for line in lines if line.startswith("entr "))
    assert len(latency) == 5  # the way, median, p90, min, extra runs (entr's own: no target)
    assert len(idle) == 3  # the way, CPU seconds, % of a core


def test_a_short_run_on_wisp_watch_reports_each_way() -> None:
    wisp = Path(sys.executable).with_name("wisp")
    helped = subprocess.run([wisp, "watch", "--help"], capture_output=True, text=True)
    if not helped.stdout.startswith("usage: wisp watch"):
        pytest.skip("this tree's wisp has no `watch` command")
    ways = "entr,wisp,wisp unconfined" if shutil.which("entr") else "wisp,wisp unconfined"

    done = run_bench("--ways", ways, "--json")

    assert done.returncode in (0, 1), done.stderr  # 1: a target missed, on a busy machine
    measured = json.loads(done.stdout)["ways"]
    assert list(measured) == ways.split(",")
    assert all(row["writes"] == 2 and row["median_ms"] > 0 for row in measured.values())
