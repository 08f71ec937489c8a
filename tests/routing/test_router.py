"""The one router: routing.tasks, else the measured default, else the conversation's model,
else local (docs/models.md, "Routed tasks")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from wisp.agent.types import ModelUnavailable, ResolvedModel
from wisp.config import Config
from wisp.config.sections import RoutingTasks
from wisp.models.script import resolve as resolve_script
from wisp.routing.router import TASKS, Router, measured_default, routes, task_routes


def verified(*passed: str, date: str = "2026-12-01") -> dict[str, Any]:
    return {"capabilities": list(passed), "verified": {"date": date, "passed": list(passed)}}


def config(tmp_path: Path, data: dict[str, Any]) -> Config:
    return Config(tmp_path / "config.json", data)


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"responses": [{"text": "hi"}]}))
    return path


async def conversation_model(script: Path) -> ResolvedModel:
    return await resolve_script(str(script))


SERVED = {
    "llamacpp": {
        "models": {
            "qwen2.5-coder-1.5b": verified("toolCalling", "guidedGeneration"),
            "qwen2.5-coder-0.5b": verified("toolCalling", "guidedGeneration"),
            "smollm-0.1b": verified(),  # replied, but not in the structured form
            "mystery": {"capabilities": ["guidedGeneration"]},  # declared, never checked
        }
    }
}


def test_the_measured_default_is_the_smallest_model_whose_check_passed_the_need(
    tmp_path: Path,
) -> None:
    settings = config(tmp_path, SERVED)
    structured = measured_default(settings, structured=True)
    assert structured is not None and structured.selection == "llamacpp:qwen2.5-coder-0.5b"
    plain = measured_default(settings, structured=False)
    assert plain is not None and plain.selection == "llamacpp:smollm-0.1b"


def test_a_disabled_model_is_no_measured_default(tmp_path: Path) -> None:
    data = {**SERVED, "models": {"disabled": ["llamacpp:qwen2.5-coder-0.5b"]}}
    best = measured_default(config(tmp_path, data), structured=True)
    assert best is not None and best.selection == "llamacpp:qwen2.5-coder-1.5b"


def test_a_local_file_is_ranked_by_its_size(tmp_path: Path) -> None:
    small, large = tmp_path / "small.gguf", tmp_path / "large.gguf"
    small.write_bytes(b"x" * 10)
    large.write_bytes(b"x" * 1000)
    entries = {
        "large": {**verified("guidedGeneration"), "sha256Path": str(large)},
        "small": {**verified("guidedGeneration"), "sha256Path": str(small)},
    }
    best = measured_default(config(tmp_path, {"local": {"models": entries}}), structured=True)
    assert best is not None and best.selection == f"local:{small}" and best.size == 10


async def test_the_measured_default_is_loaded_and_its_measurement_given(
    tmp_path: Path, script: Path
) -> None:
    loaded: list[str] = []

    async def resolve(selection: str) -> ResolvedModel:
        loaded.append(selection)
        return await resolve_script(str(script))

    router = Router(lambda: config(tmp_path, SERVED), resolve)
    routed = await router.model_for(
        "assess", structured=True, input_bytes=42, conversation=await conversation_model(script)
    )
    assert loaded == ["llamacpp:qwen2.5-coder-0.5b"]
    details = routed.routed
    assert (details.task, details.input_bytes) == ("assess", 42)
    assert details.reason.startswith("wisp's measured default")
    assert "2026-12-01" in details.reason and "structured replies" in details.reason


async def test_routing_tasks_names_the_model(tmp_path: Path, script: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"responses": [{"text": "{}"}]}))
    data = {**SERVED, "routing": {"tasks": {"assess": f"script:{other}"}}}

    async def resolve(selection: str) -> ResolvedModel:
        return await resolve_script(selection.partition(":")[2])

    router = Router(lambda: config(tmp_path, data), resolve)
    routed = await router.model_for(
        "assess", structured=True, input_bytes=1, conversation=await conversation_model(script)
    )
    assert routed.model.selection == f"script:{other}"
    assert routed.routed.model == f"script:{other}"
    assert routed.routed.reason == "routing.tasks.assess names it"


async def test_a_named_model_that_cannot_be_loaded_is_refused(tmp_path: Path) -> None:
    data = {"routing": {"tasks": {"assess": "llamacpp:gone"}}}

    async def resolve(selection: str) -> ResolvedModel:
        raise ModelUnavailable(f"model '{selection}' is disabled")

    router = Router(lambda: config(tmp_path, data), resolve)
    with pytest.raises(ModelUnavailable, match="disabled"):
        await router.model_for("assess", structured=True, input_bytes=1, conversation=None)


async def test_without_a_measurement_the_conversation_s_model_runs_the_task(
    tmp_path: Path, script: Path
) -> None:
    async def resolve(selection: str) -> ResolvedModel:
        raise AssertionError(f"nothing should be loaded, not {selection}")

    model = await conversation_model(script)
    router = Router(lambda: config(tmp_path, {}), resolve)
    routed = await router.model_for("assess", structured=True, input_bytes=1, conversation=model)
    assert routed.model is model
    assert routed.routed.reason == (
        "no enabled model's recorded capability check passed structured replies: "
        "the conversation's model"
    )


async def test_a_measured_default_that_cannot_be_loaded_passes_the_task_on(
    tmp_path: Path, script: Path
) -> None:
    async def resolve(selection: str) -> ResolvedModel:
        raise ModelUnavailable("no server at 127.0.0.1:8080")

    model = await conversation_model(script)
    router = Router(lambda: config(tmp_path, SERVED), resolve)
    routed = await router.model_for("assess", structured=True, input_bytes=1, conversation=model)
    assert routed.model is model
    assert routed.routed.reason == (
        "llamacpp:qwen2.5-coder-0.5b could not be loaded (no server at 127.0.0.1:8080); "
        "the conversation's model"
    )


async def test_with_no_conversation_the_task_runs_on_local(tmp_path: Path, script: Path) -> None:
    loaded: list[str] = []

    async def resolve(selection: str) -> ResolvedModel:
        loaded.append(selection)
        return await resolve_script(str(script))

    router = Router(lambda: config(tmp_path, {}), resolve)
    routed = await router.model_for("assess", structured=False, input_bytes=1, conversation=None)
    assert loaded == ["local"]
    assert routed.routed.reason.endswith(": the default local model")


def test_every_routing_tasks_setting_is_a_routed_task_and_back() -> None:
    fields = [field.encode_name for field in msgspec.structs.fields(RoutingTasks)]
    assert sorted(task.name for task in TASKS) == sorted(fields)


def test_the_routes_shown_are_the_first_a_call_would_try(tmp_path: Path) -> None:
    settings = config(tmp_path, SERVED)
    shown = {route.task: route for route in task_routes(settings, "ollama:qwen3")}
    for task in TASKS:
        conversation = "ollama:qwen3" if task.in_conversation else None
        tried = routes(settings, task.name, structured=task.structured, conversation=conversation)
        assert (shown[task.name].model, shown[task.name].reason) == (
            tried[0].model,
            tried[0].reason,
        )
    # A JSON answer wants a model whose check passed structured replies; a plain one does not.
    assert shown["scan"].model == "llamacpp:qwen2.5-coder-0.5b" and shown["scan"].structured
    assert shown["draft"].model == "llamacpp:smollm-0.1b" and not shown["draft"].structured


def test_routing_tasks_draft_overrides_the_measured_default(tmp_path: Path) -> None:
    settings = config(tmp_path, {**SERVED, "routing": {"tasks": {"draft": "ollama:qwen3"}}})
    (draft,) = [route for route in task_routes(settings, None) if route.task == "draft"]
    assert (draft.model, draft.reason) == ("ollama:qwen3", "routing.tasks.draft names it")
