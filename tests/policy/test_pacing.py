"""wisp.policy.pacing: a line's parts assessed once each, with an interrupt heard meanwhile."""

from __future__ import annotations

import asyncio

from wisp.policy.pacing import YIELD_EVERY, assess_each
from wisp.policy.types import Assessment, SimpleCommand


def simple(text: str) -> SimpleCommand:
    return SimpleCommand(text, text.split()[0], None, f"{text.split()[0]} *")


LS = simple("ls -la")
TOUCH_A = simple("touch a")


async def test_assess_each_rates_a_repeated_part_once() -> None:
    rated: list[str] = []

    def assess(part: SimpleCommand) -> Assessment:
        rated.append(part.text)
        return Assessment("safe", ["does nothing"])

    parts = [LS, *[TOUCH_A] * 500, LS]
    assessments = await assess_each(parts, assess)

    assert rated == ["ls -la", "touch a"]
    assert assessments is not None and len(assessments) == len(parts)
    assert assessments[0] is assessments[-1]


async def test_assess_each_stops_when_the_turn_is_stopped_meanwhile() -> None:
    stop = asyncio.Event()
    parts = [simple(f"true {n}") for n in range(YIELD_EVERY * 4)]

    def assess(part: SimpleCommand) -> Assessment:
        asyncio.get_running_loop().call_soon(stop.set)  # runs only when assess_each yields
        return Assessment("safe", ["does nothing"])

    assert await assess_each(parts, assess, stop=stop) is None
