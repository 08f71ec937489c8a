"""Which lines wisp hands to `sh -c` at all: no NUL, at most MAX_LINE_BYTES UTF-8 bytes."""

from __future__ import annotations

from pathlib import Path

from wisp.tools.command_line import MAX_LINE_BYTES, NUL_REFUSAL, line_refusal


def test_a_line_at_the_limit_runs() -> None:
    assert line_refusal("x" * MAX_LINE_BYTES) is None


def test_a_line_one_byte_past_the_limit_is_refused_naming_both_sizes() -> None:
    refusal = line_refusal("x" * (MAX_LINE_BYTES + 1))
    assert refusal == (
        f"the line is {MAX_LINE_BYTES + 1:,} bytes long; wisp runs lines of at most "
        f"{MAX_LINE_BYTES:,} bytes"
    )


def test_the_limit_counts_utf8_bytes_not_characters() -> None:
    assert line_refusal("é" * (MAX_LINE_BYTES // 2)) is None
    assert line_refusal("é" * (MAX_LINE_BYTES // 2 + 1)) is not None


def test_the_limit_is_below_what_the_kernel_takes_as_one_argument() -> None:
    assert MAX_LINE_BYTES < 128 * 1024  # MAX_ARG_STRLEN, with the terminating NUL


def test_a_nul_anywhere_is_refused() -> None:
    assert line_refusal("echo a\0b") == NUL_REFUSAL


def test_the_docs_give_the_limit_the_code_applies() -> None:
    docs = Path(__file__).parents[2] / "docs"
    stated = f"{MAX_LINE_BYTES:,} bytes"
    assert f"**{stated}**" in (docs / "sandbox.md").read_text()
    assert stated in (docs / "protocol.md").read_text()
