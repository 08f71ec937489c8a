"""Approvals a `wisp mcp` server waits on, in wisp-tui's dialog (docs/tui.md, "Dialogs"): a
request filed by a real OutOfBandApprover in this process, relayed by the real `wisp chat
--json` behind the app, answered with a key, or withdrawn when it stops waiting."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.cli.answering.test_approvals import Thread
from tests.hang import HANG
from wisp_tui.screens.approval import ApprovalScreen

REPLY = [{"text": "Hi."}]


def relayed_dialog(app) -> ApprovalScreen | None:
    screen = app.screen
    if isinstance(screen, ApprovalScreen) and screen.approval.source == "mcp":
        return screen
    return None


async def test_a_request_from_wisp_mcp_is_shown_with_where_it_waits_and_answered(
    make_app, tmp_path: Path, wait_for, transcript_text, end_grace
):
    app = make_app(REPLY, tmp_path / "home")
    thread = Thread(tmp_path / "home" / ".wisp")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        asking = thread.ask()
        await wait_for(pilot, lambda: relayed_dialog(app) is not None)
        screen = relayed_dialog(app)
        assert screen is not None
        await wait_for(pilot, lambda: bool(screen.query("#origin")))
        box = screen.query_one("#box")
        assert box.border_title == "approve · moderate · wisp mcp"
        origin = str(screen.query_one("#origin").render())
        assert origin == "waiting in wisp mcp for claude-code, thread release"
        end_grace(screen)
        await pilot.press("s")
        await wait_for(pilot, asking.done)
        assert asking.result().approved
        settled = thread.settled()
        assert (settled.via, settled.decision) == ("tui", "session")
        assert "⚠ approved for this session: git push origin main" in transcript_text(app)


async def test_a_request_that_stops_waiting_closes_its_dialog(
    make_app, tmp_path: Path, wait_for, transcript_text
):
    app = make_app(REPLY, tmp_path / "home")
    thread = Thread(tmp_path / "home" / ".wisp")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        asking = thread.ask()
        await wait_for(pilot, lambda: relayed_dialog(app) is not None)
        asking.cancel()  # the MCP client cancelled its call
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(asking, HANG)
        await wait_for(pilot, lambda: relayed_dialog(app) is None)
        await wait_for(
            pilot, lambda: "⚠ no longer waiting: git push origin main" in transcript_text(app)
        )
        assert thread.settled().outcome == "abandoned"


async def test_a_request_from_wisp_mcp_waits_behind_a_half_typed_line(
    make_app, tmp_path: Path, wait_for, transcript_text, end_grace
):
    app = make_app(REPLY, tmp_path / "home")
    thread = Thread(tmp_path / "home" / ".wisp")
    note = "⚠ waiting in wisp mcp: git push origin main · its dialog opens when the input is empty"
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        app.prompt.text = "half a thou"
        asking = thread.ask()
        await wait_for(pilot, lambda: note in transcript_text(app))
        assert relayed_dialog(app) is None
        assert app.status_bar.waiting == 1
        assert "⚠ 1 waiting" in str(app.status_bar.render())
        await pilot.press("g", "h", "t")  # typing carries on
        assert app.prompt.text == "half a thought"
        app.prompt.text = ""
        await wait_for(pilot, lambda: relayed_dialog(app) is not None)
        assert app.status_bar.waiting == 0
        screen = relayed_dialog(app)
        end_grace(screen)
        await pilot.press("y")
        await wait_for(pilot, asking.done)
        assert asking.result().approved
        assert transcript_text(app).count(note) == 1


async def test_a_fact_a_wisp_mcp_caller_proposes_is_kept_from_its_own_dialog(
    make_app, tmp_path: Path, wait_for, transcript_text, end_grace
):
    from tests.desk.fact_thread import FactThread
    from wisp_tui.screens.fact import FactScreen

    thread = FactThread(tmp_path / "home" / ".wisp")
    app = make_app(REPLY, tmp_path / "home")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        thread.propose()
        await wait_for(pilot, lambda: isinstance(app.screen, FactScreen))
        screen = app.screen
        assert screen.query_one("#box").border_title == "keep fact · wisp mcp"
        assert str(screen.query_one("#fact").render()) == "release codename = BLUE HERON"
        origin = str(screen.query_one("#origin").render())
        assert origin == "proposed by the caller; waiting in wisp mcp for zed, thread git"
        end_grace(screen)
        await pilot.press("k")
        await wait_for(pilot, lambda: bool(thread.applied))
        await asyncio.wait_for(thread.keeper.settled(), HANG)
        assert thread.applied == [("c1", "keep")]
        assert "⚠ kept for every conversation: release codename = BLUE HERON" in transcript_text(
            app
        )
