"""wisp.config.paths: the one syntax of dotted paths, with quoted names for model names."""

from __future__ import annotations

import pytest

from wisp.config.paths import join_path, model_path, shell_word, split_path
from wisp.errors import UsageError


def error_of(text: str) -> str:
    with pytest.raises(UsageError) as caught:
        split_path(text)
    return str(caught.value)


# -- split ------------------------------------------------------------------------------


def test_a_plain_path_splits_at_its_dots() -> None:
    assert split_path("commandPolicy.sandbox.enabled") == ("commandPolicy", "sandbox", "enabled")


def test_a_quoted_name_keeps_its_dots() -> None:
    assert split_path('local.models."SmolLM2-135M-Instruct.Q4_1".capabilities') == (
        "local",
        "models",
        "SmolLM2-135M-Instruct.Q4_1",
        "capabilities",
    )


def test_colons_and_slashes_need_no_quotes() -> None:
    assert split_path("ollama.models.qwen3:latest.think") == (
        "ollama",
        "models",
        "qwen3:latest",
        "think",
    )


def test_a_quoted_name_may_end_the_path() -> None:
    assert split_path('ollama.models."hf.co/owner/repo"') == (
        "ollama",
        "models",
        "hf.co/owner/repo",
    )


def test_quotes_around_a_plain_name_are_allowed() -> None:
    assert split_path('"audit".keepFiles') == ("audit", "keepFiles")


def test_a_backslash_in_quotes_takes_the_next_character_as_it_is() -> None:
    assert split_path(r'plugin."say \"hi\".now\\then"') == ("plugin", 'say "hi".now\\then')


def test_an_empty_name_in_quotes_is_a_name() -> None:
    assert split_path('plugin.""') == ("plugin", "")


# -- malformed paths --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "position"),
    [("audit..keepFiles", 7), (".audit", 1), ("audit.", 7)],
    ids=["middle", "start", "end"],
)
def test_an_empty_name_is_named_with_its_position(text: str, position: int) -> None:
    assert error_of(text) == (
        f"{text!r} is not a setting's path: no name at position {position}; "
        'use dotted names like audit.keepFiles, and "quotes" around a name that holds a dot'
    )


def test_an_empty_path_is_an_error() -> None:
    assert error_of("") == "'' is not a setting's path: it is empty"


def test_an_unclosed_quote_is_named_with_its_position() -> None:
    text = 'local.models."SmolLM2.capabilities'
    assert error_of(text) == (
        f"{text!r} is not a setting's path: the quote at position 14 is never closed"
    )


def test_a_backslash_cannot_escape_the_end_of_the_path() -> None:
    assert (
        error_of('a."b\\')
        == "'a.\"b\\\\' is not a setting's path: the quote at position 3 is never closed"
    )


def test_text_after_a_closing_quote_is_named_with_its_position() -> None:
    text = 'local.models."a.b"c.think'
    assert error_of(text) == (
        f"{text!r} is not a setting's path: expected a dot after the closing quote at position 18"
    )


def test_a_quote_inside_a_name_is_named_with_its_position() -> None:
    text = 'local.models.a"b".think'
    assert error_of(text) == (
        f"{text!r} is not a setting's path: a quote inside a name at position 15; "
        'put the whole name in quotes: "NAME"'
    )


# -- join -------------------------------------------------------------------------------


def test_plain_names_are_joined_bare() -> None:
    assert join_path(("audit", "keepFiles")) == "audit.keepFiles"


def test_a_name_with_a_dot_is_quoted() -> None:
    assert join_path(("local", "models", "SmolLM2-135M-Instruct.Q4_1", "capabilities")) == (
        'local.models."SmolLM2-135M-Instruct.Q4_1".capabilities'
    )


def test_a_name_with_a_colon_or_slash_but_no_dot_is_bare() -> None:
    assert join_path(("ollama", "models", "owner/repo:q4")) == "ollama.models.owner/repo:q4"


def test_quotes_and_backslashes_in_a_name_are_escaped() -> None:
    assert join_path(("plugin", 'say "hi"\\')) == r'plugin."say \"hi\"\\"'


NAMES = [
    ("audit", "keepFiles"),
    ("local", "models", "SmolLM2-135M-Instruct.Q4_1", "verified", "date"),
    ("ollama", "models", "qwen2.5-coder:1.5b"),
    ("ollama", "models", "hf.co/owner/repo:Q4_K_M", "think"),
    ("plugin", ""),
    ("plugin", '"'),
    ("plugin", "\\"),
    ("plugin", '."\\.'),
    ("plugin", " spaced name "),
    ("plugin", "été.日本"),
]


@pytest.mark.parametrize("names", NAMES, ids=[join_path(n) for n in NAMES])
def test_a_joined_path_splits_back_to_its_names(names: tuple[str, ...]) -> None:
    assert split_path(join_path(names)) == names


def test_model_path_quotes_the_name_when_it_must() -> None:
    assert model_path("local", "SmolLM2.Q4_1", "contextLength") == (
        'local.models."SmolLM2.Q4_1".contextLength'
    )


# -- as typed at a shell ----------------------------------------------------------------


def test_a_plain_path_is_typed_as_it_is() -> None:
    assert shell_word("audit.keepFiles") == "audit.keepFiles"


def test_a_path_with_quotes_is_typed_in_single_quotes() -> None:
    assert shell_word('local.models."a.b".think') == "'local.models.\"a.b\".think'"
