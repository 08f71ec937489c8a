"""The context meter and the Ctrl-T context panel (docs/tui.md, "Status line", "The context
panel"), on a real `wisp chat --json -m script:FILE` with a declared window."""

from __future__ import annotations

from pathlib import Path

import pytest

from wisp.protocol import View
from wisp_tui.app import WispApp
from wisp_tui.screens.panel import Panel

SIZE = (100, 30)
WINDOW = 4096

READ = [{"name": "read_file", "arguments": {"path": "notes.txt"}}]


async def started(pilot, wait_for) -> WispApp:
    app = pilot.app
    await wait_for(pilot, lambda: app.status_bar.status is not None)
    return app


async def send(pilot, wait_for, text: str) -> None:
    """Type `text` (no spaces) and Enter, and wait for the turn to end."""
    app = pilot.app
    await pilot.press(*text, "enter")
    await wait_for(
        pilot, lambda: app.status_bar.turn.seconds is not None and not app.prompt.is_busy
    )


def meter(app: WispApp) -> str:
    """The status line's model and meter: `script:…:NN% used`, or the model alone."""
    return app.status_bar.render().plain.split(" · ")[0]


def context_panel(app: WispApp) -> Panel | None:
    screen = app.screen
    return screen if isinstance(screen, Panel) and screen.kind == "context" else None


def title(app: WispApp) -> str | None:
    panel = context_panel(app)
    return None if panel is None else str(panel.body.border_title)


def record_views(app: WispApp) -> list[int | None]:
    """The turns of the context views wisp answers with, in order (None: the next request)."""
    views: list[int | None] = []
    show = app.panels.show_view

    async def recording(view: View) -> None:
        views.append(view.turn)
        await show(view)

    app.panels.show_view = recording  # type: ignore[method-assign]
    return views


async def test_the_meter_moves_with_every_request_not_only_between_turns(
    make_app, tmp_path: Path, wait_for
):
    go_on = tmp_path / "go-on"
    app = make_app(
        [
            {"text": "", "tool_calls": READ, "usage": {"input": 1024, "output": 10}},
            {
                "text": "Read it.",
                "wait_for_file": str(go_on),
                "usage": {"input": 3400, "output": 5},
            },
        ],
        context_size=WINDOW,
    )
    (tmp_path / "home" / "work").mkdir(parents=True, exist_ok=True)
    (tmp_path / "home" / "work" / "notes.txt").write_text("a note\n")
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, wait_for)
        assert "% used" not in meter(app)  # nothing asked yet: no share to show
        await pilot.press(*"read", "enter")
        # The first request's fill shows while the turn still runs (the second reply waits).
        await wait_for(pilot, lambda: meter(app).endswith(":25% used"))
        assert app.status_bar.turn.is_running
        go_on.touch()
        await wait_for(pilot, lambda: meter(app).endswith(":83% used"))
        await wait_for(pilot, lambda: not app.status_bar.turn.is_running)
        assert meter(app).endswith(":83% used")


async def test_ctrl_t_opens_the_next_requests_context_and_closes_it(
    make_app, wait_for, transcript_text
):
    app = make_app([{"text": "One."}, {"text": "Two."}], context_size=WINDOW)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, wait_for)
        await send(pilot, wait_for, "first")
        await send(pilot, wait_for, "second")
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: context_panel(app) is not None)
        panel = context_panel(app)
        assert panel is not None
        body = panel.body
        assert body.border_title == " context · next request "
        assert body.border_subtitle == " ↑↓ scroll · ←→ turns · esc close "
        assert body.scroll_offset.y == 0 and "/inspect" not in transcript_text(app)
        await pilot.press("down", "down")
        assert body.scroll_offset.y == min(2, body.max_scroll_y)
        await pilot.press("pagedown")
        assert body.scroll_offset.y == min(18, body.max_scroll_y)
        await pilot.press("up")
        assert body.scroll_offset.y == min(18, body.max_scroll_y) - 1
        await pilot.press("ctrl+t")  # in the context panel: closes it
        assert context_panel(app) is None and not app.is_panel_shown
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: context_panel(app) is not None)
        await pilot.press("escape")
        assert not app.is_panel_shown and app.panels.context_asked is None


