"""Fitting results within a budget: bounded and the head/tail hold-back
(docs/turn.md, "Output budget")."""

from __future__ import annotations

import re
import tracemalloc

from wisp.tools.output import (
    COMMAND_HINT,
    READ_FILE_HINT,
    bounded,
    cut_to_bytes,
    format_size,
    held_back_marker,
    hold_back,
    memory_hint,
)


def numbered_lines(count: int, width: int = 40) -> str:
    return "".join(f"line {n}".ljust(width, ".") + "\n" for n in range(1, count + 1))


def test_bounded_keeps_text_that_fits() -> None:
    assert bounded("hello", 5) == "hello"


def test_bounded_cuts_and_says_how_much() -> None:
    assert bounded("hello world", 5) == "hello\n[truncated: 11 bytes, showing 5]"


def test_bounded_cuts_back_to_a_character_boundary() -> None:
    # "é" is two bytes: a cut after three bytes keeps only "aé"'s whole characters.
    assert bounded("aéé", 4).startswith("aé\n[truncated: 5 bytes")


def test_bounded_counts_a_total_it_was_given() -> None:
    assert bounded("abc", 2, total=100) == "ab\n[truncated: 100 bytes, showing 2]"


def test_cut_to_bytes_never_splits_a_character() -> None:
    assert cut_to_bytes("日本語", 5) == "日"


def test_sizes_round_up_so_they_never_understate() -> None:
    assert format_size(1) == "1 byte"
    assert format_size(1023) == "1023 bytes"
    assert format_size(1025) == "2 KiB"
    assert format_size(180 * 1024) == "180 KiB"
    assert format_size(5 * 1024 * 1024 + 1) == "5.1 MiB"


def test_the_marker_reads_as_the_spec_writes_it() -> None:
    marker = held_back_marker(
        41,
        2310,
        180 * 1024,
        output_id="3f2a9c1e",
        hint=memory_hint("3f2a9c1e", 41),
        exit_status=1,
        first_error=1204,
    )
    assert marker == (
        "[held back: lines 41–2,310 (180 KiB) of output 3f2a9c1e, exit status 1, first error "
        'at line 1,204; memory "recall output 3f2a9c1e from line 41" pages it, "summarise '
        'output 3f2a9c1e" gives the notable lines, "condense output 3f2a9c1e: <question>" '
        "answers a question from all of it]"
    )


def test_hold_back_returns_text_that_fits_whole() -> None:
    text = numbered_lines(3)
    assert hold_back(text, 4096) == text


def test_hold_back_keeps_head_and_tail_within_the_budget() -> None:
    text = numbered_lines(500)
    fitted = hold_back(text, 4096, output_id="3f2a9c1e", hint=COMMAND_HINT)
    assert len(fitted.encode()) <= 4096
    assert fitted.startswith("line 1.")
    assert fitted.endswith("line 500" + "." * 32 + "\n")
    assert f"; {COMMAND_HINT}]" in fitted


def test_hold_back_takes_at_most_a_quarter_for_the_head() -> None:
    fitted = hold_back(numbered_lines(500), 4096)
    head = fitted.split("[held back")[0]
    assert len(head.encode()) <= 4096 // 4


def test_held_back_line_numbers_are_those_of_the_whole() -> None:
    text = numbered_lines(500)
    fitted = hold_back(text, 4096, output_id="3f2a9c1e", hint=READ_FILE_HINT)
    found = re.search(r"\[held back: lines (\d+)–(\d+) \(([^)]*)\)", fitted)
    assert found is not None
    first, last = int(found[1]), int(found[2].replace(",", ""))
    lines = fitted.split("\n")
    assert lines[first - 2].startswith(f"line {first - 1}.")
    assert lines[first].startswith(f"line {last + 1}.")


def test_held_back_size_is_never_less_than_what_was_held_back() -> None:
    text = numbered_lines(500)
    fitted = hold_back(text, 4096)
    shown = len(fitted.encode()) - len(re.search(r"\[held back[^\]]*\]\n", fitted)[0].encode())
    size = re.search(r"\((\d+) KiB\)", fitted)
    assert size is not None
    assert int(size[1]) * 1024 >= len(text.encode()) - shown


def test_hold_back_with_memory_names_the_first_held_line() -> None:
    fitted = hold_back(numbered_lines(500), 4096, output_id="3f2a9c1e", memory=True)
    first = re.search(r"lines (\d+)–", fitted)
    assert first is not None
    assert f'"recall output 3f2a9c1e from line {first[1]}" pages it' in fitted


def test_one_line_longer_than_the_budget_is_cut_and_held_back_whole() -> None:
    fitted = hold_back("x" * 10_000, 1024)
    assert len(fitted.encode()) <= 1024
    assert fitted.endswith(f"[held back: line 1 (10 KiB); {READ_FILE_HINT}]")


def test_a_held_back_result_never_passes_the_budget_whatever_the_marker_says() -> None:
    from wisp.tools.output import hold_back

    for count in (50, 999, 2000, 20_000):
        text = "".join(f"line {n}\n" for n in range(count))
        for budget in (300, 1024, 4096):
            if len(text.encode()) > budget:
                assert len(hold_back(text, budget, output_id="3f2a9c1e").encode()) <= budget


def test_holding_back_many_short_lines_takes_memory_in_proportion_to_the_text() -> None:
    # 16 MiB of "y\n" is 8 million lines: a list of them took about 800 MB.
    text = "y\n" * (2 * 1024 * 1024)
    tracemalloc.start()
    try:
        held = hold_back(text, 32 * 1024, output_id="3f2a9c1e", hint=COMMAND_HINT)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "[held back: lines " in held and "(4.0 MiB) of output 3f2a9c1e" in held
    assert peak < 2 * len(text)
