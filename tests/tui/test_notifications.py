"""Notifications (wisp/notify/sequences.py, docs/tui.md, "Notifications"): which sequence a
terminal takes, the exact bytes of one, hostile text made safe, and the app writing a notice
only while the terminal is not focused, against a real `wisp chat --json`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual import events

from tests.tui.conftest import app_env, write_script
from wisp.audit.log_files import log_files
from wisp.notify.sequences import OSC9, OSC99, TerminalNotices, clean, osc9, osc99, sequence_for
from wisp_tui.app import WispApp

# TERM_PROGRAM, TERM → the sequence, as docs/tui.md's table gives it.
TABLE = [
    ("ghostty", "xterm-256color", OSC9),
    ("WezTerm", "xterm-256color", OSC9),
    ("kitty", "xterm-256color", OSC99),
    ("iTerm.app", "xterm-256color", None),  # left out: it needs a setting first
    ("Apple_Terminal", "xterm-256color", None),
    ("tmux", "xterm-kitty", None),  # TERM_PROGRAM decides: tmux over kitty
    ("tmux", "tmux-256color", None),
    ("vscode", "xterm-ghostty", None),
    (None, "xterm-ghostty", OSC9),
    (None, "wezterm", OSC9),
    (None, "xterm-kitty", OSC99),
    (None, "xterm-256color", None),
    (None, "screen", None),
    (None, None, None),
]


@pytest.mark.parametrize(("program", "term", "sequence"), TABLE)
def test_the_terminal_decides_the_sequence(
    program: str | None, term: str | None, sequence: str | None
) -> None:
    env = {"TERM_PROGRAM": program, "TERM": term}
    assert sequence_for({k: v for k, v in env.items() if v is not None}) == sequence


@pytest.mark.parametrize(
    ("chosen", "sequence"),
    [("osc9", OSC9), ("osc99", OSC99), ("OSC9", OSC9), ("off", None), ("bell", None), ("", None)],
)
def test_wisp_notify_overrides_the_guess(chosen: str, sequence: str | None) -> None:
    # Inside tmux nothing would be sent; WISP_NOTIFY forces it (or turns a kitty's off).
    assert sequence_for({"TERM_PROGRAM": "tmux", "WISP_NOTIFY": chosen}) == sequence
    kitty = {"TERM_PROGRAM": "kitty", "WISP_NOTIFY": chosen}
    assert sequence_for(kitty) == (None if chosen == "off" else sequence or OSC99)


def test_osc9_bytes() -> None:
    assert osc9("wisp: turn finished", None, "Pushed main.") == (
        "\x1b]9;wisp: turn finished: Pushed main.\x07"
    )
    assert osc9("wisp: approval waiting", "from editor", "[moderate] git push") == (
        "\x1b]9;wisp: approval waiting — from editor: [moderate] git push\x07"
    )


def test_osc99_bytes_are_kittys_two_chunks_under_one_id() -> None:
    notices = TerminalNotices(OSC99, pid=4242)
    assert notices.text("wisp: turn finished", None, "Pushed main.") == (
        "\x1b]99;i=wisp4242-1:d=0:p=title;wisp: turn finished\x1b\\"
        "\x1b]99;i=wisp4242-1:d=1:p=body;Pushed main.\x1b\\"
    )
    second = notices.text("t", "s", "b")
    assert second == (
        "\x1b]99;i=wisp4242-2:d=0:p=title;t — s\x1b\\\x1b]99;i=wisp4242-2:d=1:p=body;b\x1b\\"
    )
    assert (
        osc99("x-1", "t", None, "b")
        == "\x1b]99;i=x-1:d=0:p=title;t\x1b\\\x1b]99;i=x-1:d=1:p=body;b\x1b\\"
    )


def test_without_a_sequence_there_is_nothing_to_write() -> None:
    assert TerminalNotices(None).text("t", None, "b") is None


HOSTILE = "done\x1b]52;c;aGk=\x07\x07 then\x1b\\ \x9b2J \x9d0;x\x9c a;b\x7f\x00\r\n\t."


@pytest.mark.parametrize("sequence", [OSC9, OSC99])
def test_hostile_text_never_reaches_the_terminal_raw(sequence: str) -> None:
    text = TerminalNotices(sequence, pid=1).text(HOSTILE, HOSTILE, HOSTILE)
    assert text is not None
    if sequence == OSC9:
        assert text.startswith("\x1b]9;") and text.endswith("\x07")
        payloads = [text.removeprefix("\x1b]9;").removesuffix("\x07")]
    else:
        chunks = text.split("\x1b\\")  # each chunk ends with ST, so the last piece is empty
        assert len(chunks) == 3 and chunks[2] == ""
        assert all(chunk.startswith("\x1b]99;i=wisp1-1:") for chunk in chunks[:2])
        payloads = [chunk.split(";", 2)[2] for chunk in chunks[:2]]
    for payload in payloads:
        assert not re.search("[\x00-\x1f\x7f-\x9f;]", payload)  # no control, no field end
    assert clean("a;b\x1b\x07\x9c\x7f") == "a,b    "


# The app, on a real wisp.


def notifying_app(tmp_path: Path, wisp_script: Path, sequence: str) -> WispApp:
    home = tmp_path / "home"
    work = home / "work"
    script = write_script(work, [{"text": "First."}, {"text": "Second."}, {"text": "Third."}])
    env = {**app_env(home), "WISP_NOTIFY": sequence}
    return WispApp(["-m", f"script:{script.name}"], env=env, cwd=work, command=str(wisp_script))


EFFECTS = ["approve", "approve-mcp", "keep-facts", "ask", "guidance"]
"""What wisp-tui's hello declares besides `notify`."""


