"""A command mistyped by one edit is caught before any model starts."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def script(tmp_path: Path) -> str:
    """A model that would answer, so a word that reaches it shows as a reply."""
    path = tmp_path / "s.json"
    path.write_text('{"responses": [{"text": "a reply"}]}')
    return f"script:{path}"


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("modles", "models"),  # two letters swapped
        ("model", "models"),  # one left out
        ("chatt", "chat"),  # one too many
        ("lugs", "logs"),  # one changed
        ("cnofig", "config"),
    ],
)
def test_a_command_one_edit_away_is_named_and_nothing_is_sent(
    run_wisp, wisp_home: Path, script: str, typed: str, meant: str
) -> None:
    result = run_wisp("-m", script, typed)
    assert (result.returncode, result.stdout) == (2, "")
    assert f'wisp: did you mean "wisp {meant}"?' in result.stderr
    assert f"wisp -m {script} -- {typed}" in result.stderr  # how to send it anyway
    assert result.stderr.count("\n") == 1
    assert not (wisp_home / "logs").exists()  # no session began, nothing was recorded


def test_a_mistyped_command_without_options_suggests_the_plain_forms(run_wisp, wisp_home) -> None:
    result = run_wisp("modles")  # the configured model, local, is never started
    assert result.returncode == 2
    assert result.stderr == 'wisp: did you mean "wisp models"? To ask the model: wisp -- modles\n'
    assert not (wisp_home / "logs").exists()


def test_after_a_double_dash_a_word_near_a_command_is_a_prompt(run_wisp, script: str) -> None:
    result = run_wisp("-m", script, "--", "modles")
    assert (result.returncode, result.stdout) == (0, "a reply\n")


def test_after_a_double_dash_a_command_name_is_a_prompt(run_wisp, script: str) -> None:
    result = run_wisp("-m", script, "--", "models", "and", "more")
    assert (result.returncode, result.stdout) == (0, "a reply\n")


def test_several_words_are_a_prompt_even_when_the_first_is_near_a_command(
    run_wisp, script: str
) -> None:
    result = run_wisp("-m", script, "modles", "are", "what?")
    assert (result.returncode, result.stdout) == (0, "a reply\n")


def test_one_word_with_a_space_in_it_is_a_prompt(run_wisp, script: str) -> None:
    result = run_wisp("-m", script, "chat ")
    assert (result.returncode, result.stdout) == (0, "a reply\n")


def test_one_word_two_edits_from_every_command_is_a_prompt(run_wisp, script: str) -> None:
    result = run_wisp("-m", script, "hello")
    assert (result.returncode, result.stdout) == (0, "a reply\n")
