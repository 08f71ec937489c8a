"""The trained classifier at run time: a linear model read from JSON, scored in pure Python.

``wisp classifier train`` writes ``WISP_HOME/classifier/model.json``: the feature vocabulary, one
row of coefficients per feature (one per label) and an intercept per label. Scoring a command
is its features (``features.py``, as in training) looked up, their rows added to the intercept
in the vocabulary's order (as scikit-learn's sparse product adds them, so the label is the one
it predicts), and a softmax over the sums for the label's confidence. Nothing here imports
scikit-learn: only training needs it.
"""

from __future__ import annotations

import math
from pathlib import Path

import msgspec

from wisp.policy.classifier.features import FEATURES_VERSION, command_features
from wisp.policy.types import Level, SimpleCommand

__all__ = ["MODEL_FORMAT", "ModelFile", "Prediction", "TrainedModel", "UnusableModel"]

MODEL_FORMAT = 1
"""The layout of ``model.json``; a file of another layout is refused."""


class ModelFile(msgspec.Struct, frozen=True, rename="camel"):
    """``model.json`` as written and read."""

    format: int
    features_version: int
    version: str
    """Names this model among others: ``sha256:`` and the start of the digest of its numbers."""
    trained: str
    """When it was trained (UTC, ISO 8601)."""
    examples_source: str
    examples: int
    labels: list[Level]
    intercept: list[float]
    vocabulary: list[str]
    coefficients: list[list[float]]
    """One row per vocabulary entry, one number per label."""


class Prediction(msgspec.Struct, frozen=True):
    """What the model says of one command."""

    label: Level
    confidence: float
    """The label's probability under the model, from 0 to 1."""
    known_features: int
    """How many of the command's features the model has a weight for; 0: it knows nothing of
    the command, and the label is only how common each label was."""


class UnusableModel(Exception):
    """The model file cannot be used; the message says why, for ``trained.fallback``."""


class TrainedModel:
    """A model read once, scored many times."""

    def __init__(self, model: ModelFile, path: Path) -> None:
        self.model = model
        self.path = path
        self._index = {name: index for index, name in enumerate(model.vocabulary)}

    @classmethod
    def load(cls, path: Path) -> TrainedModel:
        """Read ``path``; ``UnusableModel`` when it is missing, malformed or of another make."""
        try:
            model = msgspec.json.decode(path.read_bytes(), type=ModelFile)
        except FileNotFoundError as exc:
            raise UnusableModel(f"no trained model at {path} (wisp classifier train)") from exc
        except (OSError, msgspec.DecodeError) as exc:
            raise UnusableModel(f"cannot read {path}: {exc}") from exc
        if model.format != MODEL_FORMAT or model.features_version != FEATURES_VERSION:
            raise UnusableModel(
                f"{path} was trained by another version of wisp (format {model.format}, "
                f"features {model.features_version}); train it again: wisp classifier train"
            )
        width = len(model.labels)
        rows_fit = all(len(row) == width for row in model.coefficients)
        if len(model.coefficients) != len(model.vocabulary) or len(model.intercept) != width:
            rows_fit = False
        if not rows_fit or width == 0:
            raise UnusableModel(f"{path}: its coefficients do not fit its labels and vocabulary")
        return cls(model, path)

    def predict(self, command: SimpleCommand) -> Prediction:
        return self.predict_features(command_features(command))

    def predict_features(self, features: list[str]) -> Prediction:
        indices = sorted(i for name in features if (i := self._index.get(name)) is not None)
        sums = list(self.model.intercept)
        for index in indices:
            row = self.model.coefficients[index]
            for label in range(len(sums)):
                sums[label] += row[label]
        best = max(range(len(sums)), key=sums.__getitem__)
        top = sums[best]
        total = sum(math.exp(value - top) for value in sums)
        return Prediction(self.model.labels[best], 1.0 / total, len(indices))
