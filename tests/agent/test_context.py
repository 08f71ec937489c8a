"""The context meter (wisp/agent/context.py): the live turns are found without walking the
dropped entries. How a conversation condenses with it: tests/agent/test_condensing.py."""

from __future__ import annotations

import pytest

from wisp.agent.context import ContextMeter, ContextSettings
from wisp.store import ConversationStore, PendingEntry


@pytest.mark.parametrize("turns", [10, 400])
def test_composing_costs_the_same_however_long_the_store(turns: int) -> None:
    """The live entries are found without walking the dropped ones."""
    store = ConversationStore()
    store.add(PendingEntry("instructions", "be brief"), turn=None, origin="carried", time=None)
    for number in range(1, turns + 1):
        store.add_turn(
            [PendingEntry("prompt", f"p{number}"), PendingEntry("response", f"r{number}")],
            turn=number,
            time="2026-12-01T00:00:00Z",
        )
    kept = list(store.entries[-6:])
    store.drop(store.entries[1:-6], by="0123456789abcdef", turn=turns)
    assert list(store.live()) == kept
    assert store._horizon == len(store.entries) - 6
    meter = ContextMeter(store, memory=False, settings=ContextSettings())
    assert [turn.number for turn in meter.live_turns()] == [turns - 2, turns - 1, turns]
