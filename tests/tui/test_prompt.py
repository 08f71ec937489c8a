"""Pilot tests of the input box (docs/tui.md, "The input"): lines, command mode, held keys, history,
big pastes."""

from __future__ import annotations

from textual import events
from textual._xterm_parser import XTermParser

from wisp_tui.screens.approval import ApprovalScreen
from wisp_tui.widgets.prompt import UNSANDBOXED_COMMAND_PLACEHOLDER
from wisp_tui.widgets.prompt_area import MAX_ROWS


async def started(pilot, wait_for) -> None:
    await wait_for(pilot, lambda: pilot.app.status_bar.status is not None)
    await pilot.pause()


def rows(app) -> int:
    return app.prompt.input.size.height


def parse(data: str) -> list[str]:
    parser = XTermParser()
    return [event.key for event in [*parser.feed(data), *parser.feed("")]]


def test_alt_enter_from_a_terminal_is_not_enter() -> None:
    # ESC CR is what most terminals send for Alt-Enter; Textual alone reports it as Enter.
    assert parse("\x1b\r") == ["alt+enter"]
    assert parse("\r") == ["enter"]
    assert parse("\x1b[13;2u") == ["shift+enter"]  # the kitty keyboard protocol


async def test_newline_keys_grow_the_box_and_enter_sends_it_all(
    make_app, wait_for, transcript_text
):
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, wait_for)
        assert rows(app) == 1
        await pilot.press(*"one", "ctrl+j", *"two", "alt+enter", *"three", "shift+enter", "f")
        assert app.prompt.text == "one\ntwo\nthree\nf"
        await pilot.pause()
        assert rows(app) == 4
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Hi." in transcript_text(app))
        assert "one\ntwo\nthree\nf" in transcript_text(app)
        await wait_for(pilot, lambda: not app.prompt.is_busy)
        assert app.prompt.text == ""
        assert rows(app) == 1


async def test_the_box_stops_at_six_rows_keeps_the_cursor_in_view_and_shrinks_only_when_empty(
    make_app, wait_for
):
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(60, 30)) as pilot:
        await started(pilot, wait_for)
        for number in range(1, 9):
            await pilot.press(*str(number), "ctrl+j")
        await pilot.press("x")
        await pilot.pause()
        area = app.prompt.input
        assert rows(app) == MAX_ROWS
        assert area.scroll_y == 9 - MAX_ROWS  # the cursor's row, the ninth, is the last shown
        await pilot.press("backspace", "backspace", "backspace", "backspace")
        await pilot.pause()
        assert app.prompt.text.count("\n") == 6
        assert rows(app) == MAX_ROWS  # no jumping back while editing
        await pilot.press("ctrl+a", *"a" * 70)  # one long line wraps: still six rows at most
        await pilot.pause()
        assert rows(app) == MAX_ROWS
        app.prompt.text = ""
        await pilot.pause()
        assert rows(app) == 1


async def test_a_wrapped_line_grows_the_box(make_app, wait_for):
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(40, 30)) as pilot:
        await started(pilot, wait_for)
        await pilot.press(*"word " * 12)  # 60 cells in a box about 35 wide
        await pilot.pause()
        assert rows(app) == 2
        await pilot.press(*["backspace"] * 40)
        await pilot.pause()
        assert rows(app) == 2  # shrinks only when empty
        await pilot.press("ctrl+u")
        await pilot.pause()
        assert app.prompt.text == "" and rows(app) == 1


async def test_readline_keys_edit_the_line(make_app, wait_for):
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, wait_for)
        prompt = app.prompt
        await pilot.press(*"git log --oneline")
        await pilot.press("ctrl+w")
        assert prompt.text == "git log "
        await pilot.press("ctrl+a", "X", "ctrl+e", "Y")
        assert prompt.text == "Xgit log Y"
        await pilot.press("alt+b", "ctrl+k")
        assert prompt.text == "Xgit log "
        await pilot.press("ctrl+left", "ctrl+left", "right", "ctrl+u")
        assert prompt.text == "git log " and prompt.cursor_index == 0
        await pilot.press("ctrl+right", "delete")
        assert prompt.text == "gitlog "  # the word's end, then the space after it
        await pilot.press("home", "right", "backspace", "end", *"a b", "alt+backspace")
        assert prompt.text == "itlog a "
        await pilot.press("tab", "shift+tab")  # not a /command, and no focus move
        assert app.focused is prompt.input
        await pilot.press("ctrl+c")  # the app's, never the editor's copy: the draft clears
        assert prompt.text == "" and not app.is_quitting
        await pilot.press("ctrl+c")  # on the empty input: quit
        assert app.is_quitting


async def test_a_bang_switches_to_command_mode_only_at_the_start(make_app, wait_for):
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, wait_for)
        prompt = app.prompt
        await pilot.press(*"ls", "!")
        assert prompt.text == "ls!" and not prompt.is_command_mode
        await pilot.press("home", "!")  # the cursor at column 0: a switch, not text
        assert prompt.is_command_mode and prompt.text == "ls!"
        await pilot.press("!")  # already in command mode: text
        assert prompt.text == "!ls!"
        await pilot.press("home", "backspace")  # column 0: leaves, the text stays
        assert not prompt.is_command_mode and prompt.text == "!ls!"
        prompt.text = ""
        await pilot.press("!")
        prompt.is_sandboxed = False  # as `status.sandbox: false` sets it
        assert prompt.input.placeholder == UNSANDBOXED_COMMAND_PLACEHOLDER
        await pilot.press("delete")  # Delete leaves only in an empty box
        assert not prompt.is_command_mode
        app.post_message(events.Paste("!echo one\necho two"))
        await pilot.pause()
        assert prompt.is_command_mode and prompt.text == "echo one\necho two"


