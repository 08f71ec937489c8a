"""Snapshots of keys (docs/tui.md, "Keys"): Tab's suggestions row, and the keys panel F1 opens."""

from __future__ import annotations

SIZE = (100, 30)


async def started(pilot, wait_for) -> None:
    await wait_for(pilot, lambda: pilot.app.status_bar.status is not None)
    await pilot.pause()


def test_the_suggestions_row(snap_compare, make_app, snapshot_home, wait_for):
    """`/mo` and Tab twice: `/models` in the input, highlighted on the row above it."""
    app = make_app([{"text": "Hi."}], snapshot_home)

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        await pilot.press(*"/mo", "tab")
        await wait_for(pilot, lambda: app.suggestions.display)
        await pilot.press("tab", "tab")
        await wait_for(pilot, lambda: app.prompt.text == "/models")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_the_keys_panel(snap_compare, make_app, snapshot_home, wait_for):
    app = make_app([{"text": "Hi."}], snapshot_home)

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        await pilot.press("f1")
        await wait_for(pilot, lambda: app.is_panel_shown)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
