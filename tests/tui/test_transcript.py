"""A transcript that stays fast at any length (docs/tui.md, "The transcript and staying fast"): what
a person notices.

Entries go in through the real Transcript of a WispApp on a real `wisp chat --json`; old ones
move into the archive. Cost is measured as the widgets Textual lays out on every change, never as
wall time.
"""

from __future__ import annotations

import html
import re

from wisp.protocol import Event, EventOutput
from wisp_tui import palette
from wisp_tui.app import WispApp
from wisp_tui.widgets.archive import Archive
from wisp_tui.widgets.transcript import (
    ARCHIVE_BATCH_ENTRIES,
    MIN_LIVE_ENTRIES,
    SPARE_ROWS,
    Transcript,
)

SIZE = (100, 30)
REPLY = "## Plan\n\nUse `git log` **now**.\n\n- one\n- two\n\n```\nmake test\n```\n"


async def started(pilot, wait_for) -> Transcript:
    await wait_for(pilot, lambda: pilot.app.status_bar.status is not None)
    await pilot.pause()
    return pilot.app.transcript


async def fill(pilot, transcript: Transcript, first: int, last: int) -> None:
    """Entries first..last-1: a sent line, a reply, and notes, as a conversation adds them."""
    for number in range(first, last):
        if number % 10 == 0:
            await transcript.add_sent(f"question {number}", is_command=False)
        elif number % 10 == 1:
            await transcript.write_reply(f"reply {number} with `code`")
            await transcript.end_reply()
        else:
            await transcript.add_note(f"note {number}")
        if number % 100 == 99:
            await pilot.pause()  # a person's transcript is drawn as it grows
    await pilot.pause()


def laid_out(transcript: Transcript) -> int:
    """The widgets Textual arranges each time the transcript changes: the cost of an entry."""
    return len(list(transcript.walk_children()))


def live_bound(transcript: Transcript) -> int:
    """At most the entries of a screen and its spare rows stay widgets (each a row or more),
    and the out-of-sight ones waiting to go to the archive in one batch."""
    screen = max(transcript.scrollable_content_region.height + SPARE_ROWS, MIN_LIVE_ENTRIES)
    return screen + ARCHIVE_BATCH_ENTRIES


def screen_rows(app: WispApp) -> list[str]:
    """The screen's text, row by row, as the screenshot shows it (each span at its column)."""
    spans = re.findall(
        r'x="([\d.]+)" y="[\d.]+" textLength="([\d.]+)" '
        r'clip-path="url\(#terminal-\d+-line-(\d+)\)">([^<]*)<',
        app.export_screenshot(),
    )
    width, height = app.size
    rows = [[" "] * width for _ in range(height)]
    for x, length, row, text in spans:
        text = html.unescape(text).replace("\xa0", " ")
        cell = float(length) / len(text)
        column = round(float(x) / cell)
        rows[int(row)][column : column + len(text)] = text
    return ["".join(row).rstrip() for row in rows]


def transcript_rows(app: WispApp) -> list[str]:
    """The transcript's rows of text, without its scrollbar (whose thumb shrinks as it grows)."""
    width = app.transcript.scrollable_content_region.width
    rows = screen_rows(app)[: app.transcript.scrollable_content_region.height]
    return [row[:width].rstrip() for row in rows]


async def test_a_long_transcript_stays_fast(make_app, wait_for, transcript_text):
    app = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        transcript = await started(pilot, wait_for)
        await fill(pilot, transcript, 0, 10)
        await fill(pilot, transcript, 10, 11)
        at_ten = laid_out(transcript)

        await fill(pilot, transcript, 11, 500)
        await fill(pilot, transcript, 500, 501)
        at_five_hundred = laid_out(transcript)
        await fill(pilot, transcript, 501, 1_000)
        await fill(pilot, transcript, 1_000, 1_001)
        at_thousand = laid_out(transcript)

        # Bounded: a screenful of the newest entries and one archive, whatever the length.
        assert len(transcript.live_entries) <= live_bound(transcript)
        assert at_thousand <= at_ten + live_bound(transcript)
        # The same at 500 and at 1,000 entries, but for a batch waiting to be archived.
        assert at_five_hundred <= at_ten + live_bound(transcript)
        # The archive holds the rest: entries go to it in batches, so how many are still live
        # depends on where the last batch fell, within the bound.
        assert len(transcript.archive.entries) >= 1_001 - live_bound(transcript)
        # Nothing is lost: every entry is still there, in order.
        text = transcript_text(app)
        assert text.index("question 0") < text.index("reply 1 ") < text.index("note 2")
        assert text.index("note 2") < text.index("note 999") < text.index("question 1000")
        await app.backend.quit()


