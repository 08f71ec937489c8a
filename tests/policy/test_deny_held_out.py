"""The built-in deny list against its held-out set (deny_held_out.toml; docs/policy.md, "What the
deny list stops"): per kind of command, every held-out spelling is refused and every ordinary
command near it is let through. Each kind's row (caught of held out, allowed of negatives) is
shown at the end of the run, and a kind that falls short says which lines did."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.policy import test_patterns
from wisp.policy.patterns import CommandPatterns
from wisp.policy.split import split_line

HELD_OUT = Path(__file__).with_name("deny_held_out.toml")
ROWS = pytest.StashKey[dict[str, str]]()
"""Each kind's row for the run's summary (tests/policy/conftest.py prints them)."""


def held_out() -> dict[str, dict[str, list[str]]]:
    return tomllib.loads(HELD_OUT.read_text())


def denial(line: str) -> str | None:
    return CommandPatterns.compile().denial(line, split_line(line))


@pytest.mark.parametrize("kind", list(tomllib.loads(HELD_OUT.read_text())))
def test_each_kind_refuses_its_held_out_spellings_and_allows_its_neighbours(
    kind: str, request: pytest.FixtureRequest
) -> None:
    lines = held_out()[kind]
    missed = [line for line in lines["caught"] if denial(line) is None]
    refused = {line: why for line in lines["allowed"] if (why := denial(line)) is not None}
    caught, allowed = len(lines["caught"]) - len(missed), len(lines["allowed"]) - len(refused)
    row = (
        f"{kind:<17} caught {caught:>2}/{len(lines['caught']):<2} held-out spellings, "
        f"allowed {allowed:>2}/{len(lines['allowed']):<2} ordinary commands"
    )
    request.config.stash.setdefault(ROWS, {})[kind] = row
    assert not missed and not refused, f"{row}\nmissed: {missed}\nrefused: {refused}"


def test_the_set_has_every_kind_and_enough_of_each() -> None:
    from wisp.policy.effects import CATEGORIES

    sets = held_out()
    assert set(sets) == set(CATEGORIES)
    for kind, lines in sets.items():
        assert len(lines["caught"]) >= 12, kind
        assert len(lines["allowed"]) >= 8, kind
    every = [line for lines in sets.values() for group in lines.values() for line in group]
    assert len(every) == len(set(every))


def test_the_set_is_held_out_from_what_the_list_is_built_from() -> None:
    """No held-out line is written in the policy's own sources, nor in the spellings the
    patterns' own tests name: the list was not shaped by the lines it is judged on."""
    root = Path(__file__).resolve().parents[2] / "wisp" / "policy"
    sources = "\n".join(path.read_text() for path in sorted(root.iterdir()) if path.is_file())
    named = {line for _, line in [*test_patterns.DENIED, *test_patterns.SPELLED]}
    named |= set(test_patterns.NESTED)
    for lines in held_out().values():
        for line in lines["caught"]:
            assert line not in sources, line
            assert line not in named, line
