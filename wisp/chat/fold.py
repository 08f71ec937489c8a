"""The plain chat's fold (the first lines of an event's output, then how much more there is and
how to see it) and its footer (the lines under a reply)."""

from __future__ import annotations

import re

from wisp import protocol as p
from wisp.chat.output_page import SHOWN_LINES, utf8

FOLD_BYTES = 2048
"""The fold shows at most this many bytes of lines."""

# C0 controls but the newline (tabs are expanded first), DEL and the C1 controls.
_CONTROLS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def drawable(text: str) -> str:
    """``text`` as every front end draws it: tabs as 4 spaces, other control characters gone."""
    return _CONTROLS.sub("", text.replace("\t", "    "))


def fold(
    text: str,
    event_id: str | None,
    *,
    shown_lines: int = SHOWN_LINES,
    max_bytes: int = FOLD_BYTES,
    total_lines: int | None = None,
    total_bytes: int | None = None,
) -> list[str]:
    """The lines the plain chat shows under an event's line for its output: the first that fit,
    indented 4 spaces, then a fold line saying how much more there is and how to see it.

    ``text`` may be the first page of a longer output whose measures ``total_lines`` and
    ``total_bytes`` give (an ``output`` object's)."""
    if shown_lines <= 0 or not text:
        return []
    lines = drawable(text).split("\n")
    if lines[-1] == "":  # a trailing empty line is not counted
        lines.pop()
    shown = _fitting(lines, shown_lines, max_bytes)
    folded = ["    " + line for line in shown]
    hidden = (len(lines) if total_lines is None else total_lines) - len(shown)
    if hidden > 0:
        noun = "line" if hidden == 1 else "lines"
        where = f"/show {event_id[:8]}" if event_id else "/last"
        size = len(utf8(text)) if total_bytes is None else total_bytes
        folded.append(f"    … {hidden} more {noun}, {size} bytes in all: {where}")
    return folded


def fold_output(output: p.EventOutput) -> list[str]:
    """:func:`fold` of an event's ``output`` object, by its first page and whole measures."""
    return fold(
        output.text,
        output.id,
        shown_lines=output.shown_lines,
        total_lines=output.lines,
        total_bytes=output.bytes,
    )


def _fitting(lines: list[str], most: int, max_bytes: int) -> list[str]:
    """The first lines that fit in ``most`` lines and ``max_bytes``; at least one, a lone line
    over the bytes cut to half as many characters plus ``…``."""
    shown: list[str] = []
    size = 0
    for line in lines[:most]:
        length = len(utf8(line))
        size += length + 1
        if shown and size > max_bytes:
            break
        shown.append(line if length <= max_bytes else line[: max_bytes // 2] + "…")
    return shown


# -- the plain chat's footer ---------------------------------------------------------------

_ENDINGS = {"error": "failed after ", "stopped": "stopped after "}


def footer(
    ran: str | None,
    cited: str | None,
    seconds: float,
    outcome: str,
    input_tokens: int | None,
    output_tokens: int | None,
) -> list[str]:
    """The muted lines the plain chat prints after a turn: ran, cited, then time and tokens."""
    lines = [f"  {line}" for line in (ran, cited) if line]
    timing = f"  {_ENDINGS.get(outcome, '')}{seconds:.1f} s"
    # As turn end's tokens: only when both are known and not both zero.
    if input_tokens is not None and output_tokens is not None and (input_tokens or output_tokens):
        timing += f" · ↓{input_tokens:,} ↑{output_tokens:,}"
    lines.append(timing)
    return lines
