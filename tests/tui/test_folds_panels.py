"""Folds and the output panel (docs/tui.md, "Folds", "Panels"), on a real `wisp chat --json -m
script:FILE`."""

from __future__ import annotations

from pathlib import Path

import pytest

from wisp.protocol import EventOutput
from wisp_tui.screens.approval import ApprovalScreen
from wisp_tui.screens.panel import Panel, output_text, wrap_rows
from wisp_tui.widgets.tool_line import ToolLine

SIZE = (100, 30)
THOUGHT = "\n".join(f"thought {n}" for n in range(1, 31))

CAT_CALL = [{"name": "run_command", "arguments": {"command": "cat lines.txt"}}]
CAT = [{"text": "", "tool_calls": CAT_CALL}, {"text": "Done."}]
THINK_THEN_CAT = [
    {"text": "", "thinking": THOUGHT, "tool_calls": CAT_CALL},
    {"text": "Done."},
]


async def send(pilot, text: str) -> None:
    """Type `text` (no spaces) and Enter, as a person would."""
    await pilot.press(*text, "enter")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The folder wisp works in: conftest's make_app puts it at home/work under tmp_path."""
    return tmp_path / "home" / "work"


async def ran_cat(pilot, app, work: Path, wait_for, lines: int = 50) -> None:
    """Start the app, ask, and wait until the turn with `cat lines.txt` has ended."""
    (work / "lines.txt").write_text("".join(f"{n}\n" for n in range(1, lines + 1)))
    await wait_for(pilot, lambda: app.status_bar.status is not None)
    await send(pilot, "count")
    await wait_for(pilot, lambda: any(fold.is_foldable for fold in folds(app)))
    await wait_for(pilot, lambda: not app.prompt.is_busy)


def folds(app) -> list[ToolLine]:
    return [fold for fold in app.transcript.query(ToolLine) if fold.is_foldable]


async def click(pilot, fold: ToolLine) -> None:
    """Click the fold's first row on screen (its top may be scrolled out of the transcript)."""
    visible = fold.region.intersection(pilot.app.transcript.region)
    await pilot.click(fold, offset=(2, visible.y - fold.region.y))


def shown(fold: ToolLine) -> str:
    return str(fold.render_text())


async def test_a_fold_opens_and_shuts_by_click_and_by_key(make_app, work, wait_for):
    app = make_app(CAT)
    async with app.run_test(size=SIZE) as pilot:
        await ran_cat(pilot, app, work, wait_for)
        (fold,) = folds(app)
        assert "    20\n" not in shown(fold) and "    18\n" in shown(fold)
        assert "… 32 more lines · click opens · ctrl-g all folds · ctrl-o panel" in shown(fold)

        await click(pilot, fold)
        assert fold.is_open and "    50\n" in shown(fold)
        assert "▴ click shuts · ctrl-g all folds" in shown(fold)
        assert app.focused is app.prompt.input, "a click must not take the keys from the input"
        await click(pilot, fold)
        assert not fold.is_open and "    50\n" not in shown(fold)

        await pilot.press("shift+tab")  # from the input back to the newest fold
        assert app.focused is fold
        await pilot.press("enter")
        assert fold.is_open
        await pilot.press("space")
        assert not fold.is_open
        await pilot.press("tab")  # past the newest fold: back to the input
        assert app.focused is app.prompt.input
        await pilot.press("shift+tab", "escape")
        assert app.focused is app.prompt.input


async def test_ctrl_c_on_a_fold_clears_the_draft_as_in_the_input(make_app, work, wait_for):
    app = make_app(CAT)
    async with app.run_test(size=SIZE) as pilot:
        await ran_cat(pilot, app, work, wait_for)
        await pilot.press(*"half", "shift+tab")
        assert isinstance(app.focused, ToolLine)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.prompt.text == "" and not app.is_quitting
        await pilot.press("escape", "up")
        assert app.prompt.text == "half"
        await app.backend.quit()


async def test_ctrl_g_opens_and_shuts_every_fold_a_thought_too(make_app, work, wait_for):
    app = make_app(THINK_THEN_CAT)
    async with app.run_test(size=SIZE) as pilot:
        await ran_cat(pilot, app, work, wait_for)
        await wait_for(pilot, lambda: len(folds(app)) == 2)
        thought, tool = folds(app)
        assert shown(thought).startswith("∴ thought for ")
        assert "thought 20\n" in shown(thought) and "thought 21" not in shown(thought)
        assert "… 10 more lines · click opens" in shown(thought)

        await click(pilot, thought)  # one open, one shut: Ctrl-G opens the rest
        await pilot.press("ctrl+g")
        assert thought.is_open and tool.is_open
        assert "thought 30" in shown(thought) and "    50\n" in shown(tool)
        await pilot.press("ctrl+g")
        assert not thought.is_open and not tool.is_open
        await pilot.press("shift+tab", "shift+tab", "shift+tab", "enter")  # stops at the oldest
        assert app.focused is thought and thought.is_open and not tool.is_open
        await pilot.press("enter", "escape")
        await click(pilot, thought)
        await click(pilot, thought)
        assert not thought.is_open


