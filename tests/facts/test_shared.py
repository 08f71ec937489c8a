"""Permanent facts under WISP_HOME: ids given under the lock, every change kept, marked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wisp.facts.book import FactBook, FactError
from wisp.facts.shared import SharedFacts


def stated(value: str) -> FactBook:
    book = FactBook()
    book.record("deploy", "branch", value, source="person", method="stated")
    return book


def test_two_wisps_keeping_facts_give_them_different_ids(tmp_path: Path) -> None:
    one, two = SharedFacts(tmp_path), SharedFacts(tmp_path)
    first = one.keep(stated("release").get("c1"))
    second = two.keep(stated("main").get("c1"))
    assert (first.id, first.scope, second.id) == ("p1", "permanent", "p2")
    assert [(f.id, f.value) for f in one.read()] == [("p1", "release"), ("p2", "main")]
    assert os.stat(tmp_path / "facts.json").st_mode & 0o777 == 0o600


def test_a_deleted_or_moved_fact_is_kept_marked(tmp_path: Path) -> None:
    shared = SharedFacts(tmp_path)
    shared.keep(stated("release").get("c1"))
    shared.keep(stated("main").get("c1"))
    shared.mark("p1", deleted=True)
    shared.mark("p2", superseded_by="c4")
    book = FactBook(shared.read())
    assert book.in_force() == [] and [f.id for f in book] == ["p1", "p2"]
    with pytest.raises(FactError, match="no permanent fact 'p9'"):
        shared.mark("p9", deleted=True)


def test_a_file_that_does_not_read_is_named(tmp_path: Path) -> None:
    (tmp_path / "facts.json").write_text("{not json")
    with pytest.raises(FactError, match=r"facts\.json cannot be read: .*; move it aside"):
        SharedFacts(tmp_path).read()
    assert SharedFacts(tmp_path / "none").read() == []
