"""A repository's commit style in words (wisp/draft/style.py): the model is told it, never
shown a subject it could copy."""

from __future__ import annotations

from wisp.draft.style import describe_style


def test_conventional_commits_are_named_with_their_types() -> None:
    style = describe_style(["feat(api): add paging", "fix: close the socket", "fix(ui): align"])
    assert "`type(scope): summary`" in style and "`fix`, `feat`" in style
    assert "lower-case letter" in style and "no full stop" in style


def test_a_part_first_is_named_with_examples() -> None:
    style = describe_style(["notify: one notifier", "docs/watch.md: triage", "notify: the tool"])
    assert "part of the project changed and a colon, such as `notify`, `docs/watch.md`" in style


def test_plain_subjects_give_their_case_period_and_length() -> None:
    style = describe_style(["Add the calculator.", "Fix the sum.", "Add tests."])
    assert "a capital letter" in style and "end with a full stop" in style
    assert "about 12 characters long" in style
    assert "Add the calculator" not in style  # never a subject to copy


def test_no_subjects_no_style() -> None:
    assert describe_style(["", "  "]) == ""
