"""What reading a reply's text from one point says (``calls.read_at``): calls taken, text, or
``MORE`` (undecided until more text comes), and what a read needs besides the text."""

from __future__ import annotations

import msgspec

from wisp.agent.types import ToolCallRequested
from wisp.models.reply.values import Offered


class Taken(msgspec.Struct, frozen=True):
    """Calls, written from the position read up to ``end``."""

    calls: list[ToolCallRequested]
    end: int


class Text(msgspec.Struct, frozen=True):
    """The text up to ``end`` is reply text; ``opens_code`` when it opened a code fence."""

    end: int
    opens_code: bool = False


class More:
    """Undecided: more text may make a call of it."""


MORE = More()
Verdict = Taken | Text | More


class Reading(msgspec.Struct, frozen=True):
    """What ``read_at`` needs besides the text."""

    offered: Offered
    final: bool
    line_start: bool
    """At the start of a line (or just after calls): forms that must begin a line may begin."""
    alone: bool = False
    """Nothing but calls was written before (or inside a ``<tool_call>`` block): a call-shaped
    object here that names no offered tool, or whose arguments do not parse, is held until it
    closes, and is a failed call if nothing but calls follows it (``values.failed_call``)."""


def undecided(at: int, reading: Reading) -> Verdict:
    """Text when no more will come, else ``MORE``."""
    return Text(at + 1) if reading.final else MORE
