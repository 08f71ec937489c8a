"""The transcript: every entry, oldest at the top, following the bottom.

Staying fast (docs/tui.md, "The transcript and staying fast"): only the newest entries, those
filling a screen and `SPARE_ROWS` more, are widgets. Older finished ones are moved, while the
transcript follows the bottom, into one `Archive` of pre-rendered lines at the top, so adding an
entry costs the same at any length. While the person reads scrolled up, nothing is moved (nothing
shifts under their eyes); the catching up happens once they are back at the bottom.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from wisp.protocol import Event

from .archive import Archive, ArchivedEntry
from .tool_line import ToolLine, clean_output

if TYPE_CHECKING:
    from .reply import Reply

SPARE_ROWS = 12
"""Rows of live entries kept beyond a screenful: an entry is archived only once out of sight."""
MIN_LIVE_ENTRIES = 8
"""Entries kept live while they fill under three screens: the newest folds stay reachable by
Shift-Tab, but a long reply's segments do not keep hundreds of Markdown widgets alive."""


class Entry(Static):
    """A finished line of the transcript: a note, an error, output, or a sent line."""

    DEFAULT_CSS = """
    Entry { padding: 0 1; height: auto; }
    Entry.-note { color: $mist; }
    Entry.-error { color: $ember; }
    Entry.-output { color: $white; }
    Entry.-user {
        color: $white;
        text-style: bold;
        background: $sent;
        border-top: inner $sent;
        border-bottom: inner $sent;
    }
    Entry.-command {
        color: $white;
        text-style: bold;
        background: $command-sent;
        border-top: inner $command-sent;
        border-bottom: inner $command-sent;
    }
    """

    def __init__(self, text: str, kind: str) -> None:
        self.text = clean_output(text)
        # Text, not markup: wisp's words and command output are shown as written.
        super().__init__(Text(self.text), classes=f"-{kind}")
        self.kind = kind


def note_entry(text: str) -> Entry:
    """A note from wisp (or wisp-tui), shown as an error when it is one."""
    return Entry(text, "error" if text.startswith("error") else "note")


ARCHIVE_BATCH_ENTRIES = 30
ARCHIVE_BATCH_ROWS = 120
"""Out-of-sight entries are archived once there are this many of them, or this many rows."""