async def test_old_entries_read_the_same_at_the_top(make_app, wait_for):
    app = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        transcript = await started(pilot, wait_for)
        await transcript.add_sent("how are the notes?", is_command=False)
        await transcript.write_reply(REPLY)
        await transcript.end_reply()
        await transcript.add_sent("ls", is_command=True)
        await fill(pilot, transcript, 100, 200)
        assert len(transcript.archive.entries) > 3  # the first entries are archived

        transcript.scroll_home(animate=False)
        await pilot.pause()
        rows = screen_rows(app)
        shown = "\n".join(rows)
        assert "› how are the notes?" in shown
        assert "Plan" in shown and "Use git log now." in shown  # Markdown, markers removed
        assert "• one" in shown and "make test" in shown and "! ls" in shown
        assert "```" not in shown and "**" not in shown

        # The same look: a sent line on its tint between its strips, a command on its own.
        archive = transcript.archive
        lines = [archive.render_line(y) for y in range(archive.line_count)]
        sent = next(y for y, line in enumerate(lines) if "› how are" in line.text)
        assert lines[sent - 1].text.strip() == "▄" * archive.size.width
        assert lines[sent + 1].text.strip() == "▀" * archive.size.width
        assert _background(lines[sent], "how") == palette.SENT.lower()
        command = next(y for y, line in enumerate(lines) if "! ls" in line.text)
        assert _background(lines[command], "ls") == palette.COMMAND_SENT.lower()
        code = next(line for line in lines if "git log" in line.text)
        assert _foreground(code, "git log") == palette.WISP.lower()
        await app.backend.quit()


def _background(line, word: str) -> str | None:
    segment = next(s for s in line if word in s.text)
    return segment.style.bgcolor.triplet.hex if segment.style.bgcolor else None


def _foreground(line, word: str) -> str | None:
    segment = next(s for s in line if word in s.text)
    return segment.style.color.triplet.hex if segment.style.color else None


async def test_the_transcript_follows_the_bottom_unless_scrolled_up(make_app, wait_for):
    app = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        transcript = await started(pilot, wait_for)
        await fill(pilot, transcript, 0, 200)
        assert transcript.is_following
        assert transcript.scroll_y == transcript.max_scroll_y
        assert "note 199" in "\n".join(screen_rows(app)[-8:])  # just above the input

        # Scrolled up to read: new entries arrive below, nothing moves, nothing is archived.
        transcript.scroll_page_up(animate=False)
        await pilot.pause()
        where, reading = transcript.scroll_y, transcript_rows(app)
        archived = len(transcript.archive.entries)
        await fill(pilot, transcript, 200, 260)
        assert not transcript.is_following
        assert transcript.scroll_y == where
        assert transcript_rows(app) == reading
        assert len(transcript.archive.entries) == archived

        # Back at the bottom: following again, and the entries left live meanwhile are archived.
        transcript.scroll_end(animate=False)
        await pilot.pause()
        await fill(pilot, transcript, 260, 261)
        assert transcript.is_following
        assert transcript.scroll_y == transcript.max_scroll_y
        assert "question 260" in "\n".join(screen_rows(app))
        assert len(transcript.live_entries) <= live_bound(transcript)
        await app.backend.quit()