def hello_effects(home: Path) -> list[list[str]]:
    """The effects of every hello wisp recorded under `home`."""
    import msgspec

    return [
        event["details"]["effects"]
        for path in log_files(home / ".wisp" / "logs")
        for line in path.read_bytes().splitlines()
        if (event := msgspec.json.decode(line))["kind"] == "host.hello"
    ]


async def test_a_notice_is_written_only_while_the_terminal_is_not_focused(
    tmp_path: Path, wisp_script: Path, wait_for, transcript_text
) -> None:
    app = notifying_app(tmp_path, wisp_script, "osc9")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        written: list[str] = []
        driver_write = app._driver.write
        app._driver.write = lambda data: (written.append(data), driver_write(data))

        # Focused: the person is looking, so the turn's notice is dropped.
        await pilot.press(*"one", "enter")
        await wait_for(pilot, lambda: "First." in transcript_text(app) and not app.prompt.is_busy)
        assert not any("\x1b]9;" in data for data in written)

        # The terminal reports focus out; the next turn's end is posted, once.
        app.post_message(events.AppBlur())
        await wait_for(pilot, lambda: not app.app_focus)
        await app.backend.message("two")  # typed keys would count as focus again
        await wait_for(pilot, lambda: any("\x1b]9;" in data for data in written))
        await wait_for(pilot, lambda: "Second." in transcript_text(app) and not app.prompt.is_busy)
        notices = [data for data in written if "\x1b]9;" in data]
        assert notices == ["\x1b]9;wisp: turn finished: Second.\x07"]

        # A key means the person is back: focused again, nothing more is written.
        await pilot.press(*"three", "enter")
        await wait_for(pilot, lambda: "Third." in transcript_text(app) and not app.prompt.is_busy)
        assert app.app_focus
        assert [data for data in written if "\x1b]9;" in data] == notices
    assert hello_effects(tmp_path / "home")[-1] == [*EFFECTS, "notify"]


async def test_without_a_sequence_the_hello_declares_no_notify(
    tmp_path: Path, wisp_script: Path, wait_for, transcript_text
) -> None:
    app = notifying_app(tmp_path, wisp_script, "off")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        written: list[str] = []
        driver_write = app._driver.write
        app._driver.write = lambda data: (written.append(data), driver_write(data))
        app.post_message(events.AppBlur())
        await wait_for(pilot, lambda: not app.app_focus)
        await app.backend.message("one")
        await wait_for(pilot, lambda: "First." in transcript_text(app) and not app.prompt.is_busy)
        assert not any("\x1b]" in data for data in written)
    assert hello_effects(tmp_path / "home")[-1] == EFFECTS
