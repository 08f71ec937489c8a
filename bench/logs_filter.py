"""How fast ``wisp logs --kind K`` reads a large audit log, against ``grep -c`` on the same file.

    python bench/logs_filter.py             # a ~200 MB log, under a minute on 2 cores
    python bench/logs_filter.py --quick     # a ~20 MB log, a few seconds (a smoke test:
                                            # at that size wisp's startup is most of its time)

It writes an audit log of realistic lines straight to ``$WISP_HOME/logs/audit.jsonl`` in a temp
dir (each line a real ``AuditEvent`` with a registered ``Details`` Struct, encoded by msgspec as
the sink would; one kind rare, about 1% of lines, and one common, about 25%), then times, in
interleaved rounds whose order rotates:

* ``grep -c '"kind":"K"' FILE``: the baseline; it only counts (its output goes to a pipe);
* ``wisp logs --kind K``: the real console script, stdout to /dev/null: it decodes each
  candidate line, checks the filter exactly and formats a summary line per match;
* ``wisp logs --kind K --json``: the same, printing the stored lines;
* ``wisp logs --kind K`` with no log at all: wisp's fixed cost, for reading the others.

The ratio is wisp's wall time / grep's, reported as the median of the per-round ratios and as
the ratio of the minimum times (the target: <= 2, in docs/performance.md, "`wisp logs --kind K`
against `grep -c`: `bench/logs_filter.py`"). The log is deleted at the end.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from wisp.audit import AuditEvent, Details, Stamper
from wisp.audit.kinds import (
    CommandOutcome,
    ConfigChange,
    Error,
    FileWrite,
    ModelReasoning,
    ModelResolved,
    OutputKept,
    PolicyDecision,
    Prompt,
    Response,
    SessionEnd,
    SessionStart,
    ToolCall,
    ToolResult,
    Usage,
)

RARE = "file.write"
COMMON = "tool.result"

# Share of lines per kind, in percent.
MIX = {
    "tool.result": 25,
    "tool.call": 20,
    "model.reasoning": 14,
    "policy.decision": 10,
    "command.outcome": 10,
    "prompt": 7,
    "response": 7,
    "output.kept": 2,
    "file.write": 1,
    "session.start": 1,
    "session.end": 1,
    "model.resolved": 1,
    "error": 0.5,
    "config.change": 0.5,
}

WORDS = (  # noqa: SIM905 (a vocabulary reads better as text)
    "the a file line test error return value function module import config audit session model "
    "tool call result output read write path directory python wisp build run check pass fail "
    "list dict string bytes int float None True False self class def async await lock rotate "
    "append flush stream token usage response prompt reply json msgspec struct def main(): "
    "print('hello') if x > 0: return {} [] # TODO fix -> => :: && || $HOME"
).split()
# Most tool output and prose is ASCII; some of it (a tenth, here) holds a wider character.
WIDE = ["café", "naïve", "✓", "—", "└──", "日本語", "→"]


class Texts:
    """A pool of texts of many sizes, drawn from at random (making each anew is too slow)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.pool = [self._make(rng.choice((60, 200, 500, 1000, 2000, 4000))) for _ in range(800)]

    def _make(self, size: int) -> str:
        """Lines of a few words, like a command's output or a file's text."""
        rng = self.rng
        lines: list[str] = []
        length = 0
        while length < size:
            line = " ".join(rng.choices(WORDS, k=rng.randint(2, 14)))
            lines.append(line)
            length += len(line) + 1
        if rng.random() < 0.1:
            lines.insert(rng.randrange(len(lines)), rng.choice(WIDE))
        return "\n".join(lines)[: rng.randint(size // 2, size)]

    def any(self) -> str:
        return self.rng.choice(self.pool)

    def short(self) -> str:
        return self.any()[: self.rng.randint(20, 300)]


def details_for(kind: str, texts: Texts, rng: random.Random) -> Details:
    command = f"grep -rn {rng.choice(WORDS)!r} src/ | head -{rng.randint(5, 50)}"
    path = f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py"
    match kind:
        case "tool.result":
            output = texts.any()
            tool = rng.choice(("run_command", "read_file", "search", "edit_file"))
            return ToolResult(tool=tool, output=output, bytes=len(output), seconds=0.05)
        case "tool.call":
            tool, arguments = rng.choice(
                (("run_command", {"command": command}), ("read_file", {"path": path}))
            )
            return ToolCall(tool=tool, arguments=arguments)
        case "model.reasoning":
            if rng.random() < 0.5:
                return ModelReasoning(phase="start")
            text = texts.any()
            return ModelReasoning(phase="end", text=text, bytes=len(text), tokens=99, seconds=1.5)
        case "policy.decision":
            return PolicyDecision(
                command=command,
                working_directory="/home/me/src/project",
                verdict=rng.choice(("allow", "ask", "deny")),
                reason="a read-only pipeline",
                sandbox=True,
                network=False,
                nested=False,
            )
        case "command.outcome":
            return CommandOutcome(
                command=command,
                exit_status=rng.choice((0, 0, 0, 1, 2)),
                timed_out=False,
                truncated=False,
                stdout=texts.any(),
                stderr="",
                seconds=0.2,
            )
        case "prompt":
            return Prompt(text=texts.short())
        case "response":
            usage = Usage(input=5000, output=300, cached=4096, reasoning=120)
            return Response(text=texts.any(), condensed=False, seconds=3.1, usage=usage)
        case "output.kept":
            return OutputKept(
                tool="run_command", bytes=90210, lines=1200, sha256="ab" * 32, cut=True,
                total_bytes=90210,
            )  # fmt: skip
        case "file.write":
            return FileWrite(
                path=path, mode="edit", created=False, bytes_before=1200, bytes_after=1300
            )
        case "session.start":
            return SessionStart(
                entry_point="chat", tools=["run_command", "read_file", "edit_file"], model="local"
            )
        case "session.end":
            return SessionEnd(reason="closed")
        case "model.resolved":
            return ModelResolved(
                model="local", backend="llama.cpp", capabilities=["tools"],
                capability_source="check", tools=["run_command"], context_size=8192,
            )  # fmt: skip
        case "error":
            return Error(message=texts.short(), context="tool run_command")
        case "config.change":
            return ConfigChange(path="audit.keepFiles", old=5, new=3, source="cli")
    raise ValueError(kind)


def generate(path: Path, target_bytes: int, seed: int = 7) -> dict[str, int]:
    """Write lines until the file holds ``target_bytes``; return the count of each kind."""
    rng = random.Random(seed)
    texts = Texts(rng)
    stamper = Stamper()
    encoder = msgspec.json.Encoder()
    kinds, weights = list(MIX), list(MIX.values())
    counts = dict.fromkeys(MIX, 0)
    sessions = [os.urandom(8).hex() for _ in range(40)]
    ns = 1_790_000_000 * 10**9
    written = 0
    with open(path, "wb") as out:
        while written < target_bytes:
            chunk = bytearray()
            for kind in rng.choices(kinds, weights, k=2000):
                ns += rng.randint(1, 3_000_000_000)
                details = details_for(kind, texts, rng)
                event = AuditEvent(
                    id=stamper.new_id(),
                    time=stamper.format_time(ns),
                    version="0.1.0",
                    pid=4242,
                    session=rng.choice(sessions),
                    turn=rng.randint(1, 40),
                    call=f"call_{rng.randint(1, 999)}" if kind.startswith("tool") else None,
                    kind=kind,
                    details=details,
                )
                chunk += encoder.encode(event)
                chunk += b"\n"
                counts[kind] += 1
            out.write(chunk)
            written += len(chunk)
    return counts


@dataclass
class Command:
    name: str
    argv: list[str]
    env: dict[str, str]
    matches: int = 0
    times: list[float] = field(default_factory=list)

    def run(self) -> None:
        # grep's count goes to a pipe: with stdout on /dev/null, GNU grep stops at the first
        # match. wisp's output goes to /dev/null.
        stdout = subprocess.PIPE if self.argv[0] == "grep" else subprocess.DEVNULL
        start = time.perf_counter()
        subprocess.run(self.argv, env=self.env, stdout=stdout, check=True)
        self.times.append(time.perf_counter() - start)


def wisp_script() -> str:
    beside = Path(sys.executable).with_name("wisp")
    script = str(beside) if beside.exists() else shutil.which("wisp")
    if not script:
        sys.exit("no wisp console script beside this python or on PATH: install wisp first")
    return script


def commands_for(
    kind: str, matches: int, wisp: str, log: Path, env: dict[str, str]
) -> list[Command]:
    """grep (the baseline, first), then wisp's two outputs, for one kind."""
    logs = [wisp, "logs", "--kind", kind]
    return [
        Command("grep -c", ["grep", "-c", f'"kind":"{kind}"', str(log)], env, matches),
        Command(f"wisp logs --kind {kind}", logs, env, matches),
        Command(f"wisp logs --kind {kind} --json", [*logs, "--json"], env, matches),
    ]


def check_counts(groups: list[list[Command]]) -> None:
    """Before timing: wisp, grep and the generator agree on how many lines each kind has."""
    for grep, _, as_json in groups:
        counted = int(subprocess.run(grep.argv, capture_output=True, check=True).stdout)
        shown = subprocess.run(as_json.argv, env=as_json.env, capture_output=True, check=True)
        if not shown.stdout.count(b"\n") == counted == grep.matches:
            sys.exit(f"{grep.argv}: grep counts {counted}, wisp shows {shown}, made {grep.matches}")


def report(groups: list[list[Command]], startup: Command, size: int, lines: int) -> None:
    rounds = len(startup.times)
    print(
        f"\nwisp logs over a {size / 1e6:.0f} MB log ({lines} lines), {rounds} interleaved rounds"
    )
    header = (
        f"{'command':<38} {'matches':>8} {'median s':>9} {'min s':>7} "
        f"{'ratio med':>9} {'ratio min':>9}  target"
    )
    print(header)
    print("-" * len(header))
    for grep, *wisps in groups:
        print(f"{grep.name:<38} {grep.matches:>8} {_seconds(grep)}")
        for command in wisps:
            ratios = [w / g for w, g in zip(command.times, grep.times, strict=True)]
            ratio_med = statistics.median(ratios)
            ratio_min = min(command.times) / min(grep.times)
            verdict = "met" if ratio_med <= 2 else "missed"
            print(
                f"{command.name:<38} {command.matches:>8} {_seconds(command)} "
                f"{ratio_med:>9.2f} {ratio_min:>9.2f}  <=2 {verdict}"
            )
    print(f"{startup.name:<38} {0:>8} {_seconds(startup)}")
    print()
    print("ratio = wisp wall time / grep -c wall time on the same file, in the same round;")
    print("med: median of the per-round ratios; min: fastest wisp / fastest grep.")
    print("The last row is wisp's fixed cost (interpreter, imports, argument parsing).")


def _seconds(command: Command) -> str:
    return f"{statistics.median(command.times):>9.3f} {min(command.times):>7.3f}"


def main() -> int:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # progress in order
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a ~20 MB log, a few seconds")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 11, quick 3)")
    parser.add_argument("--megabytes", type=int, help="the log's size (default 200, quick 20)")
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 11)
    megabytes = args.megabytes or (20 if args.quick else 200)
    wisp = wisp_script()
    root = Path(tempfile.mkdtemp(prefix="wisp-bench-logs-"))
    env = {**os.environ, "WISP_HOME": str(root / "home")}
    env.pop("WISP_LOG", None)
    locale = f"LANG={os.environ.get('LANG', '')!r} LC_ALL={os.environ.get('LC_ALL', '')!r}"
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, {locale}")
    started = time.perf_counter()
    try:
        log = root / "home" / "logs" / "audit.jsonl"
        log.parent.mkdir(mode=0o700, parents=True)
        counts = generate(log, megabytes * 1_000_000)
        size = log.stat().st_size
        made = f"{counts[RARE]} {RARE}, {counts[COMMON]} {COMMON}"
        print(f"generated {size / 1e6:.0f} MB in {time.perf_counter() - started:.1f} s ({made})")
        groups = [commands_for(kind, counts[kind], wisp, log, env) for kind in (RARE, COMMON)]
        check_counts(groups)
        empty = {**env, "WISP_HOME": str(root / "empty")}
        startup = Command(
            "wisp logs --kind K (no log: startup)", [wisp, "logs", "--kind", COMMON], empty
        )
        commands = [command for group in groups for command in group] + [startup]
        for index in range(rounds):
            shift = index % len(commands)  # rotate the order, so none always runs first
            for command in commands[shift:] + commands[:shift]:
                command.run()
            print(f"  round {index + 1}/{rounds} done", file=sys.stderr, flush=True)
        report(groups, startup, size, sum(counts.values()))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"\ntook {time.perf_counter() - started:.0f} s; the log was removed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
