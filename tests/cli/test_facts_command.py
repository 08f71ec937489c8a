"""`wisp facts`: the permanent facts listed and deleted from the shell, the delete recorded in a
session of its own."""

from __future__ import annotations

import json
from pathlib import Path

from wisp.facts.book import FactBook
from wisp.facts.shared import SharedFacts


def keep(home: Path, subject: str, name: str, value: str) -> None:
    book = FactBook()
    book.record(subject, name, value, source="person", method="stated")
    SharedFacts(home).keep(book.get("c1"))


def test_facts_are_listed_and_one_is_deleted(run_wisp, wisp_home: Path, audit_lines) -> None:
    keep(wisp_home, "deploy", "branch", "release")
    keep(wisp_home, "db", "port", "5433")
    listed = run_wisp("facts")
    assert (listed.returncode, listed.stdout) == (
        0, "p1   deploy branch = release  (person)\np2   db port = 5433  (person)\n",
    )  # fmt: skip
    deleted = run_wisp("facts", "delete", "p1")
    assert deleted.returncode == 0
    assert deleted.stdout == "fact p1 deleted: no conversation carries it from now on\n"
    assert run_wisp("facts", "list").stdout == "p2   db port = 5433  (person)\n"
    every = run_wisp("facts", "list", "--all", "--json").stdout.splitlines()
    assert [json.loads(line)["deleted"] for line in every] == [True, False]
    events = [(e["kind"], e["details"]) for e in audit_lines()]
    assert events[0][0] == "session.start" and events[0][1]["entryPoint"] == "facts"
    assert events[1] == (
        "fact.deleted",
        {"id": "p1", "subject": "deploy", "name": "branch", "source": "person",
         "value": "release", "by": "person"},
    )  # fmt: skip


def test_a_fact_that_is_not_there_is_named(run_wisp, wisp_home: Path) -> None:
    none = run_wisp("facts")
    assert (none.returncode, none.stdout) == (0, "")
    assert "no permanent facts" in none.stderr
    missing = run_wisp("facts", "delete", "p9")
    assert missing.returncode == 1
    assert missing.stderr.strip() == (
        "wisp: no permanent fact 'p9' (wisp facts list --all lists them)"
    )
    assert "examples:" in run_wisp("facts", "--help").stdout
