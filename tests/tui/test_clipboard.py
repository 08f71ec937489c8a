"""Copying (wisp_tui/clipboard.py): a real clipboard program run as a subprocess, and OSC 52."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from wisp_tui.clipboard import SYSTEM, TERMINAL, Clipboard, clipboard_command, osc52
from wisp_tui.programs import find_program, writable_folders
from wisp_tui.widgets.transcript import Entry


def fake_program(folder: Path, name: str, body: str) -> Path:
    """An executable `name` in `folder` that runs the shell `body`."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text(f"#!/bin/sh\n{body}\n")
    program.chmod(0o755)
    return program


@pytest.fixture
def bin_folder(tmp_path: Path) -> Path:
    return tmp_path / "bin"


@pytest.fixture
def copied(tmp_path: Path) -> Path:
    """Where the fake clipboard programs put what they were given."""
    return tmp_path / "clipboard.txt"


TRUSTED: tuple[str, ...] = ()
"""The fakes live under /tmp, a writable root whose programs wisp-tui never runs; the tests of
choosing and running a program count no folder as writable (the last tests here do)."""


def env_with(bin_folder: Path, **variables: str) -> dict[str, str]:
    return {"PATH": f"{bin_folder}:/usr/bin:/bin", **variables}


def test_osc52_is_the_base64_of_the_text_in_its_sequence() -> None:
    sequence = osc52("héllo\n")
    assert sequence.startswith("\x1b]52;c;") and sequence.endswith("\a")
    assert base64.b64decode(sequence[7:-1]).decode() == "héllo\n"


def test_the_program_follows_the_display(bin_folder: Path) -> None:
    for name in ("wl-copy", "xclip", "xsel", "pbcopy"):
        fake_program(bin_folder, name, "cat >/dev/null")
    xclip = [str(bin_folder / "xclip"), "-selection", "clipboard"]
    assert clipboard_command(env_with(bin_folder, DISPLAY=":0"), "linux", avoid=TRUSTED) == xclip
    wayland = env_with(bin_folder, DISPLAY=":0", WAYLAND_DISPLAY="wayland-0")
    assert clipboard_command(wayland, "linux", avoid=TRUSTED) == [str(bin_folder / "wl-copy")]
    pbcopy = [str(bin_folder / "pbcopy")]
    assert clipboard_command(env_with(bin_folder), "darwin", avoid=TRUSTED) == pbcopy
    assert clipboard_command(env_with(bin_folder), "linux", avoid=TRUSTED) is None  # over ssh, say
    (bin_folder / "xclip").unlink()
    xsel = [str(bin_folder / "xsel"), "--clipboard", "--input"]
    assert clipboard_command(env_with(bin_folder, DISPLAY=":0"), "linux", avoid=TRUSTED) == xsel


async def test_a_system_clipboard_gets_the_text_and_osc52_is_not_written(
    bin_folder: Path, copied: Path
) -> None:
    fake_program(bin_folder, "xclip", f'cat >"{copied}"')
    clipboard = Clipboard(env_with(bin_folder, DISPLAY=":0"), "linux", avoid=TRUSTED)
    written: list[str] = []
    assert await clipboard.copy("two\nlines ✓", written.append) == SYSTEM
    assert copied.read_text() == "two\nlines ✓"
    assert written == []


async def test_osc52_when_the_program_fails_or_there_is_none(
    bin_folder: Path, copied: Path
) -> None:
    fake_program(bin_folder, "xclip", "cat >/dev/null; exit 1")  # no X server, say
    written: list[str] = []
    failing = Clipboard(env_with(bin_folder, DISPLAY=":0"), "linux", avoid=TRUSTED)
    assert await failing.copy("text", written.append) == TERMINAL
    none_here = Clipboard(env_with(bin_folder), "linux", avoid=TRUSTED)
    assert await none_here.copy("more", written.append) == TERMINAL
    assert written == ["text", "more"]


REPLY = "It says **hello**.\n\n- one\n- two"


async def started(pilot, wait_for) -> None:
    await wait_for(pilot, lambda: pilot.app.status_bar.status is not None)


def notes(app) -> list[str]:
    return [str(notification.message) for notification in app._notifications]


