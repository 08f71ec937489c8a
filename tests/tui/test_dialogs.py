"""Choices, withdrawn requests and the queue (docs/tui.md, "Dialogs"), against a fake wisp that
sends what no slash command sends yet and echoes every answer back as a `heard:` note."""

from __future__ import annotations

import json
import time

import pytest
from textual.events import Key

from wisp_tui.screens.approval import ApprovalScreen
from wisp_tui.screens.choice import ChoiceScreen
from wisp_tui.screens.dialog import GRACE_SECONDS, Dialog
from wisp_tui.screens.question import QuestionScreen

LEVELS = {
    "type": "choice",
    "id": "c1",
    "title": "approval level",
    "options": [
        {"value": "moderate", "label": "moderate", "detail": "ask for moderate and above"},
        {"value": "dangerous", "label": "dangerous", "detail": "ask only for dangerous"},
        {"value": "never", "label": "never"},
    ],
    "current": "moderate",
}
TIMEOUT = {"type": "choice", "id": "c2", "title": "timeout in seconds", "acceptsText": True}


def heard(app, transcript_text) -> list[dict]:
    """The lines the fake wisp heard from the app, oldest first."""
    prefix = "heard: "
    return [
        json.loads(line[len(prefix) :])
        for line in transcript_text(app).splitlines()
        if line.startswith(prefix)
    ]


async def choice_shown(pilot, wait_for) -> ChoiceScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen))
    screen = pilot.app.screen
    await wait_for(pilot, lambda: screen.is_taking_keys)
    return screen


async def test_a_choice_opens_on_the_current_value_and_enter_chooses_the_highlight(
    make_fake_app, wait_for, transcript_text, end_grace
):
    app = make_fake_app([LEVELS])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        screen = app.screen
        await pilot.press("down", "enter")  # in the grace: neither moves nor answers
        await pilot.pause()
        assert app.screen is screen and not heard(app, transcript_text)
        end_grace(screen)
        await pilot.pause()
        await pilot.press("down", "down", "down", "up", "enter")  # stops at the last row
        await wait_for(pilot, lambda: heard(app, transcript_text))
        assert heard(app, transcript_text) == [{"type": "choose", "id": "c1", "value": "dangerous"}]


async def test_under_a_dialog_the_main_screens_keys_do_nothing_and_ctrl_q_is_ctrl_c(
    make_fake_app, wait_for, transcript_text, end_grace
):
    app = make_fake_app([LEVELS])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        screen = app.screen
        end_grace(screen)
        await pilot.press("ctrl+o", "ctrl+t", "f1", "ctrl+g")  # no panel, nothing asked of wisp
        await pilot.pause()
        assert app.screen is screen and not heard(app, transcript_text)
        await pilot.press("ctrl+q")  # as Ctrl-C: leaves it unanswered, and does not quit
        await wait_for(pilot, lambda: heard(app, transcript_text))
        assert heard(app, transcript_text) == [{"type": "choose", "id": "c1", "value": None}]
        assert not isinstance(app.screen, ChoiceScreen) and not app.is_quitting


