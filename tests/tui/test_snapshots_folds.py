"""Snapshots of folds, the output panel and the context panel (docs/tui.md, "Folds", "Panels"),
from a real `wisp chat --json`."""

from __future__ import annotations

from pathlib import Path

import msgspec

SIZE = (100, 30)
CAT_CALL = [{"name": "run_command", "arguments": {"command": "cat lines.txt"}}]
CAT = [{"text": "", "tool_calls": CAT_CALL}, {"text": "Done."}]
THOUGHT = "\n".join(f"step {n}: look at the next thing" for n in range(1, 26))


def with_lines(home: Path, count: int = 50) -> None:
    (home / "work" / "lines.txt").write_text("".join(f"line {n}\n" for n in range(1, count + 1)))


async def asked(pilot, wait_for, folds: int = 1) -> None:
    """Send `count`, wait for the turn to end with `folds` folds, and fix the turn's time."""
    app = pilot.app
    await wait_for(pilot, lambda: app.status_bar.status is not None)
    await pilot.press(*"count", "enter")
    await wait_for(pilot, lambda: sum(f.is_foldable for f in app.transcript.folds()) == folds)
    await wait_for(pilot, lambda: not app.prompt.is_busy)
    # The turn's wall time differs run to run; the picture fixes it.
    app.status_bar.turn = msgspec.structs.replace(app.status_bar.turn, seconds=1.5)
    await pilot.pause()


def test_tool_fold_shut(snap_compare, make_app, snapshot_home, wait_for):
    app = make_app(CAT, snapshot_home)
    with_lines(snapshot_home)

    async def run_before(pilot) -> None:
        await asked(pilot, wait_for)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_tool_fold_open(snap_compare, make_app, snapshot_home, wait_for):
    app = make_app(CAT, snapshot_home)
    with_lines(snapshot_home)

    async def run_before(pilot) -> None:
        await asked(pilot, wait_for)
        await pilot.press("ctrl+g")
        await pilot.pause()
        app.transcript.scroll_end(animate=False, immediate=True)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_thought_fold(snap_compare, make_app, snapshot_home, wait_for):
    app = make_app([{"text": "Done.", "thinking": THOUGHT}], snapshot_home)

    async def run_before(pilot) -> None:
        await asked(pilot, wait_for)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_output_panel(snap_compare, make_app, snapshot_home, wait_for):
    app = make_app(CAT, snapshot_home)
    with_lines(snapshot_home)

    async def run_before(pilot) -> None:
        await asked(pilot, wait_for)
        await pilot.press("ctrl+o", "down", "down")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_context_panel(snap_compare, make_app, snapshot_home, wait_for):
    """Ctrl-T after a turn: the next request's context, and the meter beside the model."""
    replies = [{"text": "Done.", "usage": {"input": 2300, "output": 5}}]
    app = make_app(replies, snapshot_home, context_size=4096)

    async def run_before(pilot) -> None:
        await asked(pilot, wait_for, folds=0)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: app.is_panel_shown and app.screen.kind == "context")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
