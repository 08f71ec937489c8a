"""What the sandbox adds to a command: ``sh -c true`` through ``run_process`` (what
``run_command`` runs it with), confined, against the same unconfined.

    python bench/sandbox_cost.py            # about a minute on 2 cores
    python bench/sandbox_cost.py --quick    # a few seconds
    python bench/sandbox_cost.py --python /path/to/python   # another helper interpreter

Three ways each round, in an order that rotates from round to round:

* unconfined: ``/bin/sh -c true``, as ``--unsafe`` runs it;
* landlock: the helper with Landlock alone (``SandboxSupport(namespace=False)``: narrowing,
  no namespaces), as on a machine that allows no namespace;
* namespace: the helper as this machine probes it (mount, PID, user when not root, network
  when off: Landlock after them).

Figures are medians over the rounds (ms, and the ratio to unconfined); ``min`` the fastest.
The working directory and WISP_HOME are fresh folders under the temp dir.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import msgspec

from wisp.sandbox.plan import confined_argv, probe_uncached
from wisp.sandbox.process import run_process
from wisp.sandbox.writable import WritableSet

COMMAND = ["/bin/sh", "-c", "true"]


async def timed(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    result = await run_process(argv, cwd=cwd, timeout=300)
    seconds = time.perf_counter() - started
    if result.exit_status != 0:
        raise SystemExit(f"{argv[:3]}… failed: {result.stderr}")
    return seconds


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--network-off", action="store_true")
    args = parser.parse_args()
    rounds = args.rounds or (5 if args.quick else 60)
    support = probe_uncached()
    if support.landlock_abi is None:
        raise SystemExit("this kernel has no Landlock")
    with tempfile.TemporaryDirectory() as temp:
        work, home = Path(temp) / "work", Path(temp) / "home"
        work.mkdir()
        home.mkdir()
        writable = WritableSet.build(working_directory=work, home=home, environ={"HOME": temp})
        ways: dict[str, list[str]] = {"unconfined": COMMAND}
        # (getattr: the same script measures a wisp from before the namespace, for the docs.)
        landlock_only = support
        if hasattr(support, "namespace"):
            landlock_only = msgspec.structs.replace(support, namespace=False)
        for name, chosen in (("landlock", landlock_only), ("namespace", support)):
            if name == "namespace" and not getattr(support, "namespace", False):
                continue
            argv, _ = confined_argv(
                COMMAND,
                writable,
                network_off=args.network_off,
                support=chosen,
                python=args.python,
            )
            ways[name] = argv
        times: dict[str, list[float]] = {name: [] for name in ways}
        names = list(ways)
        for name in names:  # warm-up: the page cache, the .pyc files
            await timed(ways[name], work)
        for round_ in range(rounds):
            order = names[round_ % len(names) :] + names[: round_ % len(names)]
            for name in order:
                times[name].append(await timed(ways[name], work))
    base = statistics.median(times["unconfined"])
    print(f"Python {platform.python_version()}, {platform.release()}, {rounds} rounds")
    print(f"{'way':<12} {'median ms':>10} {'min ms':>8} {'x unconfined':>13}")
    for name in names:
        median = statistics.median(times[name])
        print(
            f"{name:<12} {median * 1000:>10.1f} {min(times[name]) * 1000:>8.1f} "
            f"{median / base:>13.1f}"
        )


if __name__ == "__main__":
    asyncio.run(main())
