"""``respond`` with a ``schema`` on a model that holds its reply to it (docs/mcp.md, "Shaped
replies"): the embedded model, through a real ``wisp mcp``."""

from __future__ import annotations

from pathlib import Path

import pytest
from jsonschema import validate

from tests.mcp.conftest import Connect, write_config
from wisp.agent.types import ResolvedModel
from wisp.mcp.shaped import held_to

pytest.importorskip("llama_cpp", reason="needs the local extra")

ANSWER = {
    "type": "object",
    "properties": {"answer": {"type": "string", "maxLength": 16}},  # a short reply: it is slow
    "required": ["answer"],
}


async def test_the_embedded_models_reply_is_held_to_the_schema(
    connect: Connect, wisp_env: dict[str, str]
) -> None:
    # SmolLM2-135M asked in words alone answers in prose ("The capital of France is Paris."):
    # the grammar made from the schema is what makes the reply fit.
    write_config(Path(wisp_env["WISP_HOME"]), {"agent": {"maxReplyTokens": 48}})
    async with connect(["-m", "local", "--no-tools"]) as client:
        result = await client.call_tool(
            "respond",
            {"prompt": "Capital of France?", "schema": ANSWER, "instructions": "Be brief."},
        )
    assert not result.is_error, result.content[0].text
    validate(result.structured_content["output"], ANSWER)


def test_the_schema_goes_only_to_a_model_that_can_hold_a_reply_to_it() -> None:
    def model(*capabilities: str) -> ResolvedModel:
        return ResolvedModel("m", "m", None, list(capabilities), "runtime", None, None, None)  # type: ignore[arg-type]

    assert held_to(model("guidedGeneration", "toolCalling"), ANSWER) == ANSWER
    assert held_to(model("toolCalling"), ANSWER) is None  # asked in words alone
    assert held_to(model("guidedGeneration"), None) is None
