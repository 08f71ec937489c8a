"""What a request carries, entry by entry, in tokens: ``/inspect context`` and the Markdown files a
condensation saves (docs/turn.md, "Seeing the context").

A report is built from the store's marks alone: an entry dropped during turn D is out of every
request from turn D on, and an output referenced from turn R goes as its reference from then on,
so the context any turn started with can be rebuilt (``at_turn``), not only the next one.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby
from typing import TYPE_CHECKING

import msgspec

from wisp.agent.compose import compose_entry, replacement
from wisp.agent.context import ContextMeter
from wisp.agent.prompt import tool_specs
from wisp.agent.text import utf8_len
from wisp.agent.types import BYTES_PER_TOKEN, ChatRequest, Message, message_bytes
from wisp.diagnostics import logger
from wisp.home import ensure_private_dir, replace_atomically
from wisp.store import Entry

if TYPE_CHECKING:
    from wisp.agent.loop import Conversation

_KIND_WORDS = {
    "prompt": "prompt",
    "toolCalls": "tool calls",
    "toolOutput": "output",
    "response": "reply",
    "command": "the person's command",
    "other": "note",
}


class Line(msgspec.Struct):
    """One entry as a request carries it."""

    entry: Entry
    text: str
    tokens: int
    referenced: bool

    @property
    def label(self) -> str:
        words = _KIND_WORDS.get(self.entry.kind, self.entry.kind)
        if self.entry.kind == "toolOutput":
            words = f"{self.entry.value.tool} output"
            if self.referenced:
                words += ", as its reference"
        elif self.entry.kind == "toolCalls":
            words += ": " + ", ".join(call.name for call in self.entry.value)
        return f"entry {self.entry.id} · {words} · {self.tokens:,} tokens"


class Beside(msgspec.Struct):
    """Text a request carries beside the stored entries (docs/turn.md, "Facts" and "The
    running summary")."""

    name: str
    text: str
    tokens: int


class Report(msgspec.Struct):
    """A request's context: the fixed part, the literal turns, what was left out, the room."""

    title: str
    window: int | None
    instructions_text: str
    instructions: int
    schemas: int
    lines: list[Line] = msgspec.field(default_factory=list)
    dropped: list[Entry] = msgspec.field(default_factory=list)
    reasoning: int = 0
    beside: list[Beside] = msgspec.field(default_factory=list)
    """What goes with the entries though no entry holds it: the running summary, the facts."""

    @property
    def used(self) -> int:
        lines = sum(line.tokens for line in self.lines)
        return self.instructions + self.schemas + lines + sum(b.tokens for b in self.beside)

    def markdown(self) -> str:
        out = [f"# {self.title}", ""]
        out += self._summary()
        out += ["", f"## instructions · {self.instructions:,} tokens", ""]
        out += [_fenced(self.instructions_text), ""]
        for part in self.beside:
            out += [f"## {part.name} · {part.tokens:,} tokens", "", _fenced(part.text), ""]
        for number, group in groupby(self.lines, key=lambda line: line.entry.turn):
            lines = list(group)
            tokens = sum(line.tokens for line in lines)
            span = _span(line.entry for line in lines)
            out += [f"## turn {number} · {span} · {tokens:,} tokens", ""]
            for line in lines:
                out += [f"### {line.label}", "", _fenced(line.text), ""]
        return "\n".join(out).rstrip() + "\n"

    def _summary(self) -> list[str]:
        used = self.used
        turns = len({line.entry.turn for line in self.lines if line.entry.kind == "prompt"})
        references = sum(line.referenced for line in self.lines)
        beside = sum(part.tokens for part in self.beside)
        rows = [
            f"- instructions: {self.instructions:,} tokens",
            f"- tool schemas: {self.schemas:,} tokens",
            *(f"- {part.name}: {part.tokens:,} tokens" for part in self.beside),
            f"- {turns} literal turn{'s' if turns != 1 else ''}, {references} "
            f"output{'s' if references != 1 else ''} as references: "
            f"{used - self.instructions - self.schemas - beside:,} tokens",
        ]
        if self.window:
            free = self.window - used
            rows.append(f"- free room of the {self.window:,}-token window: {free:,} tokens")
        else:
            rows.append("- free room: unknown, since the window is not known")
        if self.dropped:
            rows.append(f"- dropped, not sent: {_dropped_words(self.dropped)}")
        return rows


def next_request(conversation: Conversation) -> Report:
    """What the next request will carry, as things stand."""
    meter = conversation.meter
    report = _report(conversation, "The context the next request carries")
    carried = (
        ("the running summary", conversation.summary.block()),
        ("facts in force", conversation.facts.in_force()),
    )
    for name, text in carried:
        if text:
            report.beside.append(Beside(name, text, meter.scaled(meter.text_tokens(text))))
    for entry in conversation.store:
        if entry.kind in ("instructions", "reasoning"):
            continue
        if not entry.active:
            report.dropped.append(entry)
            continue
        referenced = entry.referenced_at is not None
        text = replacement(entry, meter.reference_text) or entry.text
        tokens = meter.scaled(meter.entry_tokens(entry))
        report.lines.append(Line(entry, text, tokens, referenced))
    return report


def at_turn(conversation: Conversation, turn: int) -> Report:
    """The context turn ``turn``'s first request carried: its earlier entries with the marks
    in force then, and its prompt."""
    meter = conversation.meter
    report = _report(conversation, f"The context turn {turn} started with")
    for entry in conversation.store:
        if entry.kind in ("instructions", "reasoning"):
            continue
        if entry.turn is not None and entry.turn > turn:
            break
        if entry.turn == turn and entry.kind not in ("prompt", "command"):
            continue  # the turn's own replies and calls came after its first request
        if entry.dropped_at is not None and entry.dropped_at <= turn:
            report.dropped.append(entry)
            continue
        referenced = entry.referenced_at is not None and entry.referenced_at <= turn
        text = meter.reference_text(entry) if referenced else entry.text
        replaced = text if referenced else None
        if entry.cuts:  # a reply's copies are cut from the turn after its own
            text = replaced = replacement(entry, meter.reference_text)
        size = sum(message_bytes(m) for m in compose_entry(entry.kind, entry.value, replaced))
        tokens = meter.scaled(-(-size // BYTES_PER_TOKEN))
        report.lines.append(Line(entry, text, tokens, referenced))
    return report


def saved_request(conversation: Conversation) -> bytes:
    """The next request exactly, as JSON: its messages and its tools."""
    specs = tool_specs(conversation.tools, conversation.resolved.context_size)
    request = ChatRequest(conversation.messages([]), specs)
    return msgspec.json.format(
        msgspec.json.encode({"messages": request.messages, "tools": request.tools})
    )


def save_context(
    conversation: Conversation, name: str, turn: int, phase: str, entries: Iterable[Entry]
) -> str | None:
    """A condensation's context ``before`` or ``after`` it, as Markdown in
    ``WISP_HOME/context/<name>.md``; the path, or None when it cannot be written."""
    title = f"The context of turn {turn}, {phase} it was condensed"
    text = entries_markdown(title, conversation.instructions, entries, conversation.meter)
    path = conversation.home / "context" / f"{name}.md"
    try:
        ensure_private_dir(path.parent)
        replace_atomically(path, text.encode())
    except OSError as exc:
        logger.warning("cannot save the context in %s: %s", path, exc)
        return None
    return str(path)


def entries_markdown(
    title: str, instructions: str, entries: Iterable[Entry], meter: ContextMeter
) -> str:
    """Each entry as a request carries it."""
    out = [f"# {title}", "", "## instructions", "", _fenced(instructions), ""]
    for entry in entries:
        text = replacement(entry, meter.reference_text) or entry.text
        kind = _KIND_WORDS.get(entry.kind, entry.kind)
        out += [f"## entry {entry.id} · turn {entry.turn} · {kind}", "", _fenced(text), ""]
    return "\n".join(out).rstrip() + "\n"


def _report(conversation: Conversation, title: str) -> Report:
    meter = conversation.meter
    instructions = [Message(role="system", content=conversation.instructions)]
    specs = tool_specs(conversation.tools, conversation.resolved.context_size)
    fixed = meter.fixed_tokens(conversation.instructions, specs)
    own = ChatRequest(instructions).estimated_tokens()
    return Report(
        title=title,
        window=conversation.resolved.context_size,
        instructions_text=conversation.instructions,
        instructions=meter.scaled(own),
        schemas=meter.scaled(fixed - own),
    )


def _dropped_words(entries: list[Entry]) -> str:
    turns = sorted({entry.turn for entry in entries if entry.turn is not None})
    count = len(turns)
    which = f"turn {turns[0]}" if count == 1 else f"turns {turns[0]}-{turns[-1]}"
    size = sum(utf8_len(entry.text) for entry in entries)
    return (
        f"{which} ({count} turn{'s' if count != 1 else ''}, {_span(entries)}, {size:,} bytes); "
        "still stored: memory recall or /show brings one back"
    )


def _span(entries: Iterable[Entry]) -> str:
    ids = [entry.id for entry in entries]
    first, last = ids[0], ids[-1]
    return f"entry {first}" if first == last else f"entries {first}-{last}"


def _fenced(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}\n{text}\n{fence}"
