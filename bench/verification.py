"""What the reply's check against the calls costs (docs/turn.md, "Lines under a reply").

    python bench/verification.py            # 4 KB replies, 200 rounds
    python bench/verification.py --rounds 50

It times, in the same process and in interleaved rounds, on the same text:

* ``verify``: the whole check of a reply against a turn's trail (find the claims, read the
  calls from the trail, each reader's match), as ``ReplyChecks.check`` runs it;
* ``cited_entries``: the existing ``cited`` check over the same text: the baseline, a single
  regular expression over the reply.

Three 4 KB replies: a typical one (prose, a code block, a claim in about every 700 bytes), a
dense one (a claim in every sentence, some true, some false, some negated: the worst case), and
one of prose and code with none. Reported: the median microseconds of each, and the ratio of the
medians (the target: the check under 1 ms for a 4 KB reply). Never a timed test: the figures go
to docs/performance.md.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from wisp.agent.checks import cited_entries
from wisp.agent.verification import verify
from wisp.audit import AuditEvent, Details, Stamper
from wisp.audit.kinds import CommandOutcome, PolicyDecision, ToolCall, ToolResult

SIZE = 4096
HERE = Path("/work/project")

CLAIMS = (
    "I ran the tests with `pytest -q` and they pass. I've updated config.ini to use port 9090, "
    "and I did not touch settings.json. I will run the linter next. Then I read notes.txt: "
    "the code word is heron, as entry 3 says. I have also installed requests with pip. "
    "You can run `make` to build it yourself. I haven't committed anything yet. "
)
TYPICAL = (
    "The bug was in the add function: it subtracted its second argument instead of adding it. "
    "I've updated app.py so that add returns a + b, and I ran the tests with `pytest -q`. "
    "The rest of the module looks right to me; the parser splits on commas and strips spaces, "
    "which matches what the README describes. If you want stricter input checks, the place to "
    "add them is before the loop, where each field is read.\n"
    "```python\ndef add(a, b):\n    return a + b\n```\n"
    "Note that the function does not check its arguments' types, so add('a', 'b') gives 'ab'; "
    "that may be what you want for strings. "
)
PROSE = (
    "The function adds two numbers and returns the sum. It handles negative values too, and "
    "the loop stops at the first empty line. For a large file, read it in pages of a hundred "
    "lines; the last line says where to go on from. See entries 4-6 for the earlier output.\n"
    "```python\ndef add(a, b):\n    return a + b\n```\n"
)


def fill(text: str) -> str:
    """``text`` repeated to ``SIZE`` bytes."""
    return (text * (SIZE // len(text) + 1)).encode()[:SIZE].decode(errors="ignore")


def trail() -> list[AuditEvent]:
    """A turn's trail: a test run, an edit and a read, each as the recorder keeps it."""
    stamper = Stamper()

    def event(details: Details, call: str | None = None) -> AuditEvent:
        return AuditEvent(
            id=stamper.new_id(), time=stamper.now(), version="0", pid=1, session="s" * 16,
            turn=1, call=call, kind=details.kind, details=details,
        )  # fmt: skip

    line = "pytest -q"
    return [
        event(ToolCall(tool="run_command", arguments={"command": line}), "c1"),
        event(
            PolicyDecision(
                command=line,
                working_directory=str(HERE),
                verdict="allowed",
                reason="",
                sandbox=True,
                network=True,
                nested=False,
            )
        ),
        event(
            CommandOutcome(
                command=line,
                exit_status=0,
                timed_out=False,
                truncated=False,
                stdout="3 passed",
                stderr="",
                seconds=1.0,
            )
        ),
        event(ToolResult(tool="run_command", output="3 passed", bytes=8, seconds=1.0), "c1"),
        event(ToolCall(tool="edit_file", arguments={"path": "config.ini"}), "c2"),
        event(ToolResult(tool="edit_file", output="wrote", bytes=5, seconds=0.0), "c2"),
        event(ToolCall(tool="read_file", arguments={"path": "notes.txt"}), "c3"),
        event(ToolResult(tool="read_file", output="heron", bytes=5, seconds=0.0), "c3"),
    ]


def micros(run: Callable[[], object], repeat: int = 20) -> float:
    """One call's microseconds, from ``repeat`` calls in a row."""
    started = time.perf_counter()
    for _ in range(repeat):
        run()
    return (time.perf_counter() - started) / repeat * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    events = trail()
    print(f"{platform.python_implementation()} {platform.python_version()}, {SIZE} B replies")
    replies = (("typical", TYPICAL), ("dense claims", CLAIMS), ("no claims", PROSE))
    for name, text in ((name, fill(text)) for name, text in replies):
        checked: list[float] = []
        baseline: list[float] = []
        for _ in range(args.rounds):
            checked.append(micros(lambda text=text: verify(text, events, HERE)))
            baseline.append(micros(lambda text=text: cited_entries(text)))
        found = verify(text, events, HERE)
        claims = "none" if found is None else f"{found.details.status}, {found.line or 'no line'}"
        check, base = statistics.median(checked), statistics.median(baseline)
        print(f"{name}: verify {check:.0f} µs, cited {base:.0f} µs, ratio {check / base:.1f}")
        print(f"  found: {claims[:110]}")


if __name__ == "__main__":
    main()
