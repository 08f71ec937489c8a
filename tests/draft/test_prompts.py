"""A draft's request: its inputs fitted to the routed model's window, a short one never cut for
a long one (docs/draft.md, "Sizes")."""

from __future__ import annotations

from wisp.draft.prompts import (
    LEAST_INPUT_BYTES,
    MOST_INPUT_BYTES,
    DraftPrompt,
    Gathered,
    fit,
    input_budget,
)
from wisp.draft.tasks import COMMIT, SUMMARY

SUBJECTS = Gathered("Subjects", "Add a README\nAdd calc.add\n")


def test_inputs_that_fit_are_kept_whole() -> None:
    diff = Gathered("Diff", "+line\n" * 10)
    assert fit([SUBJECTS, diff], 1000) == ([SUBJECTS, diff], [])


def test_a_long_input_is_cut_at_a_line_to_what_the_short_ones_leave() -> None:
    diff = Gathered("Diff", "+a line of the diff\n" * 500)
    (subjects, cut), (said,) = fit([SUBJECTS, diff], 1000)
    assert subjects == SUBJECTS
    kept = 1000 - len(SUBJECTS.text)
    assert said.label == "Diff" and said.whole == len(diff.text) and said.kept <= kept
    body, marker = cut.text.rsplit("\n", 1)
    assert body.endswith("+a line of the diff\n")
    assert marker == f"[cut here: {said.kept:,} of {said.whole:,} bytes shown]"


def test_the_budget_follows_the_window_within_bounds() -> None:
    assert input_budget(COMMIT, 2048) < input_budget(COMMIT, 8192)
    assert input_budget(COMMIT, 512) == LEAST_INPUT_BYTES
    assert input_budget(COMMIT, 1_000_000) == MOST_INPUT_BYTES
    assert input_budget(COMMIT, None) == input_budget(COMMIT, 4096)


def test_the_request_is_the_instructions_then_the_inputs_then_what_to_write() -> None:
    prompt = DraftPrompt(SUMMARY, [Gathered("The text", "Meet at noon.\n")])
    request = prompt.request(8192)
    system, user = request.messages
    assert system.content == SUMMARY.instructions
    assert user.content == "The text:\nMeet at noon.\n\n" + SUMMARY.ask
    assert request.max_tokens == SUMMARY.reply_tokens and prompt.cuts == []


def test_a_request_made_for_a_small_window_says_what_it_cut() -> None:
    prompt = DraftPrompt(COMMIT, [SUBJECTS, Gathered("Diff", "+x\n" * 5000)])
    request = prompt.request(1024)
    assert [cut.label for cut in prompt.cuts] == ["Diff"]
    assert request.estimated_tokens() < 1024 - COMMIT.reply_tokens