async def test_left_and_right_step_through_the_turns_one_request_at_a_time(make_app, wait_for):
    app = make_app([{"text": "One."}, {"text": "Two."}], context_size=WINDOW)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, wait_for)
        await send(pilot, wait_for, "first")
        await send(pilot, wait_for, "second")
        views = record_views(app)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: title(app) == " context · next request ")

        async def step(key: str, shown: str) -> None:
            await pilot.press(key)
            await wait_for(pilot, lambda: title(app) == shown and app.panels.context_asked is None)
            assert context_panel(app).body.scroll_offset.y == 0  # each view opens at its top

        await step("left", " context · turn 2 ")
        await step("left", " context · turn 1 ")
        await pilot.press("left")  # never below turn 1: nothing is asked
        assert app.panels.context_asked is None
        await step("right", " context · turn 2 ")
        await step("right", " context · next request ")
        await pilot.press("right")  # already the next request
        assert app.panels.context_asked is None
        assert views == [None, 2, 1, 2, None]

        # Two Lefts at once: the second comes while the first is unanswered, and is ignored.
        panel = context_panel(app)
        panel.action_step_turn(-1)
        panel.action_step_turn(-1)
        await wait_for(
            pilot, lambda: title(app) == " context · turn 2 " and not app.panels.context_asked
        )
        await step("right", " context · next request ")
        assert views[5:] == [2, None]


async def test_a_note_answering_a_step_clears_it(make_app, wait_for, transcript_text):
    app = make_app([{"text": "One."}], context_size=WINDOW)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, wait_for)
        await send(pilot, wait_for, "first")
        # A panel that believes in nine turns: its Left asks wisp for one it does not have.
        await app.push_screen(Panel("context · next request", "…", kind="context", turns=9))
        await pilot.press("left")
        await wait_for(pilot, lambda: "no turn 9" in transcript_text(app))
        assert app.panels.context_asked is None and title(app) == " context · next request "
        await pilot.press("left")  # asked again: nothing was left outstanding
        await wait_for(pilot, lambda: transcript_text(app).count("no turn 9") == 2)


async def test_ctrl_t_does_nothing_while_a_turn_runs_and_other_panels_keep_their_hint(
    make_app, tmp_path: Path, wait_for
):
    go_on = tmp_path / "go-on"
    app = make_app([{"text": "Slowly.", "wait_for_file": str(go_on)}], context_size=WINDOW)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, wait_for)
        await pilot.press(*"slow", "enter")
        await wait_for(pilot, lambda: app.status_bar.turn.is_running)
        await pilot.press("ctrl+t")
        assert app.panels.context_asked is None and not app.is_panel_shown
        go_on.touch()
        await wait_for(pilot, lambda: not app.prompt.is_busy)
        await pilot.press(*"/inspect context turns", "enter")
        await wait_for(pilot, lambda: app.is_panel_shown)
        assert app.screen.body.border_title == " context · turns "
        assert app.screen.body.border_subtitle == " ↑↓ scroll · esc close "
        await pilot.press("left")  # not a context panel: no turns to step through
        assert app.panels.context_asked is None
        await pilot.press("ctrl+t")  # from another panel: the context panel instead
        await wait_for(pilot, lambda: title(app) == " context · next request ")


@pytest.mark.parametrize(
    ("turn", "turns", "step", "shown"),
    [
        (None, 4, -1, 4), (None, 0, -1, None), (None, 4, 1, None),
        (4, 4, -1, 3), (1, 4, -1, 1), (3, 4, 1, 4), (4, 4, 1, None),
    ],
)  # fmt: skip
def test_stepped_turn(turn: int | None, turns: int, step: int, shown: int | None) -> None:
    from wisp_tui.screens.panel import stepped_turn

    assert stepped_turn(turn, turns, step) == shown
