"""The model picker (docs/tui.md, "Dialogs"): `u` makes the highlighted model the one in use, Enter
switches."""

from __future__ import annotations

import json

from wisp.protocol import Choice, ChoiceColumn, ChoiceOption
from wisp_tui.screens.model_picker import ModelPickerScreen, table_rows


async def test_u_then_enter_switches_to_the_highlighted_model(make_app, wait_for, transcript_text):
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        script_model = app.status_bar.status.model
        await pilot.press(*"/models", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        screen = app.screen
        await wait_for(pilot, lambda: screen.is_taking_keys)
        row = [option.value for option in screen.choice.options].index("local")
        await pilot.press(*["down"] * row, "u")
        assert "* local" in screen.table_text.plain
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.status_bar.status.model == "local")
        assert "model: local; the transcript continues" in transcript_text(app)
    assert script_model != "local"


def test_the_in_use_mark_follows_u_and_the_heading_stays_over_the_names() -> None:
    choice = Choice(
        id="c1",
        title="Models",
        options=[
            ChoiceOption(value="local", label="local", on=True, cells=["local", "8,192", "gen"]),
            ChoiceOption(value="o:q", label="o:q", on=True, cells=["o:q", "32,768", "tools"]),
        ],
        current="local",
        toggles=True,
        columns=[
            ChoiceColumn(heading="MODEL", drop=0),
            ChoiceColumn(heading="CONTEXT", drop=1),
            ChoiceColumn(heading="CAPABILITIES", drop=0),
        ],
    )
    heading, rows = table_rows(choice, 80)
    assert rows[0].startswith("* local") and rows[1].startswith("  o:q")
    assert heading.index("MODEL") == rows[1].index("o:q")
    assert heading.index("CONTEXT") == rows[0].index("8,192")
    _, rows = table_rows(choice, 80, in_use="o:q")
    assert rows[0].startswith("  local") and rows[1].startswith("* o:q")


async def test_the_picker_names_capabilities_as_wisp_models_does(make_app, wait_for, tmp_path):
    other = tmp_path / "home" / "work" / "other.json"  # a second script model, disabled: listed
    other.parent.mkdir(parents=True)
    other.write_text('{"responses": [{"text": "other"}]}')
    (tmp_path / "home" / ".wisp").mkdir()
    (tmp_path / "home" / ".wisp" / "config.json").write_text(
        json.dumps({"models": {"disabled": [f"script:{other}"]}})
    )
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(240, 30)) as pilot:  # wide enough for the paths
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await pilot.press(*"/models", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        screen = app.screen
        await wait_for(pilot, lambda: screen.table_text.plain)
        rows = dict(zip(
            [option.value for option in screen.choice.options],
            screen.table_text.plain.splitlines()[1:],
            strict=False,
        ))  # fmt: skip
        assert rows["local"].endswith("text only, structured replies")
        assert rows[f"script:{other}"].endswith("tool calling, structured replies, thinking")
        assert "guidedGeneration" not in screen.table_text.plain
