"""The rules over a labelled corpus: files as people leave them (source in several languages,
`.env`, YAML, JSON, shell history, logs, a diff, an issue and a chat pasted whole) with fake
values in the real shapes, beside the values that only look like secrets (hashes, ids, images,
placeholders, minified code, lockfiles). Each kind must be found at least nine times in ten,
and at least 95 of every 100 findings must be labelled.

`tests/scan/corpus/labels.json` lists every secret and piece of personal data in the corpus,
`{"FILE": [{"line": N, "kind": "KIND"}, …]}`, N the line where the value starts; anything not
listed is a negative. A finding is true when its file, line and kind match a label. A value
with a shape of its own is labelled by it wherever it stands (`token=ghp_…` is a
`github-token`); a value given to a name that says secret (`NAME=`, `NAME:`, `--name VALUE`,
`define('NAME', …)`) is a `password-assignment`; a random run near such a word in prose or a
header (`Authorization: Bearer …`) is a `generic-secret`. The benchmark (`bench/scan.py`)
reads the same labels.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import msgspec
import pytest

from wisp.scan import KINDS, find

CORPUS = Path(__file__).parent / "corpus"
LABELS = CORPUS / "labels.json"
RECALL_FLOOR = 0.9
PRECISION_FLOOR = 0.95
POSITIVES_A_KIND = 5

Place = tuple[str, int, str]
"""A file (relative to the corpus), a 1-based line and a kind."""


class Label(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    line: int
    kind: str


def corpus_files() -> list[Path]:
    return sorted(path for path in CORPUS.rglob("*") if path.is_file() and path != LABELS)


@cache
def labelled() -> Counter[Place]:
    labels = msgspec.json.decode(LABELS.read_bytes(), type=dict[str, list[Label]])
    return Counter(
        (name, label.line, label.kind) for name, found in labels.items() for label in found
    )


@cache
def found() -> Counter[Place]:
    places: Counter[Place] = Counter()
    for path in corpus_files():
        name = path.relative_to(CORPUS).as_posix()
        places.update((name, finding.line, finding.kind) for finding in find(path.read_text()))
    return places


def listed(places: Counter[Place]) -> str:
    return "\n".join(f"  {name}:{line}: {kind}" for name, line, kind in sorted(places.elements()))


def test_the_labels_name_known_kinds_at_lines_the_files_have() -> None:
    lines = {
        path.relative_to(CORPUS).as_posix(): path.read_text().count("\n") + 1
        for path in corpus_files()
    }
    wrong = [
        place
        for place in labelled()
        if place[0] not in lines or not 1 <= place[1] <= lines[place[0]] or place[2] not in KINDS
    ]
    assert wrong == []


def test_every_kind_has_positives_enough_to_measure() -> None:
    counts = Counter(kind for _, _, kind in labelled().elements())
    assert {kind: counts[kind] for kind in KINDS if counts[kind] < POSITIVES_A_KIND} == {}


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_is_found_nine_times_in_ten(kind: str) -> None:
    expected = Counter({place: n for place, n in labelled().items() if place[2] == kind})
    missed = expected - found()
    recall = 1 - missed.total() / expected.total()
    assert recall >= RECALL_FLOOR, (
        f"{kind}: recall {recall:.2f}, missed {missed.total()} of {expected.total()}:\n"
        + listed(missed)
    )


def test_at_least_95_of_100_findings_are_labelled() -> None:
    wrong = found() - labelled()
    precision = 1 - wrong.total() / found().total()
    assert precision >= PRECISION_FLOOR, (
        f"precision {precision:.3f}, {wrong.total()} of {found().total()} findings unlabelled:\n"
        + listed(wrong)
    )
