"""Training the command classifier with scikit-learn (``wisp classifier train``).

Only this module imports scikit-learn, and only ``wisp classifier train``, the bench and the
tests import it: the gate scores with ``scorer.py``, in pure Python. Each example is split as
the gate splits a line (``wisp.policy.split``), so it is featurised from the same
``SimpleCommand`` a command is at run time (``features.py``). A feature seen in fewer than
``MIN_COUNT`` examples is left out of the vocabulary, which keeps the model small and ignores
what one example alone says. The model is a multinomial logistic regression: its coefficients
are a table a few lines of Python can score, and its probabilities say how sure it is.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from wisp.errors import WispError
from wisp.policy.classifier.examples import Example
from wisp.policy.classifier.features import FEATURES_VERSION, command_features
from wisp.policy.classifier.scorer import MODEL_FORMAT, ModelFile
from wisp.policy.split import split_line
from wisp.policy.types import LEVEL_ORDER

__all__ = ["MIN_COUNT", "Trained", "featurise", "train"]

MIN_COUNT = 2
REGULARISATION = 4.0
"""scikit-learn's ``C``: larger follows the examples more closely."""


class Trained(msgspec.Struct, frozen=True):
    """A trained model, as written to ``model.json``, and how well it labels its examples."""

    model: ModelFile
    estimator: Any
    """The scikit-learn estimator itself, for the tests and the bench to compare against."""
    vectorizer: Any
    per_level: dict[str, int]
    training_accuracy: float
    seconds: float


def featurise(command: str) -> list[str]:
    """The features of ``command`` as the gate would see it: its first simple command's."""
    parts = split_line(command)
    if not parts:
        return []
    return command_features(parts[0])


def train(examples: Sequence[Example], source: str) -> Trained:
    """A model learnt from ``examples``; ``WispError`` when they cannot teach one."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    started = time.monotonic()
    labels = sorted({example.label for example in examples}, key=LEVEL_ORDER.__getitem__)
    if len(labels) < 2:
        raise WispError("the examples need at least two different labels to learn from")
    rows = [featurise(example.command) for example in examples]
    counts = Counter(name for row in rows for name in row)
    kept = [{name: 1 for name in row if counts[name] >= MIN_COUNT} for row in rows]
    vectorizer = DictVectorizer(sort=True)
    matrix = vectorizer.fit_transform(kept)
    targets = [example.label for example in examples]
    estimator = LogisticRegression(C=REGULARISATION, max_iter=5000)
    estimator.fit(matrix, targets)
    accuracy = float(estimator.score(matrix, targets))
    model = _model_file(estimator, vectorizer, source, len(examples))
    return Trained(
        model=model,
        estimator=estimator,
        vectorizer=vectorizer,
        per_level=dict(sorted(Counter(targets).items(), key=lambda kv: LEVEL_ORDER[kv[0]])),
        training_accuracy=round(accuracy, 4),
        seconds=round(time.monotonic() - started, 3),
    )


def _model_file(estimator: Any, vectorizer: Any, source: str, count: int) -> ModelFile:
    classes = [str(label) for label in estimator.classes_]
    coefficients = estimator.coef_.T.tolist()
    intercept = estimator.intercept_.tolist()
    vocabulary = [str(name) for name in vectorizer.get_feature_names_out()]
    numbers = msgspec.json.encode([classes, intercept, vocabulary, coefficients])
    return ModelFile(
        format=MODEL_FORMAT,
        features_version=FEATURES_VERSION,
        version="sha256:" + hashlib.sha256(numbers).hexdigest()[:16],
        trained=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        examples_source=source,
        examples=count,
        labels=classes,  # type: ignore[arg-type]
        intercept=intercept,
        vocabulary=vocabulary,
        coefficients=coefficients,
    )
