"""Snapshots of the model picker (docs/tui.md, "Tests and snapshots") at 80 and 40 columns."""

from __future__ import annotations

import json

import pytest

from wisp_tui.screens.model_picker import ModelPickerScreen


@pytest.mark.parametrize("width", [80, 40])
def test_model_picker(snap_compare, make_app, snapshot_home, wait_for, width):
    other = snapshot_home / "work" / "other.json"
    other.parent.mkdir(parents=True)
    other.write_text('{"responses": [{"text": "other"}]}')
    (snapshot_home / ".wisp").mkdir()
    (snapshot_home / ".wisp" / "config.json").write_text(
        json.dumps({"models": {"disabled": [f"script:{other}"]}})
    )
    app = make_app([{"text": "Hi."}], snapshot_home)

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await pilot.press(*"/models", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        screen = app.screen
        await wait_for(pilot, lambda: screen.is_taking_keys)
        await pilot.press("down", "space")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(width, 24), run_before=run_before)
