"""Copies of output cut from later requests (docs/turn.md, "Copies of output cut from later
requests").

A model often shows the person a tool output by copying it into its reply: the file it read,
the command's lines. The next request would then carry those lines twice, once in the output
(or its reference) and once in the reply. After a successful turn, each stretch of the reply
that reproduces one of the turn's outputs exactly, whole lines of at least ``MIN_WORDS`` words,
is marked on the stored reply (its ``cuts``) and recorded as ``context.cut``; later requests
carry ``(showed the person the read_file output, entry 5)`` in its place. The stored and shown
reply is never changed.

Lines are compared after collapsing whitespace, with a ``read_file`` line's number taken off
and a table row read as its cells, so a copy survives the model's spacing and a Markdown
table. Only exact copies are cut: every line of a stretch is a line of the output (its
``coverage`` is always 1), blank lines allowed between them, and a code fence around it goes
with it.

Only the turn's final reply is cut, from the next request on: it was never in a request of its
own turn, so a runtime's prompt cache, which holds every request's prefix, loses nothing that
a later request could reuse.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

import msgspec

from wisp.agent.types import BYTES_PER_TOKEN
from wisp.audit.kinds import ContextCut
from wisp.store import ConversationStore, Entry, ReplyCut, ToolOutputValue

MIN_WORDS = 24
"""A stretch shorter than this is a quote, not a copy: it stays."""
_NUMBERED = re.compile(r"^\d+\t")
_FENCE = "```"
_TABLE_RULE = re.compile(r"[-:| ]*-[-:| ]*")
"""A Markdown table's rule under its header, within a stretch like a blank line."""


class Stretch(msgspec.Struct, frozen=True):
    """Whole lines of a reply, ``[start, end)`` in its UTF-8 bytes."""

    start: int
    end: int
    words: int


def marker(tool: str, output: int) -> str:
    """What later requests carry in place of a stretch."""
    return f"(showed the person the {tool} output, entry {output})"


def cut_text(text: str, cuts: Sequence[ReplyCut]) -> str:
    """The reply as later requests carry it: each cut stretch replaced by its marker."""
    raw = text.encode()
    parts: list[bytes] = []
    at = 0
    for cut in sorted(cuts, key=lambda c: c.start):
        parts += [raw[at : cut.start], marker(cut.tool, cut.output).encode()]
        at = cut.end
    parts.append(raw[at:])
    return b"".join(parts).decode()


def cut_turn(store: ConversationStore, turn: int, record: Callable[[ContextCut], object]) -> None:
    """Mark the copies of the turn's outputs in its final reply, and record each as
    ``context.cut``; called once the successful turn is stored."""
    entries = _turn_entries(store, turn)
    if not entries or entries[-1].kind != "response":
        return
    reply = entries[-1]
    outputs = [entry for entry in entries if isinstance(entry.value, ToolOutputValue)]
    chosen = _chosen(reply.value, outputs)
    reply.cuts = [
        ReplyCut(segment=number, start=s.start, end=s.end, output=o.id, tool=o.value.tool)
        for number, (s, o) in enumerate(chosen, start=1)
    ]
    for (stretch, output), cut in zip(chosen, reply.cuts, strict=True):
        size = stretch.end - stretch.start - len(marker(cut.tool, cut.output).encode())
        details = ContextCut(
            entry=reply.id, output=output.id, tool=cut.tool, bytes=size,
            tokens=size // BYTES_PER_TOKEN, words=stretch.words, coverage=1.0,
        )  # fmt: skip
        if reply.sources:
            details.response = reply.sources[0].event
        if output.sources:
            details.result = output.sources[0].event
        record(details)


def find_stretches(reply: str, output: str, tool: str) -> list[Stretch]:
    """The stretches of ``reply`` that reproduce ``output``: whole lines, each a line of the
    output, at least ``MIN_WORDS`` words, and worth more bytes than their marker."""
    known = set(_output_lines(output, tool))
    known.discard("")
    lines = list(_lines(reply))
    found: list[Stretch] = []
    index = 0
    while index < len(lines):
        if _normal(lines[index][2]) not in known:
            index += 1
            continue
        first = last = index
        index += 1
        while index < len(lines):
            line = _normal(lines[index][2])
            if line in known:
                last = index
            elif line and not _TABLE_RULE.fullmatch(line):
                break
            index += 1
        first, last = _with_fence(lines, first, last)
        words = sum(len(lines[i][2].split()) for i in range(first, last + 1))
        stretch = Stretch(lines[first][0], lines[last][1], words)
        if words >= MIN_WORDS and stretch.end - stretch.start > len(marker(tool, 0).encode()):
            found.append(stretch)
    return found


def _chosen(reply: str, outputs: Sequence[Entry]) -> list[tuple[Stretch, Entry]]:
    """Each output's stretches, longest first where two overlap, in the reply's order."""
    candidates = [
        (stretch, output)
        for output in outputs
        for stretch in find_stretches(reply, output.value.text, output.value.tool)
    ]
    kept: list[tuple[Stretch, Entry]] = []
    for stretch, output in sorted(candidates, key=lambda c: c[0].start - c[0].end):
        if all(stretch.end <= s.start or stretch.start >= s.end for s, _ in kept):
            kept.append((stretch, output))
    return sorted(kept, key=lambda c: c[0].start)


def _turn_entries(store: ConversationStore, turn: int) -> list[Entry]:
    """The turn's entries, found from the end (the turn was just stored)."""
    entries: list[Entry] = []
    for entry in reversed(store.entries):
        if entry.turn != turn:
            break
        entries.append(entry)
    return entries[::-1]


def _lines(text: str) -> Iterator[tuple[int, int, str]]:
    """Each line's start and end byte offsets (its newline left out) and its text."""
    at = 0
    for raw in text.encode().split(b"\n"):
        yield at, at + len(raw), raw.decode()
        at += len(raw) + 1


def _output_lines(output: str, tool: str) -> Iterator[str]:
    for line in output.split("\n"):
        yield _normal(line)
        if tool == "read_file":
            yield _normal(_NUMBERED.sub("", line))


def _normal(line: str) -> str:
    """A line as compared: a table row as its cells, whitespace collapsed; blank is empty."""
    line = line.strip()
    if line.startswith("|") and line.endswith("|"):
        line = line.strip("|").replace("|", " ")
    return " ".join(line.split())


def _with_fence(lines: list[tuple[int, int, str]], first: int, last: int) -> tuple[int, int]:
    """A code fence just around a stretch goes with it."""
    before = first > 0 and lines[first - 1][2].strip().startswith(_FENCE)
    after = last + 1 < len(lines) and lines[last + 1][2].strip() == _FENCE
    return (first - 1, last + 1) if before and after else (first, last)
