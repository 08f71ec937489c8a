"""A reply cleaned into the text to use: preambles, fences, labels and quotes dropped, a commit
subject held to 72 characters; the same whether it arrives whole or in pieces of any size
(docs/draft.md, "Cleaning")."""

from __future__ import annotations

import pytest

from wisp.draft.cleaning import SUBJECT_MOST, Cleaner, clean
from wisp.draft.tasks import Shape

WRAPPED = "Here is the commit message:\n\n```\nAdd sub to calc\n\nIt subtracts b from a.\n```\n"


def in_pieces(reply: str, shape: Shape, size: int) -> str:
    cleaner = Cleaner(shape)
    shown = [cleaner.feed(reply[at : at + size]) for at in range(0, len(reply), size)]
    return "".join(shown) + cleaner.finish()


def test_a_preamble_and_the_fence_around_a_commit_message_are_dropped() -> None:
    assert clean(WRAPPED, "commit") == "Add sub to calc\n\nIt subtracts b from a.\n"


@pytest.mark.parametrize(
    "reply",
    [
        'Sure! Here\'s a commit message for your changes:\n"Add sub to calc"\n',
        "Commit message: Add sub to calc",
        "Subject: `Add sub to calc`\n\n\n",
        "## Add sub to calc",
        "**Add sub to calc**",
        "Here is the commit message for the staged changes: Add sub to calc",
        'Sure! "Add sub to calc"',
        "The staged changes:\nAdd sub to calc",
    ],
)
def test_what_wraps_a_subject_is_dropped(reply: str) -> None:
    assert clean(reply, "commit") == "Add sub to calc\n"


def test_a_subject_scope_that_reads_like_a_label_is_kept() -> None:
    assert clean("draft: add wisp draft\n", "commit") == "draft: add wisp draft\n"
    assert clean("summary: fix the count", "commit") == "summary: fix the count\n"
    assert clean("OK button closes the dialog", "commit") == "OK button closes the dialog\n"


def test_a_long_subject_is_cut_at_a_word_and_goes_on_in_the_body() -> None:
    subject = "Fix the parser so that it never reads past the end of a line with no newline"
    text = clean(f"{subject}\nBody line.", "commit")
    head, empty, rest, empty_too, body = text.splitlines()
    assert len(head) <= SUBJECT_MOST and head.endswith("…")
    assert head[:-1] + " " + rest[1:] == subject
    assert (empty, empty_too, body) == ("", "", "Body line.")


def test_a_subject_with_no_space_to_cut_at_is_cut_within_it() -> None:
    (head, _, rest) = clean("x" * 100, "commit").splitlines()
    assert head == "x" * (SUBJECT_MOST - 1) + "…" and rest == "…" + "x" * 29


def test_a_body_is_set_off_from_its_subject_and_a_loop_is_dropped() -> None:
    reply = "Add sub\nIt subtracts.\n+---+\n+---+\n+---+\n\n\n"
    assert clean(reply, "commit") == "Add sub\n\nIt subtracts.\n+---+\n"


def test_a_text_keeps_its_inner_fences_and_loses_the_one_around_it() -> None:
    reply = "```markdown\nRun this:\n\n```sh\nmake\n```\nDone.\n```\n"
    # The outer fence's closing line is taken for the inner one's: a model nesting fences
    # writes broken Markdown either way, and the text's own code stays fenced.
    assert clean("Summary:\nIt says hello.\n\n```sh\nls\n```\n", "text") == (
        "It says hello.\n\n```sh\nls\n```\n"
    )
    assert clean(reply, "text").startswith("Run this:\n\n")


@pytest.mark.parametrize("shape", ["commit", "text"])
@pytest.mark.parametrize("size", range(1, 8))
def test_pieces_of_any_size_give_what_the_whole_gives(shape: Shape, size: int) -> None:
    replies = [WRAPPED, "Sure.\nHello there.\n\n\nBye.", "x" * 90 + " y\nz", "  \n"]
    for reply in replies:
        assert in_pieces(reply, shape, size) == clean(reply, shape)


def test_only_whole_lines_are_given_back_as_they_stream() -> None:
    cleaner = Cleaner("text")
    assert cleaner.feed("Hello th") == ""
    assert cleaner.feed("ere.\nMore") == "Hello there.\n"
    assert cleaner.finish() == "More\n"


def test_a_reply_of_nothing_but_wrapping_is_empty() -> None:
    assert clean("Here is the summary:\n```\n```\n", "text") == ""
