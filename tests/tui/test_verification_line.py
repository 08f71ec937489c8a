"""Pilot tests: wisp-tui shows the turn end's third line, `claimed but not done: …`, under
`ran:` (docs/turn.md, "Lines under a reply")."""

from __future__ import annotations

LINE = "claimed but not done: ran the tests (no command ran)"


async def test_the_fake_backends_line_is_shown_under_ran(make_fake_app, wait_for, transcript_text):
    app = make_fake_app(
        [
            {"type": "turn", "phase": "start", "turn": 1},
            {"type": "delta", "text": "I ran the tests and they pass."},
            {
                "type": "turn", "phase": "end", "turn": 1, "seconds": 0.5, "outcome": "ok",
                "ran": "ran: current_date", "verification": LINE,
            },
        ]
    )  # fmt: skip
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: LINE in transcript_text(app))
        text = transcript_text(app)
        assert text.index("they pass") < text.index("ran: current_date") < text.index(LINE)


async def test_a_real_turns_false_claim_is_shown(make_app, wait_for, transcript_text):
    app = make_app(
        [
            {"text": "", "tool_calls": [{"name": "current_date", "arguments": {}}]},
            {"text": "I ran the tests and they pass."},
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        app.prompt.text = "run the tests"
        await pilot.press("enter")
        await wait_for(pilot, lambda: LINE in transcript_text(app))
        text = transcript_text(app)
        assert text.index("ran: current_date") < text.index(LINE)
