"""Runaway replies: a reply that repeats itself, or runs past its cap, is cut, and says why."""

from __future__ import annotations

import pytest

from wisp.agent.runaway import RunawayGuard, repeats_itself, reply_cap

WIZARD = "I'm a wizard, a wizard, " * 40
PROSE = " ".join(f"Sentence {n} says something new about item {n * 7}." for n in range(60))


def feed(guard: RunawayGuard, text: str, piece: int = 4) -> str | None:
    for at in range(0, len(text), piece):
        if (why := guard.add(text[at : at + piece])) is not None:
            return why
    return None


@pytest.mark.parametrize(
    "text",
    [WIZARD, "The same line again.\n" * 40, "ha" * 300, "x" * 500],
    ids=["phrase", "line", "syllable", "character"],
)
def test_a_reply_repeating_itself_is_cut(text: str) -> None:
    assert feed(RunawayGuard(cap_tokens=100_000), text) == "it kept repeating itself"


def test_a_sentence_counting_on_is_cut_once_it_fills_3000_characters() -> None:
    # SmolLM2-135M, asked which Python is installed, counted on to its 4,096-token cap.
    counting = " ".join(f"This is Python {n}." for n in range(2, 900))
    guard = RunawayGuard(cap_tokens=100_000)
    shown = ""
    while (why := guard.add(counting[len(shown) : len(shown) + 4])) is None:
        shown += counting[len(shown) : len(shown) + 4]
    assert why == "it kept repeating itself, only its numbers changing"
    assert 3000 < len(shown) < 3600  # about 800 tokens, not the 4,096 of the cap


@pytest.mark.parametrize(
    "text",
    [
        ", ".join(str(n) for n in range(1, 2000)),
        "\n".join(f"{n},{n * 3},{n % 7}" for n in range(500)),
    ],
    ids=["a count", "numbers only"],
)
def test_numbers_alone_counting_on_are_an_answer(text: str) -> None:
    assert feed(RunawayGuard(cap_tokens=100_000), text) is None


@pytest.mark.parametrize(
    "text",
    [
        PROSE,
        "\n".join(f"{n}. step {n}: run `make test-{n}`" for n in range(80)),
        "| a | b |\n|---|---|\n" + "".join(f"| {n} | {n * n} |\n" for n in range(60)),
    ],
    ids=["prose", "numbered list", "table"],
)
def test_a_long_reply_that_moves_on_is_not(text: str) -> None:
    assert feed(RunawayGuard(cap_tokens=100_000), text) is None


def test_a_reply_past_its_cap_is_cut() -> None:
    assert feed(RunawayGuard(cap_tokens=100), PROSE) == (
        "it ran past 100 tokens (agent.maxReplyTokens)"
    )


def test_the_cap_follows_the_window_unless_set() -> None:
    assert reply_cap(0, 8192) == 4096
    assert reply_cap(0, 2048) == 1024
    assert reply_cap(0, 131_072) == 16_384
    assert reply_cap(0, None) == 16_384
    assert reply_cap(500, 8192) == 500


def test_repeats_need_four_copies_over_400_characters() -> None:
    assert not repeats_itself("abc " * 50)  # 200 characters
    assert repeats_itself("abc " * 120)


def test_text_held_as_a_possible_call_counts_toward_the_cap_and_repeats() -> None:
    guard = RunawayGuard(cap_tokens=100)
    assert feed(guard, "Let me check. ") is None
    assert guard.held(300, "x" * 300) is None  # 14 + 300 characters: within 400
    assert guard.held(390, "x" * 390) == "it ran past 100 tokens (agent.maxReplyTokens)"
    looping = RunawayGuard(cap_tokens=100_000)
    tail = '{"name": "f", "arguments": {' + '"type": "date", ' * 60
    assert looping.held(len(tail), tail) == "it kept repeating itself"


def test_held_text_that_was_shown_no_longer_counts() -> None:
    guard = RunawayGuard(cap_tokens=100)
    assert guard.held(300, "y" * 300) is None
    assert guard.held(0, "") is None  # shown or taken as a call
    assert feed(guard, "z" * 300) is None  # 300 characters counted once, not twice
