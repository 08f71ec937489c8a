"""Fitting text within a byte budget: tool results, references (docs/turn.md, "Output budget").

``bounded`` keeps the head and says how much was cut. ``hold_back`` keeps a head and a tail at
line boundaries with one marker between them naming the lines it held back; the marker never
understates (sizes round up) and nothing is cut without one. Byte counts are UTF-8 bytes.
"""

from __future__ import annotations

import math

READ_FILE_HINT = "read it in pages with offset"
"""The held-back marker's tail for read_file without memory (Python wisp)."""
COMMAND_HINT = "narrow the command (grep, head, tail) to see part of it"
"""The held-back marker's tail for a command without memory."""

_KIB = 1024
_MIB = 1024 * 1024


def utf8_len(text: str) -> int:
    return len(text.encode())


def cut_to_bytes(text: str, max_bytes: int) -> str:
    """The longest prefix of ``text`` within ``max_bytes`` UTF-8 bytes, whole characters only."""
    data = text.encode()
    if len(data) <= max_bytes:
        return text
    # A cut inside a multi-byte character leaves a partial sequence at the end: drop it.
    return data[: max(max_bytes, 0)].decode("utf-8", errors="ignore")


def bounded(text: str, max_bytes: int, *, total: int | None = None) -> str:
    """``text`` whole when it fits, else its first ``max_bytes`` bytes and a truncation note.

    ``total`` is the whole size when ``text`` is already only the start of something longer.
    """
    size = len(text.encode())
    total = size if total is None else max(total, size)
    if total <= max_bytes:
        return text
    return f"{cut_to_bytes(text, max_bytes)}\n[truncated: {total} bytes, showing {max_bytes}]"


def format_size(size: int) -> str:
    """A byte count for a person, rounded up so that it never understates: 180 KiB, 2.4 MiB."""
    if size < _KIB:
        return f"{size} byte" if size == 1 else f"{size} bytes"
    if size < _MIB:
        return f"{math.ceil(size / _KIB):,} KiB"
    return f"{math.ceil(size * 10 / _MIB) / 10:,} MiB"


def memory_hint(output_id: str, first_line: int) -> str:
    """The held-back marker's tail when the conversation has ``memory``."""
    return (
        f'memory "recall output {output_id} from line {first_line}" pages it, '
        f'"summarise output {output_id}" gives the notable lines, '
        f'"condense output {output_id}: <question>" answers a question from all of it'
    )


def held_back_marker(
    first: int,
    last: int,
    size: int,
    *,
    output_id: str | None,
    hint: str,
    exit_status: int | None = None,
    first_error: int | None = None,
) -> str:
    """``[held back: lines 41–2,310 (180 KiB) of output 3f2a9c1e, exit status 1, …; hint]``."""
    lines = f"line {first:,}" if first == last else f"lines {first:,}–{last:,}"
    parts = [f"{lines} ({format_size(size)})" + (f" of output {output_id}" if output_id else "")]
    if exit_status is not None:
        parts.append(f"exit status {exit_status}")
    if first_error is not None:
        parts.append(f"first error at line {first_error:,}")
    return f"[held back: {', '.join(parts)}; {hint}]"


def split_lines(text: str) -> list[str]:
    """``text`` as ``\\n``-separated lines, each keeping its newline (the last may lack one)."""
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def count_lines(text: str) -> int:
    """Lines in ``text``; a trailing newline adds no line, and ``""`` has none."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def hold_back(
    text: str,
    budget: int,
    *,
    output_id: str | None = None,
    hint: str = READ_FILE_HINT,
    memory: bool = False,
    exit_status: int | None = None,
    first_error: int | None = None,
    line_offset: int = 0,
) -> str:
    """``text`` whole when it fits ``budget`` bytes; else its head (up to a quarter of the room)
    and its tail (the rest), at line boundaries, with the held-back marker between them.

    With ``memory`` (and an ``output_id``) the marker tells the model how to page the rest.
    ``line_offset``: the lines before ``text`` in the kept output the marker names (a
    command's stderr is kept after its stdout), so its line numbers are the kept file's.
    """
    data = text.encode()
    total = len(data)
    if total <= budget:
        return text
    # Offsets into the bytes, not a list of lines: 16 MiB of short lines would be millions of
    # strings (about 800 MB) where the bytes are 16 MiB.
    line_count = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)

    def marker(first: int, last: int, size: int) -> str:
        first, last = first + line_offset, last + line_offset
        tail = memory_hint(output_id, first) if memory and output_id else hint
        return held_back_marker(
            first,
            last,
            size,
            output_id=output_id,
            hint=tail,
            exit_status=exit_status,
            first_error=first_error,
        )

    # Reserve room for the longest marker these numbers can make: the real one is no longer.
    # A range ("lines A–B") with the most digits, and either size form ("N KiB", "1,023 bytes").
    reserve = 1 + max(
        len(marker(max(line_count - 1, 1), line_count, size).encode()) for size in (total, 1023)
    )
    room = max(budget - reserve, 0)
    head_end = data.rfind(b"\n", 0, room // 4) + 1  # whole lines within a quarter of the room
    tail_start = _tail_start(data, head_end, room - head_end)
    if head_end == 0 and tail_start == total:
        # One line is longer than the room: show the part of it that fits, and hold it back
        # whole in the marker (overstating what is held back is allowed, understating is not).
        first_line = data[: data.find(b"\n") + 1 or total]
        head = cut_to_bytes(first_line.decode(), room).rstrip("\n") + "\n"
        return head + marker(1, line_count, total)
    head_count = data.count(b"\n", 0, head_end)
    unended = tail_start < total and not data.endswith(b"\n")  # a last line with no newline
    tail_count = data.count(b"\n", tail_start) + unended
    held = marker(head_count + 1, line_count - tail_count, tail_start - head_end)
    tail = data[tail_start:].decode()
    return data[:head_end].decode() + held + ("\n" + tail if tail else "")


def _tail_start(data: bytes, head_end: int, room: int) -> int:
    """Where the longest run of whole last lines within ``room`` bytes starts, not before
    ``head_end``; ``len(data)`` when not even the last line fits."""
    start = max(len(data) - room, head_end)
    if start == head_end or data[start - 1] == 0x0A:
        return start
    newline = data.find(b"\n", start)
    return len(data) if newline < 0 else newline + 1