async def test_a_fold_in_an_archived_entry_opens_and_shuts(make_app, wait_for):
    app = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        transcript = await started(pilot, wait_for)
        body = "".join(f"output line {n}\n" for n in range(30))
        output = EventOutput(text=body, lines=30, bytes=len(body), shown_lines=3, truncated=False)
        await transcript.add_event(Event(kind="tool.result", text="  ↳ exit 0", output=output))
        await fill(pilot, transcript, 100, 160)
        archive = transcript.archive
        fold = next(transcript.folds())
        assert fold in list(archive.folds())  # archived, no longer a widget
        transcript.scroll_home(animate=False)
        await pilot.pause()
        assert "output line 12" not in "\n".join(screen_rows(app))

        # A click on the archived fold opens it; a second click shuts it.
        row = next(
            y for y in range(archive.line_count) if "more lines" in archive.render_line(y).text
        )
        await pilot.click(Archive, offset=(4, row))
        await pilot.pause()
        assert fold.is_open
        assert "output line 12" in "\n".join(screen_rows(app))
        await pilot.click(Archive, offset=(4, row))
        await pilot.pause()
        assert not fold.is_open
        assert "output line 12" not in "\n".join(screen_rows(app))

        # All folds at once, archived ones included.
        await transcript.set_all_folds(True)
        await pilot.pause()
        assert fold.is_open and "output line 12" in "\n".join(screen_rows(app))
        await transcript.set_all_folds(False)
        await pilot.pause()
        assert not fold.is_open
        await app.backend.quit()


def test_snapshot_a_long_transcript_scrolled_up(snap_compare, make_app, snapshot_home, wait_for):
    """The archived top of a long transcript: sent lines, a reply, a fold, as they were live."""
    app = make_app([], snapshot_home)

    async def run_before(pilot) -> None:
        transcript = await started(pilot, wait_for)
        await transcript.add_sent("how are the notes?", is_command=False)
        await transcript.write_reply(REPLY)
        await transcript.end_reply()
        body = "".join(f"output line {n}\n" for n in range(30))
        output = EventOutput(text=body, lines=30, bytes=len(body), shown_lines=3, truncated=False)
        await transcript.add_event(Event(kind="tool.call", text="⚙ run_command ls"))
        await transcript.add_event(Event(kind="tool.result", text="  ↳ exit 0", output=output))
        await transcript.add_event(Event(kind="error", text="  ↳ error: no such file"))
        await transcript.add_sent("ls", is_command=True)
        await transcript.add_output("README.md\nwisp")
        await fill(pilot, transcript, 100, 160)
        await pilot.pause()  # the archiving that waited for the last entries' layout is done
        transcript.scroll_home(animate=False)
        # Which entries are still live when the picture is taken depends on timing, and a live
        # entry can be a row taller than archived: the scroll bar's thumb would move.
        transcript.styles.scrollbar_size_vertical = 0
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_a_long_reply_keeps_only_its_newest_blocks_live_and_reads_whole(
    make_app, wait_for, transcript_text
):
    from wisp_tui.widgets.reply import FREEZE_BLOCKS, Reply

    paragraphs = [f"Paragraph {n}: " + "word " * 30 for n in range(150)]
    code = "```sh\n" + "\n".join(f"echo {n}" for n in range(20)) + "\n```"
    reply = "\n\n".join([*paragraphs[:75], code, *paragraphs[75:]])
    app = make_app([{"text": reply}])
    async with app.run_test(size=SIZE) as pilot:
        transcript = await started(pilot, wait_for)
        await pilot.press(*"go", "enter")
        await wait_for(pilot, lambda: not app.prompt.is_busy)
        live = [entry for entry in transcript.live_entries if isinstance(entry, Reply)]
        assert len(live) == 1 and len(live[0].children) <= FREEZE_BLOCKS
        # The archive holds the rest; read together, the reply is whole, in order, once.
        parts = [e.text for e in transcript.archive.entries if e.kind == "reply"]
        assert "".join([*parts, live[0].live_source]) == reply
        text = transcript_text(app)
        assert text.count("Paragraph 149:") == 1 and text.count("echo 19") == 1


async def test_a_long_reply_that_arrived_in_one_append_is_archived_when_it_ends(make_app, wait_for):
    """The first fragment is appended at once and mounts its blocks in the stream's own time,
    with nothing held for the end to append: ending the reply still moves the old blocks."""
    from wisp_tui.widgets.reply import FREEZE_BLOCKS, Reply

    reply = "\n\n".join(f"Paragraph {n}." for n in range(FREEZE_BLOCKS * 2))
    app = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        transcript = await started(pilot, wait_for)
        await transcript.write_reply(reply)
        await transcript.end_reply()
        live = [entry for entry in transcript.live_entries if isinstance(entry, Reply)]
        assert len(live) == 1 and len(live[0].children) <= FREEZE_BLOCKS
        parts = [e.text for e in transcript.archive.entries if e.kind == "reply"]
        assert "".join([*parts, live[0].live_source]) == reply
