"""The fact book: versions from one source, heads from several, precedence, conflicts, deletion,
and the audit details each change is recorded with."""

from __future__ import annotations

import msgspec
import pytest

from wisp.audit.kinds import (
    FactConflictRaised,
    FactConflictResolved,
    FactDeleted,
    FactRecorded,
    FactSuperseded,
)
from wisp.facts.book import Fact, FactBook, FactError


def values(book: FactBook) -> list[tuple[str, str, str, str]]:
    return [(f.id, f.subject, f.name, f.value) for f in book.in_force()]


def test_a_stated_fact_is_recorded_with_every_field_the_log_gives_it() -> None:
    book = FactBook()
    (recorded,) = book.record(
        "Deploy", "Branch", "release", source="person", method="stated", detail="/fact",
        entries=[3], sources=["e1"],
    )  # fmt: skip
    assert msgspec.to_builtins(recorded) == {
        "id": "c1", "scope": "thread", "subject": "deploy", "name": "branch",
        "source": "person", "version": 1, "value": "release", "class": "dynamic",
        "method": "stated", "detail": "/fact", "entries": [3], "sources": ["e1"],
    }  # fmt: skip
    assert values(book) == [("c1", "deploy", "branch", "release")]


def test_ids_name_their_scope() -> None:
    book = FactBook()
    book.record("a", "x", "1", source="person", method="stated")
    book.record("b", "x", "1", source="person", method="stated", scope="session")
    book.record("c", "x", "1", source="person", method="stated", scope="permanent")
    book.record("d", "x", "1", source="person", method="stated")
    assert [fact.id for fact in book] == ["c1", "s1", "p1", "c2"]


def test_a_new_value_from_the_same_source_supersedes_the_old() -> None:
    book = FactBook()
    book.record("deploy", "branch", "release", source="person", method="stated")
    changes = book.record("deploy", "branch", "main", source="person", method="stated")
    recorded, superseded = changes
    assert isinstance(recorded, FactRecorded) and isinstance(superseded, FactSuperseded)
    assert (recorded.id, recorded.version, recorded.supersedes) == ("c2", 2, "c1")
    assert (superseded.id, superseded.by) == ("c1", "c2")
    assert values(book) == [("c2", "deploy", "branch", "main")]


def test_the_same_value_again_changes_nothing() -> None:
    book = FactBook()
    book.record("deploy", "branch", "release", source="model", method="noted")
    assert book.record("Deploy ", "BRANCH", "release", source="model", method="noted") == []


def test_heads_that_disagree_raise_a_conflict_the_person_wins_and_agreement_resolves_it() -> None:
    book = FactBook()
    book.record("db", "port", "5432", source="model", method="noted")
    changes = book.record("db", "port", "5433", source="person", method="stated")
    assert changes[-1] == FactConflictRaised(subject="db", name="port", winner="c2", others=["c1"])
    assert values(book) == [("c2", "db", "port", "5433")]  # the person over the model
    assert book.conflicts() == {("db", "port"): ("c2", ["c1"])}
    # The model comes round: its new version agrees, and is one fact with the person's.
    changes = book.record("db", "port", "5433", source="model", method="noted")
    assert [type(change) for change in changes] == [
        FactRecorded, FactSuperseded, FactSuperseded, FactConflictResolved,
    ]  # fmt: skip
    assert changes[-1] == FactConflictResolved(subject="db", name="port", winner="c2", others=[])
    assert changes[2] == FactSuperseded(id="c3", subject="db", name="port", source="model", by="c2")
    assert book.conflicts() == {}


@pytest.mark.parametrize(
    ("first", "second", "winner"),
    [("model", "tool", "tool"), ("tool", "caller", "caller"), ("caller", "person", "person")],
)
def test_precedence_decides_the_winner(first, second, winner) -> None:
    book = FactBook()
    book.record("app", "mode", "a", source=first, method="stated")
    book.record("app", "mode", "b", source=second, method="stated")
    book.record("app", "mode", "c", source=first, method="stated")  # newer, still ranked below
    (fact,) = book.in_force()
    assert (fact.source, fact.value) == (winner, "b")


def test_a_deleted_fact_is_kept_but_no_longer_in_force() -> None:
    book = FactBook()
    book.record("db", "port", "5432", source="model", method="noted")
    book.record("db", "port", "5433", source="person", method="stated")
    deleted, resolved = book.delete("c2")
    assert deleted == FactDeleted(
        id="c2", subject="db", name="port", source="person", value="5433", by="person"
    )
    assert isinstance(resolved, FactConflictResolved)
    assert values(book) == [("c1", "db", "port", "5432")]
    assert [fact.id for fact in book] == ["c1", "c2"] and book.get("c2").deleted
    with pytest.raises(FactError, match="already deleted"):
        book.delete("c2")
    with pytest.raises(FactError, match="no fact 'c9'"):
        book.delete("c9")


def test_a_fact_needs_all_three_parts() -> None:
    with pytest.raises(FactError, match="SUBJECT NAME = VALUE"):
        FactBook().record("db", " ", "5432", source="person", method="stated")


def test_a_book_made_again_from_its_facts_goes_on_numbering_and_knows_its_conflicts() -> None:
    book = FactBook()
    book.record("db", "port", "5432", source="model", method="noted")
    book.record("db", "port", "5433", source="person", method="stated")
    again = FactBook(msgspec.json.decode(msgspec.json.encode(list(book)), type=list[Fact]))
    assert again.conflicts() == book.conflicts()
    (recorded, _superseded, *_) = again.record(
        "db", "port", "6000", source="person", method="stated"
    )
    assert recorded.id == "c3"


@pytest.mark.parametrize(
    ("name", "value", "kept"),
    [
        ("db password", "hunter2", "[REDACTED:password-assignment]"),
        ("api key", "abc123", "[REDACTED:password-assignment]"),
        ("openai", "sk-abcdefghijklmnopqrstuvwx12", "[REDACTED:openai-key]"),
        ("github", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED:github-token]"),
        ("port", "5433", "5433"),
        (
            "commit",
            "0123456789abcdef0123456789abcdef01234567",
            "0123456789abcdef0123456789abcdef01234567",
        ),
    ],
)
def test_a_secret_never_becomes_a_fact(name: str, value: str, kept: str) -> None:
    # A fact goes to the model, the screen and the log: a credential is masked as it comes in.
    book = FactBook()
    (recorded,) = book.record("app", name, value, source="person", method="stated")
    assert recorded.value == kept and book.in_force()[0].value == kept
