"""The ``trained`` classifier: the model ``wisp classifier train`` wrote under ``WISP_HOME``, read
on first use and scored in pure Python (docs/policy.md, "The classifier")."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from wisp.policy.classifier.opinion import Opinion
from wisp.policy.classifier.scorer import TrainedModel, UnusableModel
from wisp.policy.types import SimpleCommand

__all__ = ["TrainedJudge", "model_path"]


def model_path(home: Path) -> Path:
    """Where ``wisp classifier train`` writes the model, under ``WISP_HOME``."""
    return home / "classifier" / "model.json"


class TrainedJudge:
    """The model ``wisp classifier train`` wrote, read on first use (off the event loop)."""

    source = "trained"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._model: TrainedModel | None = None
        self._failure: str | None = None
        self._lock = asyncio.Lock()

    async def judge(self, command: SimpleCommand, directory: Path, side_calls: Any) -> Opinion:
        model = await self._loaded()
        where = {"trained.model": str(self.path)}
        if model is None:
            failure = self._failure or "no model"
            return Opinion(self.source, None, {**where, "trained.fallback": failure},
                           failure=failure)  # fmt: skip
        prediction = model.predict(command)
        metadata: dict[str, Any] = {
            **where,
            "trained.version": model.model.version,
            "trained.label": prediction.label,
            "trained.confidence": round(prediction.confidence, 3),
        }
        if prediction.known_features == 0:
            failure = "the model has learnt nothing about any part of this command"
            metadata["trained.fallback"] = failure
            return Opinion(self.source, None, metadata, failure=failure)
        return Opinion(self.source, prediction.label, metadata, prediction.confidence)

    async def _loaded(self) -> TrainedModel | None:
        async with self._lock:
            if self._model is None and self._failure is None:
                try:
                    self._model = await asyncio.to_thread(TrainedModel.load, self.path)
                except UnusableModel as exc:
                    self._failure = str(exc)
            return self._model
