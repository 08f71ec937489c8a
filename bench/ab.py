"""Interleaved A/B: one bench script run against a baseline commit and the working tree in turn.

    python bench/ab.py --baseline issue25-base --runs 6 chat_startup.py --quick
    python bench/ab.py --baseline HEAD~3 --runs 6 tui.py --only i --rounds 3

The baseline commit is checked out into a temporary git worktree; each run puts one tree first
on PYTHONPATH (the installed `wisp` and `wisp-tui` scripts honour it, and so does every wisp
they start), then runs this tree's copy of the bench script, so both sides are measured by the
same code and only the code under test differs. Runs alternate A B, B A, A B, … so that a
machine growing busier or quieter weighs on both sides alike.

Every row the script prints as a label followed by numbers (`spawn to first status (ms)  254.1
240.3`) is read; its first number is that run's figure. The report gives each row's median over
the runs on each side and the ratio working tree / baseline: 1.05 is 5% more (slower, for a
time; faster, for a rate).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
TREE = BENCH.parent
ROW = re.compile(r"^(?P<label>\S.*?\S)\s{2,}(?P<first>-?[\d,]+(?:\.\d+)?)(?:\s|$)")


def figures(output: str) -> dict[str, float]:
    """Each table row's label and first number, as the bench script printed them."""
    rows: dict[str, float] = {}
    for line in output.splitlines():
        match = ROW.match(line.strip())
        if match and not match["label"].startswith(("-", "round")):
            rows.setdefault(match["label"], float(match["first"].replace(",", "")))
    return rows


def run_once(tree: Path, script: list[str]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, str(BENCH / script[0]), *script[1:]],
        env=env, cwd=tree, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return figures(done.stdout)


def checkout(revision: str, into: Path) -> None:
    subprocess.run(
        ["git", "-C", str(TREE), "worktree", "add", "--detach", "-q", str(into), revision],
        check=True,
    )


def report(sides: dict[str, list[dict[str, float]]], revision: str) -> None:
    baseline, working = sides["baseline"], sides["working tree"]
    labels = [label for label in working[0] if all(label in run for run in baseline + working)]
    print(f"\nA/B over {len(working)} runs a side, alternating; baseline {revision}")
    print(f"{'row':<48}{'baseline':>11}{'working':>11}{'ratio':>8}")
    print("-" * 78)
    for label in labels:
        a = statistics.median(run[label] for run in baseline)
        b = statistics.median(run[label] for run in working)
        ratio = f"{b / a:>8.3f}" if a else f"{'-':>8}"
        print(f"{label[:47]:<48}{a:>11.2f}{b:>11.2f}{ratio}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="the commit to compare against")
    parser.add_argument("--runs", type=int, default=6, help="runs of the script a side")
    parser.add_argument("script", nargs=argparse.REMAINDER, help="bench script and its options")
    args = parser.parse_args()
    if not args.script:
        parser.error("name a bench script, e.g. chat_startup.py --quick")
    sides: dict[str, list[dict[str, float]]] = {"baseline": [], "working tree": []}
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder) / "baseline"
        checkout(args.baseline, base)
        try:
            for index in range(args.runs):
                order = [("baseline", base), ("working tree", TREE)]
                for side, tree in order if index % 2 == 0 else order[::-1]:
                    sides[side].append(run_once(tree, args.script))
                print(f"  run {index + 1}/{args.runs} done", file=sys.stderr)
        finally:
            subprocess.run(
                ["git", "-C", str(TREE), "worktree", "remove", "--force", str(base)], check=False
            )
    report(sides, args.baseline)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
