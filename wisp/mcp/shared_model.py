"""Threads on one ``local`` model share it: the embedded model is not reentrant, so their
requests wait their turn on one lock, each thread holding its own view of the model."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import msgspec

from wisp.agent.types import ChatRequest, ResolvedModel, StreamEvent


class QueuedBackend:
    """A shared backend whose requests run one at a time, in the order they came."""

    def __init__(self, backend: object, lock: asyncio.Lock) -> None:
        self._backend = backend
        self._lock = lock

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        async with self._lock:
            async for event in self._backend.stream(request):  # type: ignore[attr-defined]
                yield event

    async def aclose(self) -> None:
        """The shared model outlives each thread: the server closes it (``SharedModels``)."""


class SharedModels:
    """The embedded models loaded so far, by selection, and the lock each one's requests take."""

    def __init__(self) -> None:
        self._models: dict[str, tuple[ResolvedModel, asyncio.Lock]] = {}

    def get(self, selection: str) -> ResolvedModel | None:
        """A thread's own view of a loaded model, or None when it is not loaded."""
        held = self._models.get(selection)
        if held is None:
            return None
        model, lock = held
        return msgspec.structs.replace(model, backend=QueuedBackend(model.backend, lock))

    def add(self, model: ResolvedModel) -> ResolvedModel:
        """Keep a newly resolved model when it runs in this process; the thread's view of it."""
        if model.backend_name != "local":
            return model
        self._models.setdefault(model.selection, (model, asyncio.Lock()))
        view = self.get(model.selection)
        assert view is not None
        return view

    async def aclose(self) -> None:
        for model, _ in self._models.values():
            await model.backend.aclose()
        self._models.clear()