async def test_ctrl_o_shows_the_last_output_in_a_panel(make_app, work, wait_for, transcript_text):
    app = make_app(CAT)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: "no tool output to show yet" in transcript_text(app))
        assert not isinstance(app.screen, Panel)

        await ran_cat(pilot, app, work, wait_for)
        await pilot.press("ctrl+o")
        panel = app.screen
        assert isinstance(panel, Panel)
        body = panel.body
        assert body.border_title == " output " and body.border_subtitle == " ↑↓ scroll · esc close "
        assert body.rows[:3] == ["exit status: 0", "stdout:", "1"] and body.rows[-1] == "50"
        assert body.size.height == 16 and body.scroll_offset.y == 0

        await pilot.press("down", "down")
        assert body.scroll_offset.y == 2
        await pilot.press("pagedown", "pagedown", "pagedown")
        assert body.scroll_offset.y == body.max_scroll_y == 52 - 16
        await pilot.press("up", "pageup")
        assert body.scroll_offset.y == 52 - 16 - 17
        await pilot.press("a", "b", "enter")  # typing does nothing, and never reaches the input
        assert app.screen is panel and not app.prompt.text

        await pilot.press("ctrl+o")
        assert not isinstance(app.screen, Panel)
        await pilot.press("ctrl+o")
        await pilot.press("escape")
        assert not isinstance(app.screen, Panel)
        for key in ("ctrl+c", "ctrl+d"):
            await pilot.press("ctrl+o")
            assert isinstance(app.screen, Panel)
            await pilot.press(key)  # an open panel is the first thing Ctrl-C closes; nothing quits
            assert not isinstance(app.screen, Panel) and not app.is_quitting


async def test_a_long_thought_says_what_was_cut_and_a_huge_panel_draws_only_its_view(
    make_app, wait_for
):
    long_thought = "".join(f"thought number {n}\n" for n in range(1, 2001))  # over 16 KiB
    app = make_app([{"text": "Done.", "thinking": long_thought}])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await send(pilot, "think")
        await wait_for(pilot, lambda: len(folds(app)) == 1)
        await pilot.press("ctrl+o")
        body = app.screen.body
        assert body.rows[0] == "thought number 1"
        assert body.rows[-1] == f"… truncated: 2000 lines, {len(long_thought)} bytes in all"
        await pilot.press("escape")

        # 10,000 rows: only the 16 in view are ever drawn, so the panel opens at once (how
        # soon is measured by bench/tui.py (f)).
        await app.push_screen(Panel("output", "".join(f"row {n}\n" for n in range(10_000))))
        await pilot.pause()
        body = app.screen.body
        assert len(body.rows) == 10_000 and body.size.height == 16
        await pilot.press("pagedown")
        assert body.scroll_offset.y == 16


def test_output_text_and_wrapping() -> None:
    output = EventOutput(text="a\nb\n", lines=9, bytes=99, truncated=True)
    assert output_text(output) == "a\nb\n… truncated: 9 lines, 99 bytes in all"
    assert wrap_rows(["abcdefg", "", "日本語"], 3) == ["abc", "def", "g", "", "日", "本", "語"]


async def test_an_inspect_view_opens_in_a_panel_and_a_dialog_closes_it(
    make_app, wait_for, transcript_text
):
    touch = [{"name": "run_command", "arguments": {"command": "touch made.txt"}}]
    app = make_app([{"text": "Done.", "thinking": THOUGHT}, {"text": "", "tool_calls": touch}])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await send(pilot, "think")
        await wait_for(pilot, lambda: not app.prompt.is_busy and len(folds(app)) == 1)
        await pilot.press(*"/inspect context next", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, Panel))
        assert app.screen.body.border_title == " context · next request "
        assert app.screen.body.rows[0] == "# The context the next request carries"
        await pilot.press("escape")

        await pilot.press("ctrl+o")  # the thought, the last output, shows until a dialog comes
        assert isinstance(app.screen, Panel)
        await app.backend.message("touch")  # as the input would send it
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert not any(isinstance(screen, Panel) for screen in app.screen_stack)
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.prompt.is_busy)
