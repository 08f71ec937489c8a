"""Threads on one ``local`` model share it, and its requests queue (it is not reentrant)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from wisp.agent.types import ChatRequest, Message, ResolvedModel, TextDelta
from wisp.mcp.shared_model import SharedModels
from wisp.models.script import ScriptBackend, ScriptFile, ScriptResponse


def _embedded(backend: ScriptBackend) -> ResolvedModel:
    """A model that runs in wisp's own process, as ``local`` does (a script stands in)."""
    return ResolvedModel(
        selection="local",
        backend_name="local",
        backend=backend,
        capabilities=[],
        capability_source="runtime",
        asset=None,
        context_size=None,
        context_note=None,
    )


async def test_a_second_threads_request_waits_for_the_first(tmp_path: Path) -> None:
    gate = tmp_path / "go"
    script = ScriptFile(
        responses=[
            ScriptResponse(text="first reply", wait_for_file=str(gate)),
            ScriptResponse(text="second reply"),
        ]
    )
    shared = SharedModels()
    one = shared.add(_embedded(ScriptBackend("script", script)))
    two = shared.get("local")
    assert two is not None and two.backend is not one.backend
    order: list[str] = []
    request = ChatRequest([Message(role="user", content="hi")])

    async def read(model: ResolvedModel, name: str) -> None:
        async for event in model.backend.stream(request):
            if isinstance(event, TextDelta):
                order.append(name)

    first = asyncio.create_task(read(one, "one"))
    while not order:  # the first request has begun, and holds the model
        await asyncio.sleep(0)
    second = asyncio.create_task(read(two, "two"))
    for _ in range(50):  # a reentrant model would let the second begin meanwhile
        await asyncio.sleep(0)
    assert "two" not in order
    gate.touch()
    await asyncio.gather(first, second)
    assert order == sorted(order, key=["one", "two"].index)
    assert order.count("two") > 0
    await shared.aclose()


def test_a_model_served_elsewhere_is_not_shared() -> None:
    shared = SharedModels()
    model = _embedded(ScriptBackend("script", ScriptFile()))
    model.backend_name = "script"
    assert shared.add(model) is model
    assert shared.get("local") is None
