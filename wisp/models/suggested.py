"""Small GGUF models that can call tools, for ``wisp models`` to suggest and the start-up note
of a text-only model to point to. Each is a real Hugging Face repository whose ``Q4_K_M`` file
``wisp models pull hf:REPO`` chooses by itself; none is downloaded unless the person asks."""

from __future__ import annotations

SUGGESTED: tuple[tuple[str, str], ...] = (
    ("lmstudio-community/Qwen2.5-1.5B-Instruct-GGUF", "Qwen2.5 1.5B, about 1 GB"),
    ("ggml-org/Qwen3-1.7B-GGUF", "Qwen3 1.7B, about 1.3 GB"),
    ("bartowski/Llama-3.2-3B-Instruct-GGUF", "Llama 3.2 3B, about 2 GB"),
)
"""(repository, what it is) for each, smallest first."""

TOOL_MODEL_HINT = (
    f"for a model that can: wisp models pull hf:{SUGGESTED[0][0]} (then -m local:NAME), "
    "or -m ollama:qwen3"
)
"""One line saying how to get a model that can call tools."""


def suggestion_lines() -> list[str]:
    """The end of ``wisp models``' listing: a few small models that can call tools."""
    names = ", ".join(f"hf:{repository}" for repository, _ in SUGGESTED)
    return ["small models that can call tools, for wisp models pull:", f"  {names}"]
