"""The plain line chat: a prompt, a streamed reply, the lines under it; slash commands.

On a terminal the muted lines and tool folds are styled with Rich; in a pipe everything is
plain text. Ctrl-C stops a running turn (D8); at the prompt it leaves, as Ctrl-D and /quit do.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol, TextIO

from wisp.agent.checks import thought_line
from wisp.agent.compose import compose
from wisp.agent.events import (
    AgentEvent,
    Note,
    TextFragment,
    ThinkingEnded,
    ToolFinished,
    TurnResult,
)
from wisp.agent.loop import Conversation
from wisp.store import Entry

FOLD_LINES = 20
FOLD_BYTES = 2048

HELP = """\
/help            this list
/show N          entry N whole (or an event id: its first characters)
/inspect context what the next request will carry
/new             start a new conversation (the turn count goes on)
/model [NAME]    show the model, or change to NAME (the conversation is kept)
/tools           the tools the model may use
/save NAME       save the conversation now, and again on quitting
/quit            leave (Ctrl-D too)
!COMMAND         run a command yourself (the deny list and the sandbox apply; Ctrl-C stops
                 it); the model is told of it on its next turn"""


class ChatHost(Protocol):
    """What the chat asks of whoever opened it (the CLI wires these)."""

    conversation: Conversation

    async def switch_model(self, name: str) -> list[str]: ...

    def new_conversation(self) -> None: ...

    def save(self, name: str) -> Path: ...

    async def run_typed(self, line: str) -> TypedCommand: ...


class TypedCommand(Protocol):
    """What chat shows of a ``!`` command."""

    output: str
    exit_status: int | None
    stopped: bool
    refused: str | None
    seconds: float


class LineReader:
    """Lines from stdin without blocking the event loop, so Ctrl-C is always heard."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._reader: asyncio.StreamReader | None = None

    async def readline(self) -> str | None:
        """The next line without its newline; None at the end of input."""
        if self._reader is None and not _is_regular_file(self.stream):
            loop = asyncio.get_running_loop()
            self._reader = asyncio.StreamReader()
            protocol = asyncio.StreamReaderProtocol(self._reader)
            await loop.connect_read_pipe(lambda: protocol, self.stream)
        if self._reader is None:
            line = self.stream.readline()  # a regular file never blocks
            return line.rstrip("\n") if line else None
        raw = await self._reader.readline()
        return raw.decode(errors="replace").rstrip("\n") if raw else None


def _is_regular_file(stream: TextIO) -> bool:
    try:
        return os.path.isfile(f"/proc/self/fd/{stream.fileno()}")
    except (OSError, ValueError):
        return True


