"""The thorough pass's own parts: the text a model reads holds none of the rules' values, a
chunk ends at a line's end, and what the model names counts only where it stands whole."""

from __future__ import annotations

import itertools

from wisp.scan import find
from wisp.scan.thorough import Named, chunks, located, masked

KEY = "AKIA" + "2E0A8F3B244C9986"


def test_the_model_reads_the_rules_values_as_their_markers() -> None:
    text = f"deploy key {KEY} for Annabel\n"
    found = find(text)
    assert masked(text, 0, len(text), found) == "deploy key [REDACTED:aws-access-key] for Annabel\n"
    # A chunk that starts inside a value shows its marker, never the value's end.
    assert masked(text, 14, len(text), found) == "[REDACTED:aws-access-key] for Annabel\n"


def test_chunks_end_at_line_ends_and_cover_the_text() -> None:
    text = "".join(f"line {n:03}\n" for n in range(100))
    spans = chunks(text, size=95)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(text[end - 1] == "\n" for _, end in spans)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    assert chunks("x" * 10, size=4) == [(0, 4), (4, 8), (8, 10)]


def test_a_named_value_counts_whole_outside_what_the_rules_took() -> None:
    text = f"Anna met Annabel; Anna's key {KEY}.\n"
    found = find(text)
    named = [Named("name", "Anna"), Named("secret", KEY[:8]), Named("kind", "Annabel")]
    added = located(text, 0, len(text), named, found)
    # Anna twice, never inside Annabel; part of the key is the rules' already; an unknown kind
    # finds nothing.
    assert [(f.kind, text[f.start : f.end], f.column) for f in added] == [
        ("name", "Anna", 1),
        ("name", "Anna", 19),
    ]