async def test_esc_and_ctrl_c_leave_a_choice_unanswered(make_fake_app, wait_for, transcript_text):
    app = make_fake_app([LEVELS, {**LEVELS, "id": "c3"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await choice_shown(pilot, wait_for)
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(heard(app, transcript_text)) == 1)
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("ctrl+c")  # at once, grace or not
        await wait_for(pilot, lambda: len(heard(app, transcript_text)) == 2)
        assert not isinstance(app.screen, ChoiceScreen)
        answers = heard(app, transcript_text)
    assert [(line["id"], line["value"]) for line in answers] == [("c1", None), ("c3", None)]


async def test_typed_text_answers_a_choice_that_takes_it(make_fake_app, wait_for, transcript_text):
    app = make_fake_app([TIMEOUT])
    async with app.run_test(size=(80, 24)) as pilot:
        await choice_shown(pilot, wait_for)
        await pilot.press("enter")  # nothing typed, no options: leaves it
        await wait_for(pilot, lambda: heard(app, transcript_text))
        assert heard(app, transcript_text) == [{"type": "choose", "id": "c2", "value": None}]

    app = make_fake_app([{**TIMEOUT, "id": "c4"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await choice_shown(pilot, wait_for)
        await pilot.press(*" 120 ", "enter")
        await wait_for(pilot, lambda: heard(app, transcript_text))
        assert heard(app, transcript_text) == [{"type": "choose", "id": "c4", "value": "120"}]


QUESTION = {"type": "question", "id": "q1", "question": "Which branch?", "options": []}


async def test_a_withdrawn_question_closes_with_a_note_and_the_next_one_opens(
    make_fake_app, wait_for, transcript_text
):
    second = {**QUESTION, "id": "q2", "question": "Which remote?"}
    app = make_fake_app([QUESTION, second, {"type": "withdrawn", "id": "q1"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "no longer waiting" in transcript_text(app))
        assert "⚠ no longer waiting: Which branch?" in transcript_text(app)
        await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen))
        assert app.screen.question.question == "Which remote?"
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: heard(app, transcript_text))
        # Only the question still asked is answered; nothing goes back for the withdrawn one.
        assert heard(app, transcript_text) == [{"type": "answer", "id": "q2", "declined": True}]


async def test_a_queued_request_withdrawn_is_dropped_silently(
    make_fake_app, wait_for, transcript_text
):
    second = {**QUESTION, "id": "q2", "question": "Which remote?"}
    app = make_fake_app([QUESTION, second, {"type": "withdrawn", "id": "q2"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen))
        screen = app.screen
        await wait_for(pilot, lambda: screen.is_taking_keys)
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: heard(app, transcript_text))
        await pilot.pause()
        assert not isinstance(app.screen, QuestionScreen)  # q2 never opens
        assert "no longer waiting" not in transcript_text(app)
        assert heard(app, transcript_text) == [{"type": "answer", "id": "q1", "declined": True}]


APPROVAL = {
    "type": "approval", "id": "a1", "command": "touch made", "line": "touch made",
    "pattern": "touch *", "directory": "/tmp", "level": "moderate",
}  # fmt: skip


async def test_a_key_in_the_grace_starts_the_quiet_again(
    make_fake_app, wait_for, monkeypatch: pytest.MonkeyPatch
):
    # Each key that reaches the dialog is noted with whether its grace was over then. Only a
    # lower bound on time is checked: a slow machine can make the grace look longer, not shorter.
    reached: list[tuple[float, bool]] = []
    on_key = Dialog.on_key

    def noting(self: Dialog, event: Key) -> None:
        reached.append((time.monotonic(), self.is_taking_keys))
        on_key(self, event)

    monkeypatch.setattr(Dialog, "on_key", noting)
    app = make_fake_app([APPROVAL])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        screen = app.screen
        await pilot.press("x")  # not an answer, in the grace or after it
        await pilot.press("x")
        await wait_for(pilot, lambda: screen.is_taking_keys)
        over = time.monotonic()
    in_grace = [at for at, is_over in reached if not is_over]
    if in_grace:  # none: the machine was too slow to type inside the grace at all
        assert over - in_grace[-1] >= GRACE_SECONDS


@pytest.mark.parametrize(
    ("line", "screen_type"),
    [(APPROVAL, ApprovalScreen), (QUESTION, QuestionScreen), (TIMEOUT, ChoiceScreen)],
)
async def test_each_dialog_starts_one_grace(
    make_fake_app, wait_for, monkeypatch: pytest.MonkeyPatch, line, screen_type
):
    # Textual calls every on_mount along the class's MRO: a dialog that also called its base's
    # started a second grace timer, which a key typed in the grace did not reset, so the
    # dialog took keys 500 ms after it opened whatever was typed.
    started: list[Dialog] = []
    on_mount = Dialog.on_mount

    def noting(self: Dialog) -> None:
        started.append(self)
        on_mount(self)

    monkeypatch.setattr(Dialog, "on_mount", noting)
    app = make_fake_app([line])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, screen_type))
        await wait_for(pilot, lambda: app.screen.is_taking_keys)
        assert started == [app.screen]


async def test_a_guidance_file_is_shown_whole_and_y_uses_it(
    make_fake_app, wait_for, transcript_text, end_grace
):
    from textual.widgets import Static

    from wisp_tui.screens.guidance import GuidanceScreen

    from .test_snapshots_states import GUIDANCE

    app = make_fake_app([GUIDANCE, {**GUIDANCE, "id": "g2"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GuidanceScreen))
        screen = app.screen
        await wait_for(pilot, lambda: bool(screen.query("#body")))
        assert "Never push to main." in str(screen.query_one("#body", Static).render())
        await pilot.press("y")  # in the grace: no answer
        await pilot.pause()
        assert app.screen is screen and not heard(app, transcript_text)
        end_grace(screen)
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is not screen)
        await wait_for(pilot, lambda: isinstance(app.screen, GuidanceScreen))
        end_grace(app.screen)
        await pilot.press("ctrl+c")  # leaves the second out
        await wait_for(pilot, lambda: len(heard(app, transcript_text)) == 2)
        assert heard(app, transcript_text) == [
            {"type": "answer", "id": "g1", "decision": "yes"},
            {"type": "answer", "id": "g2", "decision": "no"},
        ]
        assert "guidance used, in this and later sessions" in transcript_text(app)
        assert "guidance left out: /srv/app/AGENTS.md" in transcript_text(app)
