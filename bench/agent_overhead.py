"""The agent's own cost per tool call: a turn of ``current_date`` calls through a real
``Conversation`` with a ``script:`` model, against the bare tool call.

    python bench/agent_overhead.py            # under a minute on 2 cores
    python bench/agent_overhead.py --quick    # a few seconds
    python bench/agent_overhead.py --profile  # also: where a turn's time goes (cProfile)

A turn of N calls is a ``script:`` file of N responses that each call ``current_date`` once
(no text, ``delay_ms`` 0), then a final text reply: N + 1 requests. Each turn runs on a fresh
``Conversation`` (a new store holding the instructions, a new recorder, the built-in tools of
an empty config), built before the clock starts, so every timed turn is a conversation's first
and the store never grows from one to the next. Each workload is run twice:

* file: ``AuditLog`` over a real ``FileSink`` in a temp ``WISP_HOME`` (default rotation,
  10 MiB, keep 5), one sink for the whole run as in a session: every event is really written;
* null: the same over a ``NullSink``, so the difference is what the audit file costs.

The baseline is the bare call, ``await CurrentDateTool().run({}, context)``, a batch of them
per round. Each round runs the bare batch and every turn once, in an order that rotates from
round to round. Per round, for a turn of N calls:

* per call = turn time / N: a call's cost through the agent, the turn's fixed cost (the
  prompt and response events, storing the turn, the checks) shared among its calls;
* overhead = (turn time - N x bare call) / N, in ms: the target is <= 5 ms (docs/performance.md,
  "Agent overhead per tool call: `bench/agent_overhead.py`");
* agent/bare = per call / bare call: the ratio to the bare tool call;
* marginal = (turn time - time of a turn with no call) / N - bare call: what one more call
  adds to a turn, without the turn's fixed cost.

Figures are medians of the per-round values, and ``min`` columns use each run's fastest time.
The garbage collector is left on, as in wisp.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import platform
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from wisp.agent.events import AgentEvent
from wisp.agent.loop import DEFAULT_MAX_STEPS, Conversation
from wisp.agent.prompt import system_prompt
from wisp.agent.recorder import Recorder
from wisp.agent.types import Tool, ToolContext
from wisp.audit import AuditLog, AuditSettings, FileSink, NullSink, open_sink
from wisp.config import Config
from wisp.home import Home
from wisp.models.script import resolve as resolve_script
from wisp.store import ConversationStore, PendingEntry
from wisp.tools.current_date import CurrentDateTool
from wisp.tools.registry import default_tools

PROMPT = "What is the date and time now?"
REPLY = "It is the date and time shown above."
TARGET_MS = 5.0


@dataclass
class Setup:
    """What every turn shares: the home, config, tools and the two audit logs."""

    home: Home
    config: Config
    tools: list[Tool]
    instructions: str
    logs: dict[str, AuditLog]
    scripts: dict[int, Path] = field(default_factory=dict)


@dataclass
class Case:
    calls: int
    audit: str
    times: list[float] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.audit} {self.calls}"


def write_script(folder: Path, calls: int) -> Path:
    """N responses calling ``current_date`` (no arguments), then the reply."""
    call = {"tool_calls": [{"name": "current_date", "arguments": {}}], "delay_ms": 0}
    path = folder / f"calls-{calls}.json"
    path.write_text(json.dumps({"responses": [call] * calls + [{"text": REPLY}]}))
    return path


def make_setup(root: Path, counts: list[int]) -> Setup:
    home = Home(root / "home")
    home.ensure()
    config = Config(home.config_file, {})
    tools = default_tools(config)
    instructions = system_prompt(
        has_tools=True, has_memory=False, extension=None, instructions=None
    )
    file_sink = open_sink(AuditSettings(), home.audit_file)
    assert isinstance(file_sink, FileSink)
    logs = {"file": AuditLog(file_sink), "null": AuditLog(NullSink())}
    setup = Setup(home, config, tools, instructions, logs)
    setup.scripts = {n: write_script(root, n) for n in counts}
    return setup


async def new_conversation(
    setup: Setup, case: Case, events: list[AgentEvent] | None = None
) -> Conversation:
    """A conversation as ``wisp chat`` builds one, with a fresh script backend and store; its
    recorded events go to ``events``, as to a face."""
    model = await resolve_script(str(setup.scripts[case.calls]))
    store = ConversationStore()
    store.add(
        PendingEntry("instructions", setup.instructions), turn=None, origin="carried", time=None
    )
    return Conversation(
        model=model,
        tools=setup.tools,
        store=store,
        recorder=Recorder(setup.logs[case.audit], [].append if events is None else events.append),
        instructions=setup.instructions,
        home=setup.home.root,
        config=setup.config,
        working_directory=setup.home.root,
        audit_file=setup.home.audit_file if case.audit == "file" else None,
        max_steps=DEFAULT_MAX_STEPS,
    )


async def time_turn(setup: Setup, case: Case) -> None:
    events: list[AgentEvent] = []
    conversation = await new_conversation(setup, case, events)
    start = time.perf_counter()
    result = await conversation.run_turn(PROMPT)
    case.times.append(time.perf_counter() - start)
    calls = sum(1 for event in events if getattr(event, "kind", None) == "tool.result")
    if result.outcome != "ok" or result.text != REPLY or calls != case.calls:
        sys.exit(f"{case.name}: the turn ended {result.outcome} after {calls} calls: {result}")


async def time_bare(tool: CurrentDateTool, context: ToolContext, count: int) -> float:
    """Seconds per bare call, over a batch of ``count``."""
    run = tool.run
    start = time.perf_counter()
    for _ in range(count):
        await run({}, context)
    return (time.perf_counter() - start) / count


def bare_context(root: Path) -> ToolContext:
    return ToolContext(
        working_directory=root,
        call_id="0badcafe",
        output_budget=4096,
        record=lambda details: None,
        conversation=None,  # type: ignore[arg-type]  # current_date reads no conversation
    )


async def run_rounds(setup: Setup, cases: list[Case], rounds: int, bare_batch: int) -> list[float]:
    """Every round: the bare batch and each case's turn, in an order that rotates."""
    tool, context = CurrentDateTool(), bare_context(setup.home.root)
    bare: list[float] = []
    slots: list[Case | None] = [None, *cases]  # None: the bare batch
    for index in range(rounds):
        shift = index % len(slots)
        for case in slots[shift:] + slots[:shift]:
            if case is None:
                bare.append(await time_bare(tool, context, bare_batch))
            else:
                await time_turn(setup, case)
        if (index + 1) % max(1, rounds // 5) == 0:
            print(f"  round {index + 1}/{rounds} done", file=sys.stderr, flush=True)
    return bare


async def profile(setup: Setup, case: Case, turns: int) -> None:
    """Where a turn's time goes: cProfile over ``turns`` turns, the top functions by own time."""
    conversations = [await new_conversation(setup, case) for _ in range(turns)]
    profiler = cProfile.Profile()
    profiler.enable()
    for conversation in conversations:
        await conversation.run_turn(PROMPT)
    profiler.disable()
    print(f"\ncProfile: {turns} turns of {case.calls} calls, audit {case.audit}; top by own time")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(18)


def report(cases: list[Case], bare: list[float], rounds: int, bare_batch: int) -> None:
    bare_med, bare_min = statistics.median(bare), min(bare)
    print(
        f"\nagent overhead per current_date call: {rounds} interleaved rounds "
        f"(median over rounds; min: fastest runs)"
    )
    print(
        f"bare call, CurrentDateTool().run({{}}, context): {bare_med * 1e6:.1f} µs median, "
        f"{bare_min * 1e6:.1f} µs min (batches of {bare_batch})"
    )
    header = (
        f"{'audit':<5} {'calls':>5} {'turn ms':>7} {'min':>6} {'per call µs':>11} "
        f"{'overhead ms':>11} {'min':>6} {'agent/bare':>10} {'marginal µs':>11}  target"
    )
    print(header)
    print("-" * len(header))
    empty = {case.audit: case for case in cases if case.calls == 0}
    for case in cases:
        turn_ms = f"{statistics.median(case.times) * 1e3:>7.3f} {min(case.times) * 1e3:>6.3f}"
        if case.calls == 0:
            print(f"{case.audit:<5} {0:>5} {turn_ms}   (a turn's fixed cost: prompt to reply)")
            continue
        n = case.calls
        per_call = [t / n for t in case.times]
        overhead = [(t - n * b) / n for t, b in zip(case.times, bare, strict=True)]
        ratio = [p / b for p, b in zip(per_call, bare, strict=True)]
        zero = empty[case.audit].times
        marginal = [(t - z) / n - b for t, z, b in zip(case.times, zero, bare, strict=True)]
        overhead_med = statistics.median(overhead)
        verdict = "met" if overhead_med * 1e3 <= TARGET_MS else "missed"
        print(
            f"{case.audit:<5} {n:>5} {turn_ms} {statistics.median(per_call) * 1e6:>11.1f} "
            f"{overhead_med * 1e3:>11.4f} {(min(case.times) - n * bare_min) / n * 1e3:>6.4f} "
            f"{statistics.median(ratio):>10.2f} {statistics.median(marginal) * 1e6:>11.1f}  "
            f"<=5 ms {verdict}"
        )
    print()
    print("per call = turn / N; overhead = (turn - N x bare) / N; agent/bare = per call / bare;")
    print("marginal = (turn - turn with no call) / N - bare: one more call, without the turn's")
    print("fixed cost. file: a real FileSink in a temp WISP_HOME; null: a NullSink.")
    for n in sorted({case.calls for case in cases} - {0}):
        by_audit = {c.audit: c for c in cases if c.calls == n}
        cost = [
            (f - z) / n for f, z in zip(by_audit["file"].times, by_audit["null"].times, strict=True)
        ]
        print(f"the audit file adds {statistics.median(cost) * 1e6:.1f} µs a call at N = {n}")


def main() -> int:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # progress in order
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run, a few seconds")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 1500, quick 40)")
    parser.add_argument(
        "--calls",
        type=int,
        nargs="+",
        default=[1, 8, 24],
        help=f"calls per turn, each a workload (default 1 8 24; at most {DEFAULT_MAX_STEPS - 1})",
    )
    parser.add_argument("--profile", action="store_true", help="also profile the largest turn")
    args = parser.parse_args()
    counts = sorted(set(args.calls))
    if not all(1 <= n < DEFAULT_MAX_STEPS for n in counts):
        parser.error(f"--calls: each from 1 to {DEFAULT_MAX_STEPS - 1} (a turn's step limit)")
    rounds = args.rounds or (40 if args.quick else 1500)
    bare_batch = 50 if args.quick else 200
    cases = [Case(n, audit) for n in [0, *counts] for audit in ("file", "null")]
    print(
        f"python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}, "
        f"{cpu_model()}"
    )
    root = Path(tempfile.mkdtemp(prefix="wisp-bench-agent-"))
    print(f"WISP_HOME and scripts under {root}, removed at the end")
    started = time.perf_counter()
    try:
        setup = make_setup(root, [0, *counts])
        asyncio.run(_bench(setup, cases, rounds, bare_batch, args.profile))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"\ntook {time.perf_counter() - started:.0f} s")
    return 0


def cpu_model() -> str:
    """The CPU's name from /proc/cpuinfo (Linux), else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


async def _bench(
    setup: Setup, cases: list[Case], rounds: int, bare_batch: int, with_profile: bool
) -> None:
    for case in cases:  # a first turn each, untimed: imports, caches, the audit file opened
        await time_turn(setup, case)
        case.times.clear()
    bare = await run_rounds(setup, cases, rounds, bare_batch)
    report(cases, bare, rounds, bare_batch)
    if with_profile:
        largest = max(case.calls for case in cases)
        await profile(setup, Case(largest, "file"), turns=50)
    for log in setup.logs.values():
        log.close()


if __name__ == "__main__":
    sys.exit(main())