class Transcript(VerticalScroll):
    """Appends entries in arrival order; only the reply being streamed is ever rewritten."""

    DEFAULT_CSS = """
    Transcript {
        layout: stream;
        background: transparent;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *notes: str) -> None:
        """`notes`: what wisp said before the screen was built, its first entries."""
        super().__init__(*map(note_entry, notes), id="transcript")
        self._reply: Reply | None = None
        self._leaving: set[Widget] = set()  # being moved into the archive
        self._is_behind = False  # entries were left live while the person read scrolled up
        self._is_measuring = False  # a check is due once new entries have been laid out
        self.archive = Archive()

    def on_mount(self) -> None:
        # Follow the bottom unless the person scrolls up: from the first frame on, since
        # anchored before its first layout, the view starts scrolled past the entries that
        # wisp said before the screen was built, and the first frame shows none of them.
        self.call_after_refresh(self.anchor)

    @property
    def is_following(self) -> bool:
        """Following the bottom: anchored, and not scrolled away by the person."""
        # Textual keeps "scrolled away" only in this flag; `is_anchored` stays True meanwhile.
        return self.is_anchored and not self._anchor_released

    @property
    def live_entries(self) -> list[Widget]:
        """The entries that are widgets, oldest first (the archive holds the rest)."""
        return [
            child
            for child in self.children
            if child is not self.archive and child not in self._leaving
        ]

    def folds(self) -> Iterator[ToolLine]:
        """Every tool and thought line, archived ones included, oldest first."""
        yield from self.archive.folds()
        for child in self.live_entries:
            if isinstance(child, ToolLine):
                yield child

    def texts(self) -> Iterator[str]:
        """Every entry's text as a person reads it, oldest first (a reply's as its Markdown)."""
        for entry in self.archive.entries:
            yield entry.plain
        for child in self.live_entries:
            yield _plain(child)

    async def toggle_all_folds(self) -> None:
        """Ctrl-G: open every fold when any is shut, else shut them all; with none, say so."""
        folds = [fold for fold in self.folds() if fold.is_foldable]
        if not folds:
            self.notify("nothing to fold yet: no output or thinking shown", timeout=3)
            return
        await self.set_all_folds(any(not fold.is_open for fold in folds))

    def step_fold(self, step: int) -> bool:
        """Focus the next fold: Shift-Tab (-1) from outside the folds the newest, then older ones
        down to the oldest; Tab (+1) newer ones. False when the step goes past the newest."""
        folds = [fold for fold in self.query(ToolLine) if fold.is_foldable]
        focused = self.app.focused
        if isinstance(focused, ToolLine) and focused in folds:
            index = folds.index(focused) + step
        else:
            index = len(folds) - 1 if step < 0 else len(folds)
        if 0 <= index < len(folds):
            folds[index].focus()
        return index < len(folds)

    async def set_all_folds(self, is_open: bool) -> None:
        """Open or shut every fold, archived ones included (Ctrl-G)."""
        self.archive.set_all_folds(is_open)
        for child in self.live_entries:
            if isinstance(child, ToolLine):
                child.set_open(is_open)

    async def add_note(self, text: str) -> None:
        await self._add(note_entry(text))

    async def add_error(self, text: str) -> None:
        await self._add(Entry(text, "error"))

    async def add_output(self, text: str) -> None:
        await self._add(Entry(text, "output"))

    async def add_sent(self, text: str, *, is_command: bool) -> None:
        if is_command:
            await self._add(Entry(f"! {text}", "command"))
        else:
            await self._add(Entry(f"› {text}", "user"))

    async def add_event(self, event: Event) -> None:
        """An event's line and folded output; an event with neither shows nothing."""
        output = event.output or None
        if event.text is None and output is None:
            return
        await self._add(ToolLine(event.text, output, is_error=event.kind == "error"))

    async def write_reply(self, fragment: str) -> None:
        """Append to the reply segment, starting one below everything else when none is open."""
        if not self.is_attached:
            return  # shutting down: nothing more is shown
        if self._reply is None:
            # Imported at the first reply: Textual's Markdown and markdown-it are not needed
            # to start, and start-up is measured (docs/performance.md).
            from .reply import Reply

            self._reply = Reply()
            await self.mount(self._reply)
        await self._reply.write(fragment)
        if self._reply.is_long:
            await self._freeze_reply(self._reply)

    async def _freeze_reply(self, reply: Reply) -> None:
        """Move a long reply's oldest blocks into the archive, with every entry above it."""
        if not self.is_following:
            return  # nothing moves while the person reads
        if not reply.is_long:
            return
        text = await reply.take_frozen()
        if text is None:
            return
        above = [entry for entry in self.live_entries if entry is not reply]
        if not self.archive.is_mounted:
            await self.mount(self.archive, before=0)
        self.archive.extend([*(_archived(entry) for entry in above), ArchivedEntry("reply", text)])
        self._leaving.update(above)
        try:
            await self.remove_children(above)
        finally:
            self._leaving.difference_update(above)

    async def end_reply(self) -> None:
        """End the reply segment; the next fragment starts a new one."""
        reply, self._reply = self._reply, None
        if reply is not None:
            await reply.finish(between=lambda: self._freeze_reply(reply))

    async def _add(self, widget: Widget) -> None:
        await self.end_reply()
        if not self.is_attached:
            return  # shutting down: a late line from wisp has nowhere to go
        await self.mount(widget)
        await self.archive_old_entries()

    async def archive_old_entries(self) -> None:
        """Move the finished entries above the screen's worth of newest ones into the archive.

        Only while following the bottom: the moved entries are then out of sight, so a small
        difference between a live reply's look and its archived one is never seen to change.
        """
        old = self._out_of_sight()
        if not old or not self._worth_archiving(old):
            return
        if not self.is_following:
            self._is_behind = True
            return
        self._is_behind = False
        if not self.archive.is_mounted:
            # Mounted at the first move, above every entry: start-up need not build it.
            await self.mount(self.archive, before=0)
        self.archive.extend([_archived(entry) for entry in old])
        self._leaving.update(old)  # a second call while these are removed must skip them
        try:
            await self.remove_children(old)
        finally:
            self._leaving.difference_update(old)

    def _out_of_sight(self) -> list[Widget]:
        """The oldest live entries, up to those the newest need to fill a screen and more.

        An entry not yet laid out counts no rows, so it keeps older ones live until it is; the
        check is made again after the next layout.
        """
        live = self.live_entries
        wanted = self.scrollable_content_region.height + SPARE_ROWS
        rows, keep_from = 0, len(live)
        while keep_from > 0 and (
            rows < wanted or (len(live) - keep_from < MIN_LIVE_ENTRIES and rows < 3 * wanted)
        ):
            keep_from -= 1
            height = live[keep_from].outer_size.height
            rows += height
            if not height and not self._is_measuring:
                self._is_measuring = True
                self.call_after_refresh(self._archive_when_measured)
        return [entry for entry in live[:keep_from] if entry is not self._reply]

    @staticmethod
    def _worth_archiving(old: list[Widget]) -> bool:
        """Enough to move at once: each move removes widgets and lays the transcript out
        again, so entries go in batches rather than one every turn."""
        rows = sum(entry.outer_size.height for entry in old)
        return len(old) >= ARCHIVE_BATCH_ENTRIES or rows >= ARCHIVE_BATCH_ROWS

    async def _archive_when_measured(self) -> None:
        self._is_measuring = False
        await self.archive_old_entries()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # Back at the bottom after reading: catch up on what was left live meanwhile.
        if self._is_behind and self.is_following:
            self._is_behind = False
            self.call_later(self.archive_old_entries)


def _archived(widget: Widget) -> ArchivedEntry:
    from .reply import Reply

    if isinstance(widget, ToolLine):
        return ArchivedEntry("tool", tool_line=widget)
    if isinstance(widget, Reply):
        return ArchivedEntry("reply", widget.live_source)
    if isinstance(widget, Entry):
        return ArchivedEntry(widget.kind, widget.text)
    return ArchivedEntry("output", _plain(widget))


def _plain(widget: Widget) -> str:
    from .reply import Reply

    if isinstance(widget, Reply):
        return widget.live_source
    if isinstance(widget, ToolLine):
        return widget.render_text().plain
    if isinstance(widget, Entry):
        return widget.text
    return str(widget.render()) if isinstance(widget, Static) else ""