class PlainChat:
    """The REPL. ``host`` opens conversations and models; the chat only talks."""

    def __init__(
        self, host: ChatHost, out: TextIO, err: TextIO, reader: LineReader
    ) -> None:
        self.host = host
        self.out = out
        self.err = err
        self.reader = reader
        self.is_terminal = out.isatty()
        self.save_name: str | None = None
        self._leaving = asyncio.Event()
        self._turn_running = False
        self._console = _console(out) if self.is_terminal else None
        self._commands: dict[str, Callable[[str], Awaitable[None] | None]] = {
            "help": lambda _: self.say(HELP),
            "show": self.show,
            "inspect": self.inspect,
            "new": self.new,
            "model": self.model,
            "tools": self.tools,
            "save": self.save,
        }

    # -- the loop -----------------------------------------------------------------------

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, self._interrupt)
        try:
            while not self._leaving.is_set():
                line = await self._next_line()
                if line is None:
                    break
                await self.handle(line)
        finally:
            loop.remove_signal_handler(signal.SIGINT)
        if self.save_name:
            self.muted(f"saved '{self.save_name}' to {self.host.save(self.save_name)}")
        return 0

    async def _next_line(self) -> str | None:
        if self.is_terminal:
            self.out.write("› ")
            self.out.flush()
        read = asyncio.ensure_future(self.reader.readline())
        leave = asyncio.ensure_future(self._leaving.wait())
        try:
            done, _ = await asyncio.wait({read, leave}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            leave.cancel()
        if read in done:
            return read.result()
        read.cancel()
        return None

    def _interrupt(self) -> None:
        if self._turn_running:
            self.host.conversation.stop()  # D8: stop the turn, stay in the chat
        else:
            self._leaving.set()

    async def handle(self, line: str) -> None:
        text = line.strip()
        if not text:
            return
        if text.startswith("/"):
            await self.command(text[1:])
            return
        if text.startswith("!"):
            await self.typed(text[1:].strip())
            return
        self._turn_running = True
        try:
            result = await self.host.conversation.run_turn(text, self.emit)
        finally:
            self._turn_running = False
        self.finish(result)

    async def typed(self, line: str) -> None:
        """``!cmd``: the person's own command; Ctrl-C stops it (policy.md §10)."""
        if not line:
            return
        self._turn_running = True
        try:
            done = await self.host.run_typed(line)
        finally:
            self._turn_running = False
        if done.refused is not None:
            self.muted(f"· blocked by policy: {done.refused}")
            return
        if done.output:
            self.say(done.output.rstrip("\n"))
        status = f"↳ exit {done.exit_status}"
        if done.stopped:
            status += " (stopped by you)"
        self.muted(f"{status} · {done.seconds:.1f} s")

    async def command(self, text: str) -> None:
        name, _, argument = text.partition(" ")
        if name in ("quit", "exit", "q"):
            self._leaving.set()
            return
        handler = self._commands.get(name)
        if handler is None:
            self.say(f"unknown command /{name}; /help lists them")
            return
        outcome = handler(argument.strip())
        if outcome is not None:
            await outcome

    # -- a turn, shown ----------------------------------------------------------------------

    def emit(self, event: AgentEvent) -> None:
        match event:
            case TextFragment(text=text):
                self.out.write(text)
                self.out.flush()
            case ThinkingEnded():
                self.muted(thought_line(event.seconds, event.tokens))
                self.fold(event.text, event.event_id)
            case ToolFinished():
                self.tool_line(event)
            case Note(text=text):
                self.muted(text)
            case _:
                pass

    def tool_line(self, event: ToolFinished) -> None:
        data = event.output.encode()
        first = event.output.split("\n", 1)[0]
        self.muted(f"↳ {event.call.name}: {len(data)} bytes in {event.seconds:.1f} s: {first}")
        self.fold(event.output, event.event_id)

    def fold(self, text: str, event_id: str) -> None:
        """Up to 20 lines and 2 KiB, indented, then where the rest is (agent.md §6.11)."""
        lines = text.split("\n")
        shown: list[str] = []
        size = 0
        for line in lines[:FOLD_LINES]:
            size += len(line.encode()) + 1
            if size > FOLD_BYTES:
                break
            shown.append(line)
        body = "\n".join("    " + line for line in shown)
        rest = len(lines) - len(shown)
        if rest > 0:
            size = len(text.encode())
            body += f"\n    … {rest} more lines, {size} bytes in all: /show {event_id[:8]}"
        self.muted(body)

    def finish(self, result: TurnResult) -> None:
        self.out.write("\n")
        for line in (result.ran, result.cited):
            if line:
                self.muted("  " + line)
        if result.outcome == "error":
            self.say(f"error: {result.error}")
        elif result.outcome == "stopped":
            self.muted("  (stopped)")
        self.muted(f"  {result.seconds:.1f} s")

    # -- commands ---------------------------------------------------------------------------

    def show(self, argument: str) -> None:
        store = self.host.conversation.store
        entry = _find_entry(store.entries, argument)
        if entry is None:
            self.say(f"no entry {argument!r}; entries run from 1 to {store.last_id}")
            return
        turn = f", turn {entry.turn}" if entry.turn is not None else ""
        self.muted(f"[entry {entry.id}, {entry.kind}{turn}]")
        self.say(entry.text)

    def inspect(self, argument: str) -> None:
        if argument != "context":
            self.say("usage: /inspect context")
            return
        conversation = self.host.conversation
        messages = compose(
            conversation.instructions, conversation.store, [], memory=conversation.memory
        )
        for message in messages:
            calls = ", ".join(c.name for c in message.tool_calls)
            first = message.content.split("\n", 1)[0][:80]
            size = len(message.content.encode())
            self.say(f"{message.role:<9} {size:>6} B  {calls or first}")

    def new(self, _: str) -> None:
        self.host.new_conversation()
        self.muted("(a new conversation)")

    async def model(self, name: str) -> None:
        if not name:
            self.say(self.host.conversation.model)
            return
        for note in await self.host.switch_model(name):
            self.muted(note)
        self.muted(f"(now {self.host.conversation.model})")

    def tools(self, _: str) -> None:
        tools = self.host.conversation.tools
        if not tools:
            self.say("no tools in this conversation")
        for tool in tools:
            self.say(f"{tool.name:<12} {tool.description.split('.')[0]}")

    def save(self, name: str) -> None:
        if not name:
            self.say("usage: /save <name>")
            return
        self.save_name = name
        self.muted(f"saved '{name}' to {self.host.save(name)}")

    # -- output -------------------------------------------------------------------------------

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def muted(self, text: str) -> None:
        if self._console is not None:
            self._console.print(text, style="dim", markup=False, highlight=False)
        else:
            print(text, file=self.out, flush=True)


def _find_entry(entries: list[Entry], argument: str) -> Entry | None:
    argument = argument.strip().removeprefix("entry").strip().lstrip("#")
    if argument.isdigit():
        number = int(argument)
        return entries[number - 1] if 1 <= number <= len(entries) else None
    if len(argument) >= 4:  # an event id's first characters (the fold line names 8)
        for entry in entries:
            if any(source.event.startswith(argument) for source in entry.sources):
                return entry
    return None


def _console(out: TextIO):  # type: ignore[no-untyped-def]
    from rich.console import Console

    return Console(file=out, soft_wrap=True)
