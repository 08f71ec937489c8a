"""Snapshots (docs/tui.md, "Tests and snapshots") of the screens a person sees, driven by a real
`wisp chat --json -m script:`."""

from __future__ import annotations

import msgspec

from wisp_tui.screens.approval import ApprovalScreen
from wisp_tui.screens.question import QuestionScreen

from .conftest import freeze_turn_clock

SIZE = (100, 30)


def command(text: str) -> list[dict]:
    return [
        {"text": "", "tool_calls": [{"name": "run_command", "arguments": {"command": text}}]},
        {"text": "Done."},
    ]


async def started(pilot, wait_for) -> None:
    await wait_for(pilot, lambda: pilot.app.status_bar.status is not None)
    await pilot.pause()


async def send(pilot, text: str) -> None:
    pilot.app.prompt.text = text
    await pilot.press("enter")


def test_idle(snap_compare, make_app, snapshot_home, wait_for):
    app = make_app([{"text": "Hi."}], snapshot_home)

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_reply_with_ran_and_cited_lines(
    snap_compare, make_app, snapshot_home, wait_for, transcript_text
):
    app = make_app(
        [
            {"text": "", "tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
            {"text": "It says **hello**. Use `git log`, as entry 42 says.\n\n- one\n- two"},
        ],
        snapshot_home,
    )
    (snapshot_home / "work" / "notes.txt").write_text("hello\nworld\n")

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        await send(pilot, "what do the notes say?")
        await wait_for(pilot, lambda: "cited but not" in transcript_text(app))
        await wait_for(pilot, lambda: not app.prompt.is_busy)
        # The turn's wall time differs run to run; the picture fixes it.
        app.status_bar.turn = msgspec.structs.replace(app.status_bar.turn, seconds=1.5)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def _approval_snapshot(snap_compare, app, wait_for, level: str) -> bool:
    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        await send(pilot, "go")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert app.screen.approval.level == level
        freeze_turn_clock(app)
        await pilot.pause()

    return snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_approval_moderate(snap_compare, make_app, snapshot_home, wait_for):
    app = make_app(command("touch made.txt"), snapshot_home)
    assert _approval_snapshot(snap_compare, app, wait_for, "moderate")


def test_approval_dangerous(snap_compare, make_app, snapshot_home, wait_for):
    app = make_app(command("rm -rf build"), snapshot_home)
    assert _approval_snapshot(snap_compare, app, wait_for, "dangerous")


def test_fact_to_keep(snap_compare, make_app, snapshot_home, wait_for):
    """A fact a `wisp mcp` caller proposes to keep, filed on the desk as its keeper files it."""
    import os

    from wisp.desk.channel import file_request
    from wisp.desk.fact import FACT, FactProposal
    from wisp_tui.screens.fact import FactScreen

    app = make_app([{"text": "Hi."}], snapshot_home)
    proposal = FactProposal(
        id="3f9a1c2e", thread="release", client="claude-code", pid=os.getpid(), created=0,
        fact="c1", subject="release", name="codename", value="BLUE HERON", source="caller",
    )  # fmt: skip

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        file_request(snapshot_home / ".wisp", FACT, proposal)
        await wait_for(pilot, lambda: isinstance(app.screen, FactScreen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_question_with_options(snap_compare, make_app, snapshot_home, wait_for):
    app = make_app(
        [
            {
                "text": "",
                "tool_calls": [
                    {
                        "name": "ask",
                        "arguments": {
                            "question": "Which branch should I deploy?",
                            "options": ["main", "staging"],
                        },
                    }
                ],
            },
            {"text": "Thanks."},
        ],
        snapshot_home,
    )

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        await send(pilot, "deploy")
        await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen))
        await wait_for(pilot, lambda: app.screen.is_taking_keys)
        freeze_turn_clock(app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_question_with_free_text(snap_compare, make_app, snapshot_home, wait_for):
    app = make_app(
        [
            {
                "text": "",
                "tool_calls": [
                    {
                        "name": "ask",
                        "arguments": {
                            "question": "What should the release be called?",
                        },
                    }
                ],
            },
            {"text": "Thanks."},
        ],
        snapshot_home,
    )

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        await send(pilot, "release")
        await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen))
        await wait_for(pilot, lambda: app.screen.is_taking_keys)
        await pilot.press(*"aurora")
        freeze_turn_clock(app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_input_on_two_lines(snap_compare, make_app, snapshot_home, wait_for):
    app = make_app([{"text": "Hi."}], snapshot_home)

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        await pilot.press(*"Summarise this:", "ctrl+j", *"the second line")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_input_in_command_mode(snap_compare, make_app, snapshot_home, wait_for):
    app = make_app([{"text": "Hi."}], snapshot_home)

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        await pilot.press(*"!git status")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_busy_with_keys_held(snap_compare, make_app, snapshot_home, wait_for):
    app = make_app([{"text": "Hi."}], snapshot_home)

    async def run_before(pilot) -> None:
        await started(pilot, wait_for)
        # Busy as during a turn, without a reply streaming into the picture meanwhile.
        app.prompt.is_busy = True
        app.prompt.busy_text = "… working: read_file README.md · Ctrl-C stops it"
        await pilot.press(*"next")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
