"""Selections (docs/models.md, "Selections"): one grammar, and one canonical name for every
spelling."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wisp.agent.types import ModelUnavailable
from wisp.models.selection import Selection, canonical_selection, is_local_name, parse_selection


@pytest.mark.parametrize("text", ["local", "", "  local  ", "LOCAL"])
def test_local_and_the_empty_string_are_the_default_local_model(text: str) -> None:
    assert parse_selection(text) == Selection("local", "", "local")


def test_split_is_at_the_first_colon() -> None:
    selection = parse_selection("ollama:qwen3:8b")
    assert (selection.scheme, selection.name) == ("ollama", "qwen3:8b")


def test_scheme_is_lower_cased() -> None:
    assert parse_selection("Ollama:qwen3:8b").canonical == "ollama:qwen3:8b"


def test_any_well_formed_scheme_parses_the_registry_decides() -> None:
    assert parse_selection("mlx:some-model").scheme == "mlx"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("ollama:qwen3", "ollama:qwen3:latest"),
        ("ollama:qwen3:8b", "ollama:qwen3:8b"),
        ("ollama:hf.co/bartowski/Qwen3-GGUF", "ollama:hf.co/bartowski/Qwen3-GGUF:latest"),
        ("ollama:hf.co/bartowski/Qwen3-GGUF:Q4_K_M", "ollama:hf.co/bartowski/Qwen3-GGUF:Q4_K_M"),
        ("llamacpp:/models/qwen3-8b-q4.gguf", "llamacpp:qwen3-8b-q4"),
        ("llamacpp:qwen3", "llamacpp:qwen3"),
        ("lmstudio:qwen/qwen3-8b", "lmstudio:qwen/qwen3-8b"),
        ("openai:models/x.gguf", "openai:x"),
        ("openai:gpt-oss-20b", "openai:gpt-oss-20b"),
    ],
)
def test_canonical_names(text: str, canonical: str) -> None:
    assert canonical_selection(text) == canonical


def test_local_path_is_expanded_and_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real.gguf"
    real.touch()
    (tmp_path / "link.gguf").symlink_to(real)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert canonical_selection("local:~/link.gguf") == f"local:{real}"


def test_script_relative_path_is_resolved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        canonical_selection("script:replies.json")
        == f"script:{os.path.realpath(tmp_path)}/replies.json"
    )


def test_a_disabled_model_matches_under_another_spelling() -> None:
    assert canonical_selection(" ollama:granite4 ") == canonical_selection("OLLAMA:granite4:latest")


@pytest.mark.parametrize("text", ["foo", ":qwen", "ollama:", "ollama:a b", "my_backend:x", "a.b:x"])
def test_malformed_selection_is_refused_with_the_grammar(text: str) -> None:
    with pytest.raises(ModelUnavailable) as caught:
        parse_selection(text)
    assert str(caught.value) == f"unknown model '{text}': use local, or <backend>:<name>"


def test_system_points_to_local() -> None:
    with pytest.raises(
        ModelUnavailable, match=r"^unknown model 'system': the built-in model is local$"
    ):
        parse_selection("system")


def test_a_local_name_that_is_no_path_names_a_pulled_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``local:NAME`` (no ``/``, no ``~``, no ``.gguf``) is the name ``wisp models pull hf:…``
    records, the same wherever it is typed; a file is still named by its path."""
    monkeypatch.chdir(tmp_path)
    assert canonical_selection("local:Qwen2.5-1.5B-Instruct-Q4_K_M") == (
        "local:Qwen2.5-1.5B-Instruct-Q4_K_M"
    )
    assert canonical_selection("local:model.gguf") == f"local:{tmp_path / 'model.gguf'}"
    assert canonical_selection("local:./model") == f"local:{tmp_path / 'model'}"
    assert not is_local_name("")  # the default model, named by no name
