"""A repository's commit style in words, read from its last commit subjects (docs/draft.md,
"Sizes").

A small model shown the subjects themselves writes one of them again: "Add the calculator" for a
diff that adds a subtraction, seen on Qwen2.5-Coder 0.5B and 1.5B alike. Told the style in
words, and never shown a subject to copy, both wrote what the diff does. The style is what a
reader notices first: a `type(scope): ` or `part: ` prefix, the first word's case, a closing
period, the length."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

CONVENTIONAL = re.compile(
    r"^(?P<type>feat|fix|docs|style|refactor|perf|test|build|ci|chore|revert)(?:\([^)]*\))?!?: "
)
"""Conventional Commits: ``feat: …``, ``fix(parser): …``, ``refactor!: …`` (its types, so that
a part named first, ``notify: …``, is not taken for one)."""
PART = re.compile(r"^(?P<part>[\w./-]+): ")
"""A part of the project first: ``notify: …``, ``docs/watch.md: …``."""
MOST_EXAMPLES = 3


def describe_style(subjects: Sequence[str]) -> str:
    """The style of ``subjects`` (newest first) in a few sentences; empty when there are
    none."""
    subjects = [subject.strip() for subject in subjects if subject.strip()]
    if not subjects:
        return ""
    sentences = [_prefix(subjects), _case_and_period(subjects), _length(subjects)]
    return " ".join(sentence for sentence in sentences if sentence)


def _most(subjects: Sequence[str], pattern: re.Pattern[str]) -> list[re.Match[str]] | None:
    """The matches of ``pattern``, when at least half the subjects have one."""
    found = [m for subject in subjects if (m := pattern.match(subject))]
    return found if len(found) * 2 >= len(subjects) else None


def _prefix(subjects: Sequence[str]) -> str:
    if conventional := _most(subjects, CONVENTIONAL):
        kinds = _common(m["type"] for m in conventional)
        return (
            "Subjects take the Conventional Commits form `type(scope): summary`, the type one "
            f"of {kinds}."
        )
    if parts := _most(subjects, PART):
        named = _common(m["part"] for m in parts)
        return f"Subjects start with the part of the project changed and a colon, such as {named}."
    return ""


def _case_and_period(subjects: Sequence[str]) -> str:
    bodies = [PART.sub("", CONVENTIONAL.sub("", subject)) or subject for subject in subjects]
    lower = sum(body[:1].islower() for body in bodies) * 2 > len(bodies)
    period = sum(body.endswith(".") for body in bodies) * 2 > len(bodies)
    case = "a lower-case" if lower else "a capital"
    ending = "and end with a full stop" if period else "and no full stop at the end"
    return (
        f"The summary starts with {case} letter, in the imperative mood ('add', 'fix'), {ending}."
    )


def _length(subjects: Sequence[str]) -> str:
    lengths = sorted(len(subject) for subject in subjects)
    middle = lengths[len(lengths) // 2]
    return f"Subjects are about {middle} characters long."


def _common(values: object) -> str:
    """The most common values, quoted, in order of use: `` `fix`, `feat` ``."""
    counted = Counter(values)  # type: ignore[arg-type]
    return ", ".join(f"`{value}`" for value, _ in counted.most_common(MOST_EXAMPLES))
