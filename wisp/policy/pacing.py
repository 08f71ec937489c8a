"""Work over a line's parts that keeps the chat responsive and hears an interrupt.

A line may hold thousands of parts (``true;`` six thousand times fits in ``MAX_LINE_BYTES``).
Rating and clearing them must not keep the event loop from reading an interrupt, so every
``YIELD_EVERY`` parts the loop runs, and a stop set meanwhile ends the work before anything runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from wisp.policy.types import Assessment, SimpleCommand

__all__ = ["YIELD_EVERY", "assess_each", "is_stopped"]

YIELD_EVERY = 64
"""Parts handled between two turns of the event loop (an interrupt is read at each)."""


async def assess_each(
    parts: Sequence[SimpleCommand],
    assess: Callable[[SimpleCommand], Assessment],
    *,
    stop: asyncio.Event | None = None,
) -> list[Assessment] | None:
    """Each part's assessment, a part repeated word for word assessed once (the verdict is the
    same object); None once ``stop`` is set. The event loop runs every ``YIELD_EVERY`` parts."""
    known: dict[SimpleCommand, Assessment] = {}
    assessments: list[Assessment] = []
    for index, part in enumerate(parts):
        if await is_stopped(index, stop):
            return None
        assessment = known.get(part)
        if assessment is None:
            assessment = known[part] = assess(part)
        assessments.append(assessment)
    return assessments


async def is_stopped(index: int, stop: asyncio.Event | None) -> bool:
    """Whether the turn was stopped, letting the event loop run first every ``YIELD_EVERY``
    steps: a long line must not keep the chat from reading an interrupt."""
    if index and index % YIELD_EVERY == 0:
        await asyncio.sleep(0)
    return stop is not None and stop.is_set()
