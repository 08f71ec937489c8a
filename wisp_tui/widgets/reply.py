"""One segment of the streamed reply: Markdown, appended fragment by fragment (§5, D9)."""

from __future__ import annotations

from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownStream


class Reply(Markdown):
    """A reply segment. `write` appends through `Markdown.get_stream()`, never re-rendering."""

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
    }
    Reply .code_inline {
        color: $wisp;
        background: transparent;
    }
    Reply MarkdownBullet { color: $mist; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._stream: MarkdownStream | None = None

    async def write(self, fragment: str) -> None:
        """Append a fragment; the stream batches fragments that outpace drawing."""
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        await self._stream.write(fragment)

    async def finish(self) -> None:
        """End the segment: whatever is pending is drawn, then the stream stops."""
        if self._stream is not None:
            await self._stream.stop()
