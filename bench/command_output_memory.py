"""The peak memory of a wisp run whose command prints a lot of short lines (docs/performance.md,
"Memory of a command that prints a lot (`bench/command_output_memory.py`)").

    python bench/command_output_memory.py              # 200 MB of "y\\n", 3 rounds
    python bench/command_output_memory.py --megabytes 50 --rounds 1

Each round runs the real console script, `wisp --yes -m script:FILE go`, in a fresh WISP_HOME
outside /tmp; the script's model asks `run_command` for `yes | head -c N` (N bytes of two-byte
lines: the most lines per byte), then replies. A third case types the same command as
`!yes | head -c N` into `wisp chat --plain` (stdin a file). wisp keeps 16 MiB of each stream,
so its memory should be bounded by what it keeps, not by what the command printed. The
baseline is the same run with `true` as the command. The peak is the resident set of wisp and
everything it waited for (`os.wait4`'s `ru_maxrss`: the largest single process, here wisp).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

WISP = Path(sys.executable).parent / "wisp"
TARGET_MB = 150


def peak_mb(command: str, folder: Path, *, typed: bool = False) -> float:
    """One run's peak resident set, in MB (10^6 bytes): the model's ``run_command`` through
    ``wisp --yes``, or (``typed``) the person's ``!command`` in ``wisp chat --plain``."""
    home = folder / "home"
    shutil.rmtree(home, ignore_errors=True)
    script = folder / "script.json"
    call = {"name": "run_command", "arguments": {"command": command}}
    script.write_text(json.dumps({"responses": [{"tool_calls": [call]}, {"text": "done"}]}))
    env = {**os.environ, "WISP_HOME": str(home)}
    model = f"script:{script}"
    argv = ["chat", "--plain", "-m", model] if typed else ["--yes", "-m", model, "go"]
    lines = folder / "typed.txt"
    lines.write_text(f"!{command}\n/quit\n")
    with lines.open("rb") as stdin:
        process = subprocess.Popen(
            [str(WISP), *argv], env=env, cwd=folder, stdin=stdin,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"wisp exited {process.returncode} for {command!r}")
    return usage.ru_maxrss * 1024 / 1e6  # Linux gives KiB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=200, help="what the command prints")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each case")
    args = parser.parse_args()
    big = f"yes | head -c {args.megabytes * 1_000_000}"
    # Outside /tmp: a WISP_HOME under it narrows the sandbox's writable roots (docs/sandbox.md).
    with tempfile.TemporaryDirectory(dir=Path.home()) as name:
        folder = Path(name)
        cases = {
            "model: `true`": ("true", False),
            f"model: `{big}`": (big, False),
            f"typed: `!{big}`": (big, True),
        }
        runs: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.rounds):
            for name, (command, typed) in cases.items():
                runs[name].append(peak_mb(command, folder, typed=typed))
    print(f"| run | peak RSS, MB (median of {args.rounds}) | max | target < {TARGET_MB} |")
    print("|---|---|---|---|")
    for name, peaks in runs.items():
        met = "met" if max(peaks) < TARGET_MB else "missed"
        cell = name.replace("|", "\\|")  # a pipe inside a Markdown table cell
        print(f"| {cell} | {statistics.median(peaks):.0f} | {max(peaks):.0f} | {met} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
