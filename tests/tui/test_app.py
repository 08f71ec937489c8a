"""Pilot tests: WispApp driving a real `wisp chat --json -m script:FILE`."""

from __future__ import annotations

import os
import signal

from wisp_tui.screens.approval import ApprovalScreen
from wisp_tui.screens.question import QuestionScreen

REPLY_WITH_CITATION = [
    {"text": "", "tool_calls": [{"name": "current_date", "arguments": {}}]},
    {"text": "All **done**, as entry 42 says."},
]


async def send(pilot, text: str) -> None:
    pilot.app.prompt.text = text
    await pilot.press("enter")


async def test_a_message_gets_the_reply_with_its_ran_and_cited_lines(
    make_app, wait_for, transcript_text
):
    app = make_app(REPLY_WITH_CITATION)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: "cited but not in this conversation" in transcript_text(app))
        await wait_for(pilot, lambda: not app.prompt.is_busy)
        text = transcript_text(app)
        assert "› hello" in text
        assert "All **done**, as entry 42 says." in text
        assert "⚙ current_date" in text
        assert "ran: current_date" in text
        assert "cited but not in this conversation: entry 42" in text
        assert text.index("All **done**") < text.index("ran: current_date") < text.index("cited")


async def test_a_moderate_command_asks_and_a_key_in_the_grace_never_answers(
    make_app, wait_for, transcript_text, end_grace
):
    app = make_app(
        [
            {
                "text": "",
                "tool_calls": [{"name": "run_command", "arguments": {"command": "touch made.txt"}}],
            },
            {"text": "Made it."},
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await send(pilot, "make a file")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        screen = app.screen
        assert screen.approval.level == "moderate"
        await pilot.press("y", "y")  # in the grace: held back, never an answer
        await pilot.pause()
        assert app.screen is screen and not screen.is_taking_keys
        assert not (app.backend._cwd / "made.txt").exists()
        end_grace(screen)  # the quiet has lasted long enough
        await pilot.press("y")
        await wait_for(pilot, lambda: "Made it." in transcript_text(app))
        text = transcript_text(app)
        assert "⚠ approved for this turn: touch made.txt" in text
        assert "⚙ run_command touch made.txt" in text
        assert "ran: run_command" in text
        assert "↳ exit 0" in text
        assert (app.backend._cwd / "made.txt").exists()


async def test_ctrl_c_refuses_an_approval_at_once(make_app, wait_for, transcript_text):
    app = make_app(
        [
            {
                "text": "",
                "tool_calls": [{"name": "run_command", "arguments": {"command": "touch made.txt"}}],
            },
            {"text": "Not made."},
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await send(pilot, "make a file")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: "Not made." in transcript_text(app))
        assert "⚠ refused: touch made.txt" in transcript_text(app)
        assert not (app.backend._cwd / "made.txt").exists()


async def test_the_typed_answer_to_a_question_reaches_the_model(
    make_app, wait_for, transcript_text, tmp_path
):
    app = make_app(
        [
            {
                "text": "",
                "tool_calls": [{"name": "ask", "arguments": {"question": "Which branch?"}}],
            },
            {"text": "Thanks."},
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await send(pilot, "ask me")
        await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen))
        screen = app.screen
        await wait_for(pilot, lambda: screen.is_taking_keys)
        await pilot.press(*"staging", "enter")
        await wait_for(pilot, lambda: "Thanks." in transcript_text(app))
        assert "answered: staging" in transcript_text(app)
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app.return_code is not None)
    # The model's second request carried the answer as the tool result.
    log = "\n".join(path.read_text() for path in (tmp_path / "home" / ".wisp").rglob("*.jsonl"))
    assert "staging" in log


async def test_ctrl_c_at_idle_quits_cleanly(make_app, wait_for):
    app = make_app(REPLY_WITH_CITATION)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 0
    assert app.backend.returncode == 0


async def test_ctrl_d_at_idle_quits_cleanly(make_app, wait_for):
    app = make_app(REPLY_WITH_CITATION)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 0


async def test_a_killed_backend_shows_an_error(make_app, wait_for, transcript_text):
    app = make_app(REPLY_WITH_CITATION)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        os.kill(app.backend._process.pid, signal.SIGKILL)
        await wait_for(pilot, lambda: "error: wisp stopped unexpectedly" in transcript_text(app))
        assert "signal 9" in transcript_text(app)
        entry = app.transcript.children[-1]
        assert entry.has_class("-error")


async def test_a_bang_at_the_start_enters_command_mode(make_app, wait_for):
    app = make_app(REPLY_WITH_CITATION)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await pilot.press("!")
        assert app.prompt.is_command_mode
        assert app.prompt.text == ""
        await pilot.press("backspace")
        assert not app.prompt.is_command_mode
