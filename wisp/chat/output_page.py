"""The ``output`` object an ``event`` line carries: the first 16 KiB page of a tool's output, a
typed command's or the model's thinking, with the whole text's measures."""

from __future__ import annotations

from msgspec import UNSET

from wisp import protocol as p
from wisp.agent.text import count_lines
from wisp.audit.details import Details
from wisp.audit.kinds import CommandTyped, ModelReasoning, ToolResult

PAGE_BYTES = 16 * 1024
"""An ``output`` object's ``text`` holds at most this many UTF-8 bytes."""
SHOWN_LINES = 20
"""The default ``shownOutputLines``: lines the plain chat shows before folding."""


def output_text(details: Details) -> str | None:
    """The text an event carries to fold under its line: a tool's output (even empty), what a
    typed command printed (when it printed something), or the model's thinking at its end."""
    match details:
        case ToolResult(output=output):
            return output
        case CommandTyped(output=output):
            return output or None
        case ModelReasoning(phase="end"):
            return "" if details.text is UNSET else details.text
        case _:
            return None


def event_output(
    details: Details, event_id: str | None, *, shown_lines: int = SHOWN_LINES
) -> p.EventOutput | None:
    """The ``output`` object for an event that carries text, or None."""
    text = output_text(details)
    if text is None:
        return None
    return output_page(text, event_id, shown_lines=shown_lines)


def output_page(
    text: str, event_id: str | None, *, shown_lines: int = SHOWN_LINES
) -> p.EventOutput:
    """``text`` as an ``output`` object: its first page (at most 16 KiB, cut at a character)
    and the whole text's measures."""
    data = utf8(text)
    page = text if len(data) <= PAGE_BYTES else _cut(data, PAGE_BYTES)
    return p.EventOutput(
        id=event_id,
        text=page,
        lines=count_lines(text),
        bytes=len(data),
        truncated=len(page) < len(text),
        shown_lines=shown_lines,
    )


def utf8(text: str) -> bytes:
    # surrogatepass: a lone surrogate from a lenient decoder must not make the count fail.
    return text.encode("utf-8", "surrogatepass")


def _cut(data: bytes, limit: int) -> str:
    """The longest prefix of ``data``, at most ``limit`` bytes, that ends on a character."""
    end = limit
    while end > 0 and data[end] & 0xC0 == 0x80:  # a continuation byte starts no character
        end -= 1
    return data[:end].decode("utf-8", "surrogatepass")
