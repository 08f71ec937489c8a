"""The status line (docs/tui.md, "Status line"): fitting a narrow screen, and the running turn's
seconds."""

from __future__ import annotations

from textual.app import App, ComposeResult

from wisp.protocol import Status
from wisp_tui.palette import CSS_VARIABLES
from wisp_tui.widgets.status_bar import StatusBar, TurnState

LONG_MODEL = "script:/tmp/wisp-tui-snapshots/test_approval_moderate/work/script.json"


class Bar(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(CSS_VARIABLES)

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")


def status(model: str = "local", directory: str = "~/src/github.com/me/wisp") -> Status:
    return Status(
        model=model, directory=directory, branch="main", approval="approve at moderate",
        sandbox=True,
    )  # fmt: skip


async def test_a_narrow_line_shortens_the_directory_then_cuts_the_model_never_the_right() -> None:
    app = Bar()
    async with app.run_test(size=(62, 3)) as pilot:
        bar = app.query_one(StatusBar)
        bar.status = status()
        await pilot.pause()
        assert bar.render().plain.startswith("local · ~/src/github.com/me/wisp:main")
        await pilot.resize_terminal(60, 3)
        assert bar.render().plain.startswith("local · …/wisp:main")
        bar.status = status(model=LONG_MODEL)
        await pilot.pause()
        line = bar.render().plain
        assert line.endswith("approve at moderate")
        assert "…/wisp:main" in line and "script:/tmp/" in line and "…" in line.split(" · ")[0]
        assert len(line) <= 60


async def test_a_running_turn_counts_its_seconds_from_wisps_clock() -> None:
    app = Bar()
    async with app.run_test(size=(100, 3)) as pilot:
        bar = app.query_one(StatusBar)
        bar.status = status()
        bar.turn = TurnState(number=3, is_running=True)
        await pilot.pause()
        assert "turn 3… · 0 s" in bar.render().plain
        bar.sync_seconds(12.4)
        assert "turn 3… · 12 s" in bar.render().plain
        for nonsense in (float("nan"), float("inf")):
            bar.sync_seconds(nonsense)  # ignored
            assert "turn 3… · 12 s" in bar.render().plain
        bar.sync_seconds(-5)
        assert "turn 3… · 0 s" in bar.render().plain
        bar.sync_seconds(10**12)
        assert "turn 3… · 86400 s" in bar.render().plain
        bar.turn = TurnState(number=3, seconds=4.2)
        await pilot.pause()
        assert bar.render().plain.endswith("approve at moderate · last:4.2s")
        assert bar._ticker is None  # nothing ticks between turns


def test_the_context_meter_colours_by_share_and_a_null_share_shows_none() -> None:
    from wisp_tui import palette
    from wisp_tui.widgets.status_bar import context_meter

    assert context_meter(0.494) == (":49% used", palette.MIST)
    assert context_meter(0.5) == (":50% used", palette.GLOW)
    assert context_meter(0.8) == (":80% used", palette.AMBER)
    assert context_meter(1.3) == (":130% used", palette.AMBER)  # an overflow says so


async def test_the_meter_shows_the_latest_share_and_none_when_it_is_unknown() -> None:
    app = Bar()
    async with app.run_test(size=(100, 3)) as pilot:
        bar = app.query_one(StatusBar)
        bar.status = status()
        bar.context_used = 0.42
        await pilot.pause()
        assert bar.render().plain.startswith("local:42% used · ~/src")
        bar.context_used = None
        await pilot.pause()
        assert bar.render().plain.startswith("local · ~/src")
