"""The keys a person expects (docs/tui.md, "Keys"): Ctrl-C spares a draft, F1 and /help list
the keys, Ctrl-G says when there is nothing to fold, PageUp scrolls the transcript."""

from __future__ import annotations

import msgspec

from wisp_tui.keys import KEYS, keys_text


def notes(app) -> list[str]:
    return [str(notification.message) for notification in app._notifications]


async def started(pilot, wait_for) -> None:
    await wait_for(pilot, lambda: pilot.app.status_bar.status is not None)


async def test_ctrl_c_clears_a_draft_into_the_history_and_only_then_quits(
    make_app, wait_for, tmp_path
):
    app = make_app([{"text": "Hi."}])
    async with app.run_test() as pilot:
        await started(pilot, wait_for)
        await pilot.press(*"half a thought")
        await pilot.press("ctrl+c")
        await pilot.pause()
        # Not quitting: the input is empty, the draft kept, and the person told.
        assert app.return_code is None and not app.is_quitting
        assert app.prompt.text == ""
        assert "input cleared (Up brings it back) · Ctrl-C again quits" in notes(app)
        await pilot.press("up")
        assert app.prompt.text == "half a thought"
        # Ctrl-D is the same key; on the empty input Ctrl-C quits, as before.
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert app.prompt.text == "" and not app.is_quitting
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 0
    history = (tmp_path / "home" / ".wisp" / "history").read_text().splitlines()
    assert [msgspec.json.decode(line) for line in history] == ["half a thought"]


async def test_ctrl_q_is_ctrl_c_not_an_instant_quit(make_app, wait_for):
    app = make_app([{"text": "Hi."}])
    async with app.run_test() as pilot:
        await started(pilot, wait_for)
        await pilot.press(*"a draft", "ctrl+q")
        await pilot.pause()
        assert app.prompt.text == "" and not app.is_quitting
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 0


async def test_ctrl_c_clears_command_mode_and_keeps_the_command(make_app, wait_for):
    app = make_app([{"text": "Hi."}])
    async with app.run_test() as pilot:
        await started(pilot, wait_for)
        await pilot.press("!", *"ls -l")
        assert app.prompt.is_command_mode
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.prompt.text == "" and not app.prompt.is_command_mode
        await pilot.press("up")
        assert app.prompt.is_command_mode and app.prompt.text == "ls -l"
        await app.backend.quit()


async def test_f1_shows_the_keys_in_a_panel_and_sends_nothing(make_app, wait_for):
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, wait_for)
        await pilot.press("f1")
        await wait_for(pilot, lambda: app.is_panel_shown)
        assert app.screen.kind == "keys"
        assert app.screen.text == keys_text()
        assert app._turn.number is None  # nothing went to the model
        await pilot.press("f1")  # F1 again closes it
        await wait_for(pilot, lambda: not app.is_panel_shown)
        await app.backend.quit()


async def test_help_lists_the_commands_and_then_the_keys(make_app, wait_for, transcript_text):
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, wait_for)
        await pilot.press(*"/help", "enter")
        await wait_for(pilot, lambda: "wisp-tui keys" in transcript_text(app))
        text = transcript_text(app)
        assert text.index("/models") < text.index("wisp-tui keys") < text.index(keys_text())
        for key in ("Ctrl-O", "Ctrl-G", "Ctrl-R", "Ctrl-T", "Tab", "Alt-Enter", "F1", "PageUp"):
            assert key in keys_text()
        # Sent once: the next reply is not followed by the keys again.
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: "Hi." in transcript_text(app))
        await wait_for(pilot, lambda: not app.prompt.is_busy)
        assert transcript_text(app).count("wisp-tui keys") == 1
        await app.backend.quit()


def test_wisp_tui_help_prints_the_same_keys(capsys):
    from wisp_tui.__main__ import main

    assert main(["--help"]) == 0
    printed = capsys.readouterr().out
    assert keys_text("  ") in printed
    assert all(key in printed for key, _ in KEYS)


async def test_ctrl_g_says_when_there_is_nothing_to_fold(make_app, wait_for):
    app = make_app([{"text": "Hi."}])
    async with app.run_test() as pilot:
        await started(pilot, wait_for)
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: any("nothing to fold" in note for note in notes(app)))
        await app.backend.quit()


async def test_pageup_scrolls_the_transcript_while_the_input_keeps_the_keys(make_app, wait_for):
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(80, 20)) as pilot:
        await started(pilot, wait_for)
        for n in range(60):
            await app.transcript.add_note(f"note {n}")
        await pilot.pause()
        bottom = app.transcript.scroll_y
        assert bottom > 0
        await pilot.press("pageup")
        await wait_for(pilot, lambda: app.transcript.scroll_y < bottom)
        assert app.focused is app.prompt.input
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: app.transcript.scroll_y == bottom)
        await app.backend.quit()
