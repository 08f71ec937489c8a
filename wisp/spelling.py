"""Near misses: how many edits one word is from another, and the word a slip was meant to be.

One definition for every "did you mean" wisp says (a command, a setting's key, an audit kind),
so that they all agree on what one slip is: a letter put in, left out or changed, or two
neighbours swapped.
"""

from __future__ import annotations

from collections.abc import Iterable


def edit_distance(one: str, other: str) -> int:
    """The fewest edits from ``one`` to ``other`` (Damerau-Levenshtein, optimal string
    alignment; difflib would count a swap as two)."""
    before_previous: list[int] = []
    previous = list(range(len(other) + 1))
    for i, letter in enumerate(one, 1):
        current = [i]
        for j, other_letter in enumerate(other, 1):
            best = min(
                previous[j] + 1,  # left out of one
                current[j - 1] + 1,  # put into one
                previous[j - 1] + (letter != other_letter),  # changed, or the same
            )
            if i > 1 and j > 1 and letter == other[j - 2] and one[i - 2] == other_letter:
                best = min(best, before_previous[j - 2] + 1)  # two neighbours swapped
            current.append(best)
        before_previous, previous = previous, current
    return previous[-1]


def is_one_slip(typed: str, known: str, *, fold_case: bool = False) -> bool:
    """Whether ``typed`` is one edit from ``known`` (with ``fold_case``, or differs only in
    case): never true of the word itself."""
    if fold_case:
        typed, known = typed.lower(), known.lower()
    return abs(len(typed) - len(known)) <= 1 and edit_distance(typed, known) == 1


def meant(typed: str, known: Iterable[str], *, fold_case: bool = False) -> str | None:
    """The first of ``known``, in sorted order, that ``typed`` is one slip from, if any.

    With ``fold_case`` a word that differs only in case counts as a slip too."""
    for word in sorted(known):
        if word == typed:
            continue
        if is_one_slip(typed, word, fold_case=fold_case) or (
            fold_case and typed.lower() == word.lower()
        ):
            return word
    return None
