"""The note after a turn that recorded facts: at most three named, long values cut."""

from __future__ import annotations

from wisp.chat.loop import facts_note
from wisp.facts.book import FactBook


def test_three_facts_are_named_and_the_rest_counted() -> None:
    book = FactBook()
    for n in range(5):
        book.record("item", f"n{n}", "v" * (70 if n == 0 else 1), source="model", method="noted")
    assert facts_note(book.in_force()) == (
        "5 new facts: c1 item n0 = " + "v" * 59 + "… (model), c2 item n1 = v (model), "
        "c3 item n2 = v (model), and 2 more"
    )
