"""The capability check: three questions, their limits, the outcome and what gets recorded."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.hang import HANG
from wisp.agent.types import ResolvedModel
from wisp.config import Config
from wisp.config.model_entry import ModelEntry
from wisp.models import local, script
from wisp.models.check import (
    CheckResult,
    Limits,
    QuestionResult,
    check_model,
    declaration_key,
    settle_declaration,
)
from wisp.models.ollama import resolve as resolve_ollama

SMOLLM2 = "SmolLM2-135M-Instruct.Q4_1"
HELLO = {"text": "Hello there!"}
HERON_CALL = {"tool_calls": [{"name": "record_word", "arguments": {"word": " Heron"}}]}
ANSWER = {"text": '{"colour": "teal", "number": 7}'}
FakeOllama = Any


async def scripted(tmp_path: Path, *responses: dict[str, Any]) -> ResolvedModel:
    path = tmp_path / "check.json"
    path.write_text(json.dumps({"responses": list(responses)}))
    return await script.resolve(str(path))


def detail(result: CheckResult, check: str) -> str:
    return result.detail_of(check)  # type: ignore[arg-type]


def test_a_question_is_said_by_its_capabilitys_name() -> None:
    def line(check: str, passed: bool) -> str:
        return QuestionResult(check, passed, "why", 1.3).line()  # type: ignore[arg-type]

    assert line("reply", True) == "reply: passed in 1.3 s"
    assert line("toolCalling", False) == "tool calling: failed in 1.3 s (why)"
    assert line("guidedGeneration", False) == "structured replies: failed in 1.3 s (why)"


# -- outcomes ----------------------------------------------------------------------------------


async def test_the_embedded_model_holds_a_conversation_but_calls_no_tool() -> None:
    pytest.importorskip("llama_cpp", reason="needs the local extra")
    model = await local.resolve("", Config(Path("/nonexistent/config.json"), {}).settings.local)
    try:
        result = await check_model(model)
    finally:
        await model.backend.aclose()
    assert result.outcome == "text only"
    assert [q.check for q in result.questions] == ["reply", "toolCalling", "guidedGeneration"]
    assert result.passed("reply") and not result.passed("toolCalling")
    assert "toolCalling" in result.capabilities_failed


async def test_a_model_that_calls_the_tool_is_usable(tmp_path: Path) -> None:
    model = await scripted(tmp_path, HELLO, HERON_CALL, ANSWER)
    heard: list[QuestionResult] = []
    result = await check_model(model, on_question=heard.append)
    assert result.outcome == "usable"
    assert [(q.check, q.passed) for q in heard] == [
        ("reply", True),
        ("toolCalling", True),
        ("guidedGeneration", True),
    ]
    assert result.capabilities_passed == ["toolCalling", "guidedGeneration"]
    assert detail(result, "toolCalling") == "record_word(word=' Heron')"
    assert detail(result, "guidedGeneration") == '{"colour":"teal","number":7}'


async def test_a_model_that_cannot_reply_is_refused_and_asked_nothing_more(
    tmp_path: Path,
) -> None:
    result = await check_model(await scripted(tmp_path, {"text": "   "}))
    assert result.outcome == "refused"
    assert [q.line().split(" in ")[0] for q in result.questions] == ["reply: failed"]
    assert detail(result, "reply") == "the reply was empty"


async def test_a_failing_request_is_a_failed_question_with_its_message(tmp_path: Path) -> None:
    result = await check_model(await scripted(tmp_path, {"error": "the server fell over"}))
    assert (result.outcome, detail(result, "reply")) == ("refused", "the server fell over")


async def test_no_call_is_text_only(tmp_path: Path) -> None:
    result = await check_model(await scripted(tmp_path, HELLO, {"text": "heron"}, ANSWER))
    assert result.outcome == "text only"
    assert detail(result, "toolCalling") == "no call to record_word arrived"
    assert result.capabilities_failed == ["toolCalling"]


async def test_a_call_with_another_word_fails(tmp_path: Path) -> None:
    wrong = {"tool_calls": [{"name": "record_word", "arguments": {"word": "egret"}}]}
    result = await check_model(await scripted(tmp_path, HELLO, wrong, ANSWER))
    assert detail(result, "toolCalling") == "record_word was called with 'egret', not 'heron'"


async def test_a_question_past_its_limit_is_cancelled_and_fails(tmp_path: Path) -> None:
    # The reply would pause for HANG between its chunks: only the cancel can end the question.
    slow = {"text": "h" * 40, "delay_ms": int(HANG * 1000)}
    result = await check_model(
        await scripted(tmp_path, slow),
        limits=Limits(reply=0.2, tool_calling=1, guided_generation=1),
    )
    assert (result.outcome, detail(result, "reply")) == ("refused", "no answer within 0.2 s")
    assert result.questions[0].seconds < HANG


async def test_a_fenced_json_reply_is_judged_by_its_json(tmp_path: Path) -> None:
    fenced = {"text": '```json\n{"colour": "red", "number": 3}\n```'}
    result = await check_model(await scripted(tmp_path, HELLO, HERON_CALL, fenced))
    assert result.passed("guidedGeneration")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Red and 3.", "the reply is not a JSON object: 'Red and 3.'"),
        ('{"colour": "red", "number": 11}', "the reply does not fit the schema (Expected `int`"),
        ('{"colour": "red"}', "the reply does not fit the schema (Object missing required field"),
    ],
)
async def test_a_reply_that_does_not_decode_to_the_schema_fails(
    tmp_path: Path, text: str, why: str
) -> None:
    result = await check_model(await scripted(tmp_path, HELLO, HERON_CALL, {"text": text}))
    assert not result.passed("guidedGeneration")
    assert detail(result, "guidedGeneration").startswith(why)


async def test_each_question_is_greedy_without_thinking_and_capped(
    ollama: FakeOllama,
    make_config: Callable[[dict[str, Any]], Config],
    http_client: httpx.AsyncClient,
) -> None:
    ollama.install("qwen3:latest", capabilities=["completion", "tools", "thinking"])
    ollama.reply_with(ollama.line("Hello"), ollama.done())
    config = make_config({"ollama": {"baseURL": ollama.base_url}})
    model = await resolve_ollama("qwen3", config.settings.ollama, {}, http_client)
    await check_model(model)
    bodies = ollama.chat_bodies()
    assert [body["options"]["num_predict"] for body in bodies] == [64, 128, 128]
    assert {body["options"]["temperature"] for body in bodies} == {0.0}
    assert {body["think"] for body in bodies} == {False}
    assert [len(body.get("tools", [])) for body in bodies] == [0, 1, 0]
    assert bodies[1]["tools"][0]["function"]["name"] == "record_word"


# -- recording ---------------------------------------------------------------------------------

TODAY = datetime.date(2026, 10, 4)


def result_of(*passes: tuple[str, bool]) -> CheckResult:
    questions = [QuestionResult(check, passed, "", 0.1) for check, passed in passes]  # type: ignore[arg-type]
    return CheckResult("llamacpp:m", questions, 0.3)


USABLE = result_of(("reply", True), ("toolCalling", True), ("guidedGeneration", True))
TEXT_ONLY = result_of(("reply", True), ("toolCalling", False), ("guidedGeneration", True))


def test_what_passed_is_recorded_with_the_day() -> None:
    settled = settle_declaration(ModelEntry(), USABLE, TODAY)
    assert settled is not None
    assert settled.date == "2026-10-04"
    assert settled.entry.stored == {
        "capabilities": ["toolCalling", "guidedGeneration"],
        "verified": {
            "date": "2026-10-04",
            "passed": ["toolCalling", "guidedGeneration"],
            "failed": [],
        },
    }


def test_a_refused_model_records_nothing() -> None:
    assert settle_declaration(ModelEntry(), result_of(("reply", False)), TODAY) is None


def test_a_capability_declared_by_hand_is_kept_though_it_failed() -> None:
    previous = {"capabilities": ["toolCalling", "reasoning"], "contextLength": 4096}
    settled = settle_declaration(ModelEntry.read("llamacpp", previous), TEXT_ONLY, TODAY)
    assert settled is not None
    assert settled.kept == ["toolCalling"]
    assert settled.recorded == ["toolCalling", "guidedGeneration", "reasoning"]
    assert settled.entry.stored["contextLength"] == 4096  # the rest of the section is kept


def test_a_capability_an_earlier_check_recorded_is_taken_out_when_it_fails() -> None:
    earlier = settle_declaration(ModelEntry(), USABLE, TODAY)
    assert earlier is not None
    settled = settle_declaration(earlier.entry, TEXT_ONLY, TODAY)
    assert settled is not None
    assert (settled.removed, settled.kept) == (["toolCalling"], [])
    assert settled.recorded == ["guidedGeneration"]
    assert settled.entry.stored["verified"]["failed"] == ["toolCalling"]


def test_where_a_check_is_recorded() -> None:
    assert declaration_key("local") == ("local", SMOLLM2)
    assert declaration_key("local:/models/Qwen3-8B.Q4_K_M.gguf", None) == (
        "local",
        "Qwen3-8B.Q4_K_M",
    )
    assert declaration_key("llamacpp:/srv/models/qwen3-8b.gguf") == ("llamacpp", "qwen3-8b")
    assert declaration_key("openai:gpt-oss-20b") == ("openai", "gpt-oss-20b")
    assert declaration_key("ollama:qwen3") is None
    assert declaration_key("script:/tmp/x.json") is None