async def test_ctrl_r_copies_the_last_reply_markdown_to_the_system_clipboard(
    make_app, wait_for, bin_folder: Path, copied: Path
) -> None:
    fake_program(bin_folder, "xclip", f'cat >"{copied}"')
    app = make_app([{"text": "First."}, {"text": REPLY}])
    app.clipboard_writer = Clipboard(env_with(bin_folder, DISPLAY=":0"), "linux", avoid=TRUSTED)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, wait_for)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "no reply to copy yet" in notes(app))
        for text in ("one", "two"):
            await pilot.press(*text, "enter")
            await wait_for(pilot, lambda: not app.prompt.is_busy)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: copied.exists())
        assert copied.read_text() == REPLY
        expected = f"copied the last reply ({len(REPLY)} characters) to the system clipboard"
        await wait_for(pilot, lambda: expected in notes(app))


async def test_selected_text_is_copied_by_osc52_when_there_is_no_system_clipboard(
    make_app, wait_for, bin_folder: Path
) -> None:
    app = make_app([{"text": "Hi."}])
    app.clipboard_writer = Clipboard(env_with(bin_folder), "linux", avoid=TRUSTED)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, wait_for)
        written: list[str] = []
        driver_write = app._driver.write
        app._driver.write = lambda data: (written.append(data), driver_write(data))
        # Drag across the start of wisp's first note.
        note = app.transcript.query(Entry).first()
        await pilot.mouse_down(note, offset=(1, 0))
        await pilot.hover(note, offset=(4, 0))
        # The drag reaches "wisp" before the button is let go, however busy the machine.
        await wait_for(pilot, lambda: app.screen.get_selected_text() == "wisp")
        await pilot.mouse_up(note, offset=(4, 0))
        await wait_for(pilot, lambda: any(data.startswith("\x1b]52;") for data in written))
        assert osc52("wisp") in written
        assert "copied the selection (4 characters) to the terminal's clipboard (OSC 52)" in notes(
            app
        )


# -- never a program a confined command could have planted ----------------------------------------


async def test_a_clipboard_program_in_a_writable_root_is_never_run(
    bin_folder: Path, copied: Path
) -> None:
    fake_program(bin_folder, "xclip", f'cat >"{copied}"')  # under /tmp
    written: list[str] = []
    clipboard = Clipboard(env_with(bin_folder, DISPLAY=":0"), "linux")
    assert await clipboard.copy("secret", written.append) == TERMINAL
    assert not copied.exists()
    assert written == ["secret"]


def test_a_program_in_the_working_directory_s_venv_is_skipped(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    fake_program(work / ".venv" / "bin", "xclip", "exit 0")
    fake_program(outside, "xclip", "exit 0")
    env = {"PATH": f"{work / '.venv' / 'bin'}:.:{outside}", "HOME": str(tmp_path / "user")}
    avoid = (str(work),)
    assert find_program("xclip", env, avoid) == str(outside / "xclip")
    assert str(work.resolve()) in writable_folders(env, str(work))


def test_a_link_outside_to_a_program_inside_is_skipped(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    planted = fake_program(work, "xclip", "exit 0")
    outside.mkdir()
    (outside / "xclip").symlink_to(planted)
    assert find_program("xclip", {"PATH": str(outside)}, (str(work),)) is None


async def test_text_selected_in_archived_entries_is_copied_like_live_text(
    make_app, wait_for, bin_folder: Path, copied: Path
) -> None:
    from wisp_tui.widgets.archive import Archive

    fake_program(bin_folder, "xclip", f'cat >"{copied}"')
    app = make_app([{"text": "Hi."}])
    app.clipboard_writer = Clipboard(env_with(bin_folder, DISPLAY=":0"), "linux", avoid=TRUSTED)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, wait_for)
        transcript = app.transcript
        await transcript.add_sent("the first question", is_command=False)
        for number in range(200):
            await transcript.add_note(f"note {number}")
        await pilot.pause()
        archive = transcript.archive
        assert any(entry.plain == "› the first question" for entry in archive.entries)
        transcript.scroll_home(animate=False)
        await pilot.pause()
        row = next(
            y for y in range(archive.line_count) if "question" in archive.render_line(y).text
        )
        # From "first" on the sent line down to "note" two rows below, across the strip under it.
        await pilot.mouse_down(Archive, offset=(7, row))  # " › the " before it
        await pilot.hover(Archive, offset=(7, row + 2))
        await wait_for(pilot, lambda: bool(app.screen.get_selected_text()))
        await pilot.mouse_up(Archive, offset=(7, row + 2))
        await wait_for(pilot, lambda: copied.exists() and copied.read_text())
        assert copied.read_text() == "first question\nnote 0"
        # The selection shows as it does on live text.
        selection = app.screen.get_component_rich_style("screen--selection")
        line = archive.render_line(row)
        assert any(
            s.style and s.style.bgcolor == selection.bgcolor for s in line if "first" in s.text
        )
