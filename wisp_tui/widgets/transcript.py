"""The transcript: every entry of §4, oldest at the top, following the bottom (§2)."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from wisp.protocol import Event

from .reply import Reply
from .tool_line import ToolLine, clean_output


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
        # Text, not markup: wisp's words and command output are shown as written.
        super().__init__(Text(clean_output(text)), classes=f"-{kind}")
        self.kind = kind


class Transcript(VerticalScroll):
    """Appends entries in arrival order; only the reply being streamed is ever rewritten."""

    DEFAULT_CSS = """
    Transcript {
        background: transparent;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self) -> None:
        super().__init__(id="transcript")
        self._reply: Reply | None = None

    def on_mount(self) -> None:
        self.anchor()  # follow the bottom unless the person scrolls up

    async def add_note(self, text: str) -> None:
        kind = "error" if text.startswith("error") else "note"
        await self._add(Entry(text, kind))

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
        """An event's line and folded output; an event with neither shows nothing (§6)."""
        output = event.output or None
        if event.text is None and output is None:
            return
        await self._add(ToolLine(event.text, output, is_error=event.kind == "error"))

    async def write_reply(self, fragment: str) -> None:
        """Append to the reply segment, starting one below everything else when none is open."""
        if self._reply is None:
            self._reply = Reply()
            await self.mount(self._reply)
        await self._reply.write(fragment)

    async def end_reply(self) -> None:
        """End the reply segment; the next fragment starts a new one (§5)."""
        reply, self._reply = self._reply, None
        if reply is not None:
            await reply.finish()

    async def _add(self, widget: Static) -> None:
        await self.end_reply()
        await self.mount(widget)
