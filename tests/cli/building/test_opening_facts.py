"""A conversation opens knowing the permanent facts as the shared store has them now, then its
own: a permanent fact's copy saved with a transcript gives way to the store's."""

from __future__ import annotations

from pathlib import Path

from wisp.cli.building.session import opening_facts
from wisp.facts.book import FactBook
from wisp.facts.shared import SharedFacts


def test_the_store_s_permanent_facts_come_first_and_win_over_a_saved_copy(tmp_path: Path) -> None:
    shared = SharedFacts(tmp_path)
    saved = FactBook()
    saved.record("deploy", "branch", "release", source="person", method="stated")
    saved.record("db", "port", "5433", source="person", method="stated")
    saved.moved("c1", shared.keep(saved.get("c1")), by="person")  # saved as p1
    shared.mark("p1", deleted=True)  # since deleted by another conversation
    book = opening_facts(shared, saved)
    assert [(f.id, f.deleted) for f in book] == [("p1", True), ("c1", False), ("c2", False)]
    assert [f.id for f in book.in_force()] == ["c2"]
    assert [f.id for f in opening_facts(None, None)] == []


def test_new_keeps_the_session_s_facts_and_a_resumed_conversation_leaves_them_out(
    tmp_path: Path,
) -> None:
    old = FactBook()
    old.record("deploy", "branch", "release", source="person", method="stated")
    old.record("db", "port", "5433", source="person", method="stated")
    old.moved("c2", old.copy("c2", "session"), by="person")  # now s1
    renewed = opening_facts(SharedFacts(tmp_path), None, session=list(old))
    assert [(f.id, f.value) for f in renewed.in_force()] == [("s1", "5433")]
    resumed = opening_facts(SharedFacts(tmp_path), old)
    assert [f.id for f in resumed.in_force()] == ["c1"]
