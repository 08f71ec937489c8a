"""What a watch prints on the terminal (docs/watch.md, "Runs"): one line a run, the command's
output under a failure, the triage's words under that."""

from __future__ import annotations

from pathlib import Path

from wisp.watch.types import Finished, State, Triaged, Trigger

SEPARATOR = " · "


def run_line(
    clock: str, number: int, trigger: Trigger, changed: str, state: State, finished: Finished
) -> str:
    """``12:04:09 run 2 · change: tests/test_math.py · fail (exit 1) · 0.35 s``."""
    why = f"{trigger}: {changed}" if changed else trigger
    parts = [f"{clock} run {number}", why, verdict(state, finished), f"{finished.seconds:.2f} s"]
    return SEPARATOR.join(parts)


def restart_line(clock: str, changed: str, finished: Finished) -> str:
    """A run stopped by ``--restart``: not a run, so no number and no verdict."""
    return SEPARATOR.join(
        [f"{clock} restart", f"change: {changed}", f"stopped after {finished.seconds:.2f} s"]
    )


def verdict(state: State, finished: Finished) -> str:
    if state == "pass":
        return "pass"
    if finished.timed_out:
        return "fail (timed out)"
    if finished.exit_status < 0:
        return f"fail (signal {-finished.exit_status})"
    return f"fail (exit {finished.exit_status})"


def changed_words(paths: list[Path], base: Path) -> str:
    """A lone change by its path (beneath ``base`` when it is there), several by their count."""
    if not paths:
        return ""
    if len(paths) > 1:
        return f"{len(paths)} files"
    path = paths[0]
    return str(path.relative_to(base)) if path.is_relative_to(base) else str(path)


def triage_lines(triaged: Triaged) -> list[str]:
    """``triage (local): 2 problems``, then one indented line each: where, then what."""
    if triaged.error is not None:
        return [f"triage failed: {triaged.error}"]
    count = len(triaged.problems)
    head = f"triage ({triaged.model}): {count} problem{'' if count == 1 else 's'}"
    return [head] + [
        f"  {problem.where}: {problem.what}" if problem.where else f"  {problem.what}"
        for problem in triaged.problems
    ]


def same_failure_line(run: int) -> str:
    return f"triage: the same output as run {run}'s, read there"
