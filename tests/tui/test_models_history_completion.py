"""Pilot tests: the model picker, input history and Tab completion (docs/tui.md, "Dialogs",
"The input")."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path

from tests.hang import HANG
from wisp_tui.history import History
from wisp_tui.screens.model_picker import ModelPickerScreen

from .conftest import app_env


def disable_a_model(home, other: str) -> None:
    """A config whose `models.disabled` holds a `script:` model, so `/models` lists two rows."""
    (home / ".wisp").mkdir(parents=True, exist_ok=True)
    (home / ".wisp" / "config.json").write_text(json.dumps({"models": {"disabled": [other]}}))


def wisp_models(home, wisp_script) -> list[dict]:
    done = subprocess.run(
        [str(wisp_script), "models", "--json"],
        env=app_env(home),
        cwd=home / "work",
        capture_output=True,
        text=True,
        timeout=HANG,
        check=True,
    )
    return json.loads(done.stdout)["models"]


def a_disabled_script_model(home: Path) -> Path:
    """A second `script:` model, disabled in the config, so `/models` lists two rows."""
    other = home / "work" / "other.json"
    other.parent.mkdir(parents=True)
    other.write_text('{"responses": [{"text": "other"}]}')
    disable_a_model(home, f"script:{other}")
    return other


async def test_the_model_picker_turns_a_model_on_and_saves_it(
    make_app, wait_for, tmp_path, wisp_script, end_grace
):
    home = tmp_path / "home"
    other = a_disabled_script_model(home)
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await pilot.press(*"/models", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        screen = app.screen
        values = [option.value for option in screen.choice.options]
        assert f"script:{other}" in values and len(values) == 2
        await wait_for(pilot, lambda: screen.table_text.plain)
        table = screen.table_text.plain
        assert "MODEL" in table and "[ ]" in table and "[x]" in table
        await pilot.press("space")  # in the grace: not an answer, not a toggle
        assert screen.on_values == [o.on is True for o in screen.choice.options]
        end_grace(screen)
        await pilot.pause()
        row = values.index(f"script:{other}")
        for _ in range(row):
            await pilot.press("down")
        assert screen.highlighted == row
        await pilot.press("space")
        assert screen.on_values[row] is True
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is not screen)
        await wait_for(pilot, lambda: not app.prompt.is_busy)
    # `wisp models` lists a `script:` model only while it is disabled: enabled, it is not shown
    # as disabled any more, and the config no longer names it.
    models = {m["selection"]: m for m in wisp_models(home, wisp_script)}
    assert models.get(f"script:{other}", {"enabled": True})["enabled"] is True
    assert "local" in models
    config = json.loads((home / ".wisp" / "config.json").read_text())
    assert f"script:{other}" not in config.get("models", {}).get("disabled", [])


async def test_esc_leaves_the_models_as_they_were(make_app, wait_for, tmp_path, wisp_script):
    home = tmp_path / "home"
    other = a_disabled_script_model(home)
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await pilot.press(*"/models", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        screen = app.screen
        await wait_for(pilot, lambda: screen.is_taking_keys)
        await pilot.press("space", "down", "space", "escape")
        await wait_for(pilot, lambda: app.screen is not screen)
        await wait_for(pilot, lambda: not app.prompt.is_busy)
    enabled = {m["selection"]: m["enabled"] for m in wisp_models(home, wisp_script)}
    assert enabled[f"script:{other}"] is False


async def test_sent_lines_are_kept_0600_and_come_back_with_up(make_app, wait_for, tmp_path):
    app = make_app([{"text": "One."}, {"text": "Two."}])
    path = tmp_path / "home" / ".wisp" / "history"
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await pilot.press(*"first", "enter")
        await wait_for(pilot, lambda: not app.prompt.is_busy)
        await pilot.press(*"second line", "enter")
        await wait_for(pilot, lambda: not app.prompt.is_busy)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert app.prompt.text == "second line"
        await pilot.press("up", "up")  # stops at the oldest
        assert app.prompt.text == "first"
        await pilot.press("down", "down")
        assert app.prompt.text == "draft"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [json.loads(line) for line in path.read_text().splitlines()] == [
        "first",
        "second line",
    ]
    assert History(path).lines == ["first", "second line"]


def test_history_keeps_the_newest_lines_and_a_repeat_once(tmp_path):
    path = tmp_path / "wisp" / "history"
    history = History(path, limit=3)
    for line in ["a", "b", "b", "!ls", "two\nrows"]:
        history.add(line)
    assert history.lines == ["b", "!ls", "two\nrows"]
    assert History(path, limit=3).lines == ["b", "!ls", "two\nrows"]
    history.add("d")  # appended without a rewrite, then trimmed on load
    assert History(path, limit=3).lines == ["!ls", "two\nrows", "d"]


async def test_tab_completes_a_slash_command(make_app, wait_for, transcript_text):
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await pilot.press(*"/mo", "tab")
        # Several candidates (`/model`, `/models`): their common prefix, and the suggestions
        # row listing them, not a note in the transcript.
        suggestions = app.suggestions
        await wait_for(pilot, lambda: suggestions.display and app.prompt.text == "/model")
        assert str(suggestions.render()) == "/model  /models"
        assert "/models" not in transcript_text(app)
        # Tab again steps through them, in place of the word, without asking wisp.
        await pilot.press("tab")
        assert app.prompt.text == "/model"
        await pilot.press("tab")
        assert app.prompt.text == "/models" and suggestions.display
        await pilot.press("tab")
        assert app.prompt.text == "/model"
        # Any edit clears the row; the next Tab asks wisp again.
        await pilot.press("s")
        await wait_for(pilot, lambda: not suggestions.display)
        await pilot.press("backspace", "tab")
        await wait_for(pilot, lambda: suggestions.display)
        await pilot.press("ctrl+u")
        await wait_for(pilot, lambda: not suggestions.display)
        app.prompt.text = "/he"
        app.prompt.cursor_index = 3
        await pilot.press("tab")  # one candidate: it and a space
        await wait_for(pilot, lambda: app.prompt.text == "/help ")


async def test_the_suggestions_row_keeps_the_chosen_candidate_in_sight(make_app, wait_for):
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(40, 20)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await pilot.press("/", "tab")  # every command: more than a 40-column row holds
        suggestions = app.suggestions
        await wait_for(pilot, lambda: suggestions.display)
        candidates = suggestions.offered.candidates
        assert len("  ".join(candidates)) > 40
        await pilot.press(*["tab"] * len(candidates))  # to the last one
        assert app.prompt.text == candidates[-1]
        row = str(suggestions.render())
        assert row.startswith("… ") and row.endswith(candidates[-1])
        await app.backend.quit()
