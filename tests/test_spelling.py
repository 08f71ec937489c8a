"""One slip, as every "did you mean" of wisp counts it."""

from __future__ import annotations

import pytest

from wisp.spelling import edit_distance, meant


@pytest.mark.parametrize(
    ("one", "other", "distance"),
    [
        ("models", "models", 0),
        ("modles", "models", 1),  # a swap of neighbours is one edit
        ("model", "models", 1),
        ("xmodels", "models", 1),
        ("mOdels", "models", 1),
        ("mdoesl", "models", 2),
        ("", "logs", 4),
        ("logs", "", 4),
        ("ab", "ba", 1),
        ("ca", "abc", 3),  # optimal string alignment: no edit of a swapped pair again
        ("hello", "chat", 5),
    ],
)
def test_edit_distance_counts_inserts_deletes_changes_and_swaps(
    one: str, other: str, distance: int
) -> None:
    assert edit_distance(one, other) == distance
    assert edit_distance(other, one) == distance


def test_meant_is_the_known_word_one_slip_away() -> None:
    assert meant("modles", ["chat", "logs", "models"]) == "models"
    assert meant("models", ["models"]) is None  # the word itself is no slip
    assert meant("hello", ["chat", "logs", "models"]) is None


def test_folding_case_makes_any_difference_of_case_a_slip() -> None:
    assert meant("AUDIT.KEEPFILES", ["audit.keepFiles"]) is None
    assert meant("AUDIT.KEEPFILES", ["audit.keepFiles"], fold_case=True) == "audit.keepFiles"
    assert meant("audit.keepfiles", ["audit.keepFiles"], fold_case=True) == "audit.keepFiles"
    assert meant("audit.kepfiles", ["audit.keepFiles"], fold_case=True) == "audit.keepFiles"