async def test_a_paste_keeps_its_newlines_and_never_sends(make_app, wait_for, transcript_text):
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, wait_for)
        await pilot.press(*"see:", "ctrl+j")
        app.post_message(events.Paste("line one\r\nline two\n"))
        await pilot.pause()
        assert app.prompt.text == "see:\nline one\nline two\n"
        assert not app.prompt.is_busy
        assert "line one" not in transcript_text(app)


async def test_a_megabyte_paste_goes_in_and_keys_still_edit_the_box(make_app, wait_for):
    # How long the paste and the keys after it take is measured by bench/tui.py (e).
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, wait_for)
        prompt = app.prompt
        one_line = "y" * 1_000_000
        app.post_message(events.Paste(one_line))
        await wait_for(pilot, lambda: len(prompt.text) == 1_000_000)
        for _ in range(10):
            await pilot.press("z")
        assert prompt.text == one_line + "z" * 10
        assert rows(app) == 1
        prompt.text = ""
        many_lines = "x" * 79 + "\n"
        app.post_message(events.Paste(many_lines * 13_000))
        await wait_for(pilot, lambda: prompt.input.document.line_count == 13_001)
        for _ in range(10):
            await pilot.press("z")
        assert prompt.text.endswith("\n" + "z" * 10)
        assert rows(app) == MAX_ROWS
        assert prompt.input.soft_wrap


async def test_up_and_down_recall_only_from_the_first_and_last_rows(make_app, wait_for):
    app = make_app([{"text": "One."}, {"text": "Two."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, wait_for)
        prompt = app.prompt
        await pilot.press(*"first", "ctrl+j", *"second", "enter")
        await wait_for(pilot, lambda: not prompt.is_busy)
        await pilot.press(*"!ls", "enter")
        await wait_for(pilot, lambda: not prompt.is_busy)
        await pilot.press(*"a", "ctrl+j", *"draft")
        await pilot.press("up")  # on the last row: moves up a row
        assert prompt.text == "a\ndraft" and prompt.cursor_index == 1
        await pilot.press("up")  # on the first row: the previous line sent, a command
        assert prompt.is_command_mode and prompt.text == "ls"
        await pilot.press("up")
        assert not prompt.is_command_mode and prompt.text == "first\nsecond"
        assert prompt.cursor_index == len("first\nsecond")  # at the end, on the last row
        await pilot.press("down")  # on the last row: the next line
        assert prompt.is_command_mode and prompt.text == "ls"
        await pilot.press("down")  # past the newest: the draft back
        assert not prompt.is_command_mode and prompt.text == "a\ndraft"


async def test_the_cursor_index_counts_code_points_over_the_whole_text(make_app, wait_for):
    app = make_app([{"text": "Hi."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, wait_for)
        prompt = app.prompt
        prompt.text = "e\u0301\n/mo"  # a combining accent counts as two
        assert prompt.cursor_index == 6
        prompt.cursor_index = 3
        assert prompt.input.cursor_location == (1, 0)
        prompt.complete(3, 6, ["/model", "/models"])
        assert prompt.text == "e\u0301\n/model" and prompt.cursor_index == 9


async def test_keys_typed_while_busy_are_held_and_replayed_in_order(make_app, wait_for, tmp_path):
    # The reply waits for a file, not a delay: however slow the machine, the turn is still
    # running while the keys are typed.
    go_on = tmp_path / "go-on"
    app = make_app([{"text": "Done, slowly.", "wait_for_file": str(go_on)}])
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, wait_for)
        prompt = app.prompt
        await pilot.press(*"go", "enter")
        assert prompt.is_busy
        await pilot.press("!", *"ls", "left", "x", "enter", "up")  # Enter and Up: not held
        app.post_message(events.Paste(" -l"))
        await pilot.pause()
        assert prompt.text == "" and len(prompt.held) == 6
        busy = str(prompt.query_one("#busy").render())
        assert busy.endswith(" · 6 keys held"), busy
        go_on.touch()
        await wait_for(pilot, lambda: not prompt.is_busy)
        await wait_for(pilot, lambda: not prompt.held)
        # The `!` into the empty box entered command mode, as if typed now.
        assert prompt.is_command_mode and prompt.text == "lx -ls"
        assert app.focused is prompt.input


async def test_keys_typed_while_a_turn_runs_never_answer_a_dialog(make_app, wait_for, end_grace):
    app = make_app(
        [
            {
                "thinking": "Make it.",  # two chunks: the request comes after a pause
                "tool_calls": [{"name": "run_command", "arguments": {"command": "touch a"}}],
                "delay_ms": 1000,
            },
            {"text": "Made it."},
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, wait_for)
        prompt = app.prompt
        # Typed before the dialog (the reply waits a second first), or, on a machine slow
        # enough to show it sooner, in its grace: held either way.
        await pilot.press(*"make a", "enter", "y")
        assert prompt.held
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        screen = app.screen
        await pilot.press("s")  # in the dialog's grace: held for the box, not an answer
        await pilot.pause()
        assert app.screen is screen
        assert [event.key for event in prompt.held] == ["y", "s"]
        end_grace(screen)
        await pilot.press("n")  # after the grace: the answer
        await wait_for(pilot, lambda: app.screen is not screen)
        await wait_for(pilot, lambda: not prompt.is_busy)
        await wait_for(pilot, lambda: not prompt.held)
        assert prompt.text == "ys"
