"""Which GGUF ``wisp models pull hf:OWNER/REPO`` chooses, and how ``hf:`` names are read
(wisp/models/hub_pull.py). The pull itself runs against a loopback Hub in
tests/cli/models/test_pull_hf.py."""

from __future__ import annotations

import pytest

from wisp.agent.types import ModelUnavailable
from wisp.models.hub_pull import HubRef, choose_gguf


def test_a_repository_is_read_with_or_without_a_file() -> None:
    assert HubRef.parse("Qwen/Qwen3-1.7B-GGUF") == HubRef("Qwen/Qwen3-1.7B-GGUF", None)
    assert HubRef.parse("o/r/sub/x-Q4_K_M.gguf") == HubRef("o/r", "sub/x-Q4_K_M.gguf")
    assert HubRef.parse("o/r@v2/x.gguf") == HubRef("o/r", "x.gguf", "v2")


@pytest.mark.parametrize("name", ["qwen", "o/", "o/r/model.safetensors"])
def test_a_malformed_name_is_refused_with_the_form(name: str) -> None:
    with pytest.raises(ModelUnavailable, match=r"hf:"):
        HubRef.parse(name)


def test_q4_k_m_is_chosen_among_several_and_the_reason_says_so() -> None:
    sizes = {
        "README.md": 100,
        "m-Q2_K.gguf": 1,
        "m-Q4_K_M.gguf": 2,
        "m-Q8_0.gguf": 3,
        "mmproj-m-f16.gguf": 4,
    }
    name, why = choose_gguf("o/r", sizes)
    assert name == "m-Q4_K_M.gguf"
    assert "Q4_K_M of 3 GGUF files" in why


def test_the_only_gguf_is_chosen_whatever_its_quantisation() -> None:
    assert choose_gguf("o/r", {"m-Q8_0.gguf": 1, "README.md": 1}) == (
        "m-Q8_0.gguf",
        "the repository's only GGUF file",
    )


def test_several_without_a_clear_choice_are_listed_to_name_one() -> None:
    sizes = {"m-Q5_K_M.gguf": 2_000_000_000, "m-Q8_0.gguf": 3_000_000_000}
    with pytest.raises(ModelUnavailable) as caught:
        choose_gguf("o/r", sizes)
    message = str(caught.value)
    assert "name one" in message
    assert "hf:o/r/m-Q5_K_M.gguf (2.0 GB)" in message
    assert "hf:o/r/m-Q8_0.gguf (3.0 GB)" in message


def test_split_files_and_projectors_are_not_models_to_choose() -> None:
    sizes = {"m-Q4_K_M-00001-of-00002.gguf": 1, "m-Q4_K_M-00002-of-00002.gguf": 1, "mmproj.gguf": 1}
    with pytest.raises(ModelUnavailable, match="holds no single-file GGUF model"):
        choose_gguf("o/r", sizes)
