"""Snapshots of the states around a turn: streaming, an error, a dead wisp, quitting, the
choice dialog, and a command a `wisp mcp` server waits on. A fake wisp (`fake_wisp.py`) holds a
state still where the real one moves on: a turn left streaming, a choice no slash command sends
yet, a wisp that will not exit, a relayed request with the same id on every run."""

from __future__ import annotations

import os
import signal

from .conftest import freeze_turn_clock
from .test_dialogs import LEVELS

SIZE = (100, 30)

STREAMING = [
    {"type": "turn", "phase": "start", "turn": 1},
    {"type": "activity", "doing": "waiting for the model", "stoppable": True, "turnSeconds": 0},
    {"type": "delta", "text": "## Plan\n\nFirst I read the **config**, then:\n\n- check `git "},
    {"type": "delta", "text": "status`\n- run the tests\n\n```sh\npytest -q\n"},
]


async def started(pilot, wait_for) -> None:
    await wait_for(pilot, lambda: pilot.app.status_bar.status is not None)
    await pilot.pause()


def test_streaming(snap_compare, make_fake_app, wait_for, transcript_text):
    app = make_fake_app(STREAMING)

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        await wait_for(pilot, lambda: "pytest -q" in transcript_text(app))
        freeze_turn_clock(app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_an_error(snap_compare, make_app, snapshot_home, wait_for, transcript_text):
    app = make_app(
        [
            {"text": "", "tool_calls": [{"name": "read_file", "arguments": {"path": "gone.txt"}}]},
            {"text": "There is no gone.txt."},
        ],
        snapshot_home,
    )

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        await pilot.press(*"read gone.txt", "enter")
        await wait_for(pilot, lambda: "ran: read_file" in transcript_text(app))
        await wait_for(pilot, lambda: not app.prompt.is_busy)
        app.status_bar.turn = app.status_bar.turn.__class__(
            number=1, seconds=0.4, outcome="ok"
        )  # the turn's wall time differs run to run
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_a_dead_backend(snap_compare, make_app, snapshot_home, wait_for, transcript_text):
    app = make_app([{"text": "Hi."}], snapshot_home)

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        os.kill(app.backend._process.pid, signal.SIGKILL)
        await wait_for(pilot, lambda: "stopped unexpectedly" in transcript_text(app))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_quitting(snap_compare, make_fake_app, wait_for):
    app = make_fake_app([{"type": "note", "text": "a wisp that will not exit"}], stuck=True)

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app.is_quitting)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_a_choice_with_options(snap_compare, make_fake_app, wait_for):
    app = make_fake_app([LEVELS])

    async def run_before(pilot) -> None:
        from wisp_tui.screens.choice import ChoiceScreen

        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await wait_for(pilot, lambda: app.screen.is_taking_keys)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_a_choice_with_free_text(snap_compare, make_fake_app, wait_for):
    timeout = {"type": "choice", "id": "c2", "title": "timeout in seconds", "acceptsText": True}
    app = make_fake_app([timeout])

    async def run_before(pilot) -> None:
        from wisp_tui.screens.choice import ChoiceScreen

        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await wait_for(pilot, lambda: app.screen.is_taking_keys)
        await pilot.press(*"120")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_a_wisp_that_could_not_start(
    snap_compare, make_app, snapshot_home, wait_for, transcript_text
):
    config = snapshot_home / ".wisp" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text("{bad\n")
    app = make_app([{"text": "Hi."}], snapshot_home)

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: "start wisp-tui again" in transcript_text(app))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


MCP_APPROVAL = {
    "type": "approval",
    "id": "mcp-a1b2c3d4",
    "command": "git push origin main",
    "line": "git push origin main",
    "pattern": "git push *",
    "directory": "/srv/app",
    "level": "moderate",
    "reasons": ["pushes to a remote"],
    "source": "mcp",
    "thread": "release",
    "client": "claude-code",
    "request": "a1b2c3d4",
}


def test_an_approval_from_wisp_mcp(snap_compare, make_fake_app, wait_for):
    app = make_fake_app([MCP_APPROVAL])

    async def run_before(pilot) -> None:
        from wisp_tui.screens.approval import ApprovalScreen

        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await wait_for(pilot, lambda: app.screen.is_taking_keys)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


GUIDANCE_TEXT = "# app\n\nRun the tests with `make check` before you commit.\nNever push to main.\n"
GUIDANCE = {
    "type": "approval",
    "id": "g1",
    "command": "/srv/app/AGENTS.md",
    "line": "/srv/app/AGENTS.md",
    "pattern": "",
    "directory": "/srv/app",
    "level": "moderate",
    "reasons": ["not accepted yet"],
    "kind": "guidance",
    "guidance": {
        "path": "/srv/app/AGENTS.md",
        "bytes": len(GUIDANCE_TEXT),
        "sha256": "0" * 64,
        "text": GUIDANCE_TEXT,
        "reason": "not accepted yet",
    },
}


def test_a_guidance_file_to_accept(snap_compare, make_fake_app, wait_for):
    app = make_fake_app([GUIDANCE])

    async def run_before(pilot) -> None:
        from wisp_tui.screens.guidance import GuidanceScreen

        await wait_for(pilot, lambda: isinstance(app.screen, GuidanceScreen))
        await wait_for(pilot, lambda: app.screen.is_taking_keys)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
