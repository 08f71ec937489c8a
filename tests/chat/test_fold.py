"""The plain chat's fold of an event's output and its footer under a reply."""

from __future__ import annotations

import pytest

from wisp.chat.fold import fold, footer

# -- the fold --------------------------------------------------------------------------------

ID = "8a7b6c5d4e3f2a1b"


def numbered(count: int) -> str:
    return "".join(f"line {n}\n" for n in range(1, count + 1))


def test_fold_indents_a_short_output_whole():
    assert fold("a\nb", ID) == ["    a", "    b"]


def test_fold_does_not_count_a_trailing_empty_line():
    assert fold("a\nb\n", ID) == ["    a", "    b"]


def test_fold_shows_20_lines_then_says_how_to_see_the_rest():
    text = numbered(25)
    lines = fold(text, ID)
    assert lines[:20] == [f"    line {n}" for n in range(1, 21)]
    assert lines[20:] == [f"    … 5 more lines, {len(text)} bytes in all: /show 8a7b6c5d"]


def test_fold_says_line_for_one_more():
    text = numbered(21)
    assert fold(text, ID)[-1] == f"    … 1 more line, {len(text)} bytes in all: /show 8a7b6c5d"


def test_fold_without_an_event_id_points_at_last():
    text = numbered(22)
    assert fold(text, None)[-1] == f"    … 2 more lines, {len(text)} bytes in all: /last"


def test_fold_follows_the_shown_lines():
    text = numbered(5)
    assert fold(text, ID, shown_lines=2) == [
        "    line 1",
        "    line 2",
        f"    … 3 more lines, {len(text)} bytes in all: /show 8a7b6c5d",
    ]


def test_fold_shows_nothing_when_shown_lines_is_zero():
    assert fold(numbered(3), ID, shown_lines=0) == []


def test_fold_of_empty_text_shows_nothing():
    assert fold("", ID) == []


def test_fold_keeps_within_2048_bytes():
    row = "r" * 299  # with its newline, 300 bytes: six fit in 2048, a seventh does not
    text = "\n".join([row] * 10)
    lines = fold(text, ID)
    assert lines[:6] == ["    " + row] * 6
    assert lines[6:] == [f"    … 4 more lines, {len(text)} bytes in all: /show 8a7b6c5d"]


def test_fold_counts_bytes_not_characters():
    row = "é" * 500  # 1000 bytes each: two fit, a third does not
    lines = fold("\n".join([row] * 3), ID)
    assert len(lines) == 3
    assert lines[2].startswith("    … 1 more line, ")


def test_fold_cuts_a_single_line_over_2048_bytes():
    assert fold("q" * 3000, ID) == ["    " + "q" * 1024 + "…"]


def test_fold_always_shows_the_first_line():
    text = "q" * 3000 + "\nnext"
    assert fold(text, ID) == [
        "    " + "q" * 1024 + "…",
        f"    … 1 more line, {len(text)} bytes in all: /show 8a7b6c5d",
    ]


def test_fold_shows_a_line_of_exactly_2048_bytes_whole():
    assert fold("q" * 2048, ID) == ["    " + "q" * 2048]


def test_fold_strips_control_characters_and_expands_tabs():
    assert fold("1\t# wisp\x1b[1m\r\nbell\x07\x7f\x85", ID) == ["    1    # wisp[1m", "    bell"]


def test_fold_counts_the_raw_bytes_in_all():
    text = "\x1b" * 10 + "\n" + numbered(20)
    assert fold(text, ID)[-1] == f"    … 1 more line, {len(text)} bytes in all: /show 8a7b6c5d"


# -- the footer ------------------------------------------------------------------------------


def test_footer_of_a_turn_with_tokens():
    # A turn that ran one command.
    assert footer("ran: run_command", None, 9.4, "ok", 4009, 79) == [
        "  ran: run_command",
        "  9.4 s · ↓4,009 ↑79",
    ]


def test_footer_names_cited_entries_after_ran():
    lines = footer(
        "ran: no tools", "cited but not in this conversation: entry 19", 1.0, "ok", None, None
    )
    assert lines == [
        "  ran: no tools",
        "  cited but not in this conversation: entry 19",
        "  1.0 s",
    ]


def test_footer_of_a_failed_turn():
    assert footer(None, None, 1.5, "error", None, None) == ["  failed after 1.5 s"]


def test_footer_of_a_stopped_turn():
    lines = footer("ran: ask · run_command (1 failed)", None, 6.1, "stopped", 12, 3)
    assert lines == ["  ran: ask · run_command (1 failed)", "  stopped after 6.1 s · ↓12 ↑3"]


def test_footer_groups_thousands():
    assert footer(None, None, 3.0, "ok", 1_234_567, 12_000) == ["  3.0 s · ↓1,234,567 ↑12,000"]


@pytest.mark.parametrize(("read", "written"), [(None, 5), (5, None), (0, 0)])
def test_footer_leaves_out_unknown_or_zero_tokens(read, written):
    assert footer(None, None, 2.25, "ok", read, written) == ["  2.2 s"]
