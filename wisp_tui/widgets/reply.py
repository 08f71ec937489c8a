"""One segment of the streamed reply: Markdown, appended fragment by fragment
(docs/tui.md, "The reply")."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import ClassVar

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock, MarkdownFence, MarkdownStream

FASTEST = 1 / 12
"""Seconds between appends at most: text still appears as it is read."""
SLOWEST = 1 / 2
"""Seconds between appends at least: a long reply still moves twice a second."""
CPU_SHARE = 0.08
"""The share of a core the appends aim to stay within.

Each append re-parses the open block, and Textual lays out and redraws the screen: about 10 ms
for a short reply, growing with its length (and with the transcript above it). So the pause
after an append is that cost over this share, kept between FASTEST and SLOWEST: a model's 50
fragments a second become a few appends, never one per fragment.
"""


FREEZE_BLOCKS = 40
KEEP_BLOCKS = 20
"""A reply with more than FREEZE_BLOCKS blocks hands all but its newest KEEP_BLOCKS to the
archive (they are well above the screen by then)."""


FINISH_PIECE = 6_000
"""Characters a segment's end appends at a time (see `Reply.finish`)."""


def pause_after(cpu_seconds: float) -> float:
    """Seconds to wait after an append whose window used `cpu_seconds` of the process's CPU."""
    return min(SLOWEST, max(FASTEST, cpu_seconds / CPU_SHARE))


class PlainFence(MarkdownFence):
    """A code block as typed: no syntax colours, so it reads in WISP like the rest."""

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        return Content(code.rstrip("\n"))


class Reply(Markdown):
    """A reply segment. `write` appends through `Markdown.get_stream()`, never re-rendering.

    Fragments are held and passed to the stream together: the first at once, later ones when the
    pause after the last append is up (`pause_after`, measured from the CPU the process used since
    the append before). `finish` passes on whatever is held, so nothing is lost or reordered.
    """

    DEFAULT_CSS = """
    Reply {
        background: transparent;
        color: $white;
        margin: 0 0 0 0;
        padding: 0 1;
    }
    Reply MarkdownH1, Reply MarkdownH2, Reply MarkdownH3,
    Reply MarkdownH4, Reply MarkdownH5, Reply MarkdownH6 {
        color: $glow;
        text-style: bold;
        content-align: left middle;
        background: transparent;
    }
    Reply MarkdownFence {
        background: transparent;
        color: $wisp;
        margin: 0 0 1 0;
    }
    Reply MarkdownFence > Label { padding: 0 2; }
    Reply MarkdownBlock > .code_inline,
    Reply MarkdownBlock:dark > .code_inline,
    Reply MarkdownBlock:light > .code_inline {
        color: $wisp;
        background: transparent;
    }
    Reply MarkdownBullet { color: $mist; }
    """

    BLOCKS: ClassVar[dict[str, type[MarkdownBlock]]] = {
        **Markdown.BLOCKS,
        "fence": PlainFence,
        "code_block": PlainFence,
    }

    def __init__(self) -> None:
        super().__init__()
        self._frozen_line = 0  # the source's lines before this are no longer blocks here
        self._stream: MarkdownStream | None = None
        self._held: list[str] = []
        self._flush_timer: Timer | None = None
        self._next_flush = float("-inf")
        self._cpu_at_flush = 0.0
        self._is_finished = False

    async def write(self, fragment: str) -> None:
        """Hold a fragment; pass the held text on now, or when the flush interval is up."""
        if not fragment or self._is_finished:
            return
        self._held.append(fragment)
        if self._flush_timer is not None:
            return  # a flush is already due and will take this fragment too
        wait = self._next_flush - time.monotonic()
        if wait <= 0:
            await self._flush()
        else:
            self._flush_timer = self.set_timer(wait, self._flush, name="reply flush")

    async def finish(self, between: Callable[[], Awaitable[None]] | None = None) -> None:
        """End the segment: everything held is appended and in the widget when this returns.

        What is still held goes in pieces of FINISH_PIECE characters, with `between` awaited
        after each (the transcript moves old blocks to the archive there): one append of all
        of a long reply's held text would mount every one of its blocks at once.
        """
        if self._is_finished:
            return
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        held = "".join(self._held)
        self._held.clear()
        self._is_finished = True
        if self._stream is not None:
            await self._stream.stop()
            # `stop` can return while an append it shielded is still mounting blocks; each
            # append holds the widget's lock, so taking it waits for the last one.
            async with self.lock:
                pass
            # The stream's timed appends may have mounted the whole reply already, with no
            # held text left to append below: the blocks they mounted are moved on here.
            if between is not None:
                await between()
        for at in range(0, len(held), FINISH_PIECE):
            await self.append(held[at : at + FINISH_PIECE])
            if between is not None:
                await between()

    @property
    def is_long(self) -> bool:
        """More blocks than FREEZE_BLOCKS: some can go to the archive (`take_frozen`)."""
        return len(self.children) > FREEZE_BLOCKS

    @property
    def live_source(self) -> str:
        """The Markdown still drawn here: the source less what `take_frozen` gave away."""
        return "".join(self.source.splitlines(keepends=True)[self._frozen_line :])

    async def take_frozen(self) -> str | None:
        """Remove the oldest blocks, all but the newest KEEP_BLOCKS, once there are more than
        FREEZE_BLOCKS; return their Markdown, for the archive to draw instead. Each append
        lays out every block, so a reply that kept them all would grow dearer without end."""
        async with self.lock:  # never while an append is mounting blocks
            blocks = [child for child in self.children if isinstance(child, MarkdownBlock)]
            if len(blocks) <= FREEZE_BLOCKS:
                return None
            old = blocks[: len(blocks) - KEEP_BLOCKS]
            end = old[-1].source_range[1]
            lines = self.source.splitlines(keepends=True)
            text = "".join(lines[self._frozen_line : end])
            self._frozen_line = end
            await self.remove_children(old)
            return text

    async def _flush(self) -> None:
        """Pass the held fragments to the stream as one append."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        if not self._held or self._is_finished:
            return  # a timer that fired after `finish` took everything
        text = "".join(self._held)
        self._held.clear()
        self._schedule_next()
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        await self._stream.write(text)

    def _schedule_next(self) -> None:
        """Set when the next append may happen, from what the last window cost."""
        now, cpu = time.monotonic(), time.process_time()
        # The first append has nothing measured before it.
        used = 0.0 if self._stream is None else cpu - self._cpu_at_flush
        self._cpu_at_flush = cpu
        self._next_flush = now + pause_after(used)
