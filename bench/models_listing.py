"""How soon `wisp models` lists `local` and a line per runtime when no runtime answers.

    python bench/models_listing.py            # 11 interleaved rounds, about half a minute
    python bench/models_listing.py --quick    # 3 rounds

Two cases, each the wall time of the real console script from spawn to exit, output to pipes:

- refused: every runtime's baseURL is a loopback port where nothing listens (the connection is
  refused at once). Target: under 2 s (the test's bound until it moved here).
- silent: Ollama's baseURL accepts the connection and never answers; the listing gives up at
  its limit (WHOLE_SECONDS in wisp/models/runtime_listing.py), the other runtimes are refused.

Baseline, in the same rounds: `wisp logs --last 1` on an empty home, wisp's start-up and exit
with nothing to do. Medians and minimums over rounds, the order alternating from round to round;
ratio = the case / the baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from wisp.models.runtime_listing import WHOLE_SECONDS

WISP = Path(sys.executable).parent / "wisp"
SCHEMES = ("ollama", "llamacpp", "lmstudio", "openai")
TARGET_SECONDS = 2.0


def refused_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def silent_server() -> tuple[str, socket.socket]:
    """A loopback server that accepts and never answers; close its socket to stop it."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            held.append(connection)  # kept open, never answered

    threading.Thread(target=accept, daemon=True).start()
    return f"http://127.0.0.1:{server.getsockname()[1]}", server


def home_with(folder: Path, name: str, urls: dict[str, str]) -> dict[str, str]:
    home = folder / name
    home.mkdir()
    (home / "config.json").write_text(json.dumps({s: {"baseURL": u} for s, u in urls.items()}))
    env = {k: v for k, v in os.environ.items() if k not in ("WISP_LOG",)}
    env["WISP_HOME"] = str(home)
    return env


def timed(env: dict[str, str], *args: str) -> float:
    started = time.perf_counter()
    subprocess.run([str(WISP), *args], env=env, capture_output=True, check=True)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds")
    parser.add_argument("--rounds", type=int, help="rounds (default 11, quick 3)")
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 11)
    import wisp

    package = Path(wisp.__file__).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)
    silent_url, server = silent_server()
    try:
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            refused = home_with(folder, "refused", {s: refused_url() for s in SCHEMES})
            silent = home_with(
                folder, "silent", {**{s: refused_url() for s in SCHEMES}, "ollama": silent_url}
            )
            bare = home_with(folder, "bare", {})
            cases = {
                "wisp models, every runtime refused": lambda: timed(refused, "models"),
                "wisp models, Ollama silent": lambda: timed(silent, "models"),
                "wisp logs --last 1 (baseline)": lambda: timed(bare, "logs", "--last", "1"),
            }
            times: dict[str, list[float]] = {case: [] for case in cases}
            for run in cases.values():
                run()  # warm the file cache, untimed
            for index in range(rounds):
                order = list(cases) if index % 2 == 0 else list(reversed(cases))
                for case in order:
                    times[case].append(cases[case]())
                print(f"  round {index + 1}/{rounds} done", file=sys.stderr)
    finally:
        server.close()
    base = times["wisp logs --last 1 (baseline)"]
    print(f"\nwisp models with no runtime answering, {rounds} interleaved rounds (seconds)")
    print(f"{'case':<40}{'median':>9}{'min':>9}{'ratio':>8}")
    print("-" * 66)
    for case, seconds in times.items():
        ratio = statistics.median(s / b for s, b in zip(seconds, base, strict=True))
        print(f"{case:<40}{statistics.median(seconds):>9.3f}{min(seconds):>9.3f}{ratio:>8.2f}")
    refused_median = statistics.median(times["wisp models, every runtime refused"])
    verdict = "met" if refused_median < TARGET_SECONDS else "missed"
    print(f"target: every runtime refused, under {TARGET_SECONDS:g} s median: {verdict}")
    print(f"the silent case ends at the listing's limit, {WHOLE_SECONDS:g} s, plus start-up")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
