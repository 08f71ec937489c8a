"""The trained classifier (docs/policy.md, "The classifier"): the bundled labelled set, one
featuriser for training and run time, the pure-Python scorer against scikit-learn, a model file
that cannot be used, and the model classifier's calls."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import msgspec
import pytest

from tests.hang import HANG
from wisp.agent.side_calls import SideCalls
from wisp.models.script import resolve
from wisp.policy.classifier.examples import Example, bundled_examples
from wisp.policy.classifier.features import FEATURES_VERSION, command_features
from wisp.policy.classifier.model_judge import ModelJudge
from wisp.policy.classifier.scorer import TrainedModel, UnusableModel
from wisp.policy.classifier.trained_judge import TrainedJudge
from wisp.policy.classifier.training import Trained, featurise, train
from wisp.policy.rules import NO_RULE_REASON, assess
from wisp.policy.split import split_line

pytest.importorskip("sklearn", reason="training needs scikit-learn: pip install 'wisp[classifier]'")

EXAMPLES = bundled_examples()
HELD_OUT = [example for example in EXAMPLES if example.split == "heldout"]


@pytest.fixture(scope="module")
def trained() -> Trained:
    """The bundled set's training split, learnt once for the module (about ten seconds)."""
    return train([e for e in EXAMPLES if e.split == "train"], "bundled")


def small_model(path: Path) -> Path:
    """A model learnt from a few hundred bundled examples, written to ``path``."""
    model = train(EXAMPLES[:400], "bundled").model
    path.write_bytes(msgspec.json.encode(model))
    return path


def test_the_bundled_set_is_labelled_split_and_sourced() -> None:
    assert len(EXAMPLES) > 10_000
    assert len({example.command for example in EXAMPLES}) == len(EXAMPLES)
    assert Counter(example.label for example in EXAMPLES).keys() == {
        "safe", "moderate", "dangerous",
    }  # fmt: skip
    assert 0.15 < len(HELD_OUT) / len(EXAMPLES) < 0.25
    assert {example.source.split(":")[0] for example in EXAMPLES} == {"handwritten", "tldr"}


def test_training_and_run_time_featurise_a_command_alike() -> None:
    for text in ("sudo -u bob rm -rf /", "tar xzf a.tgz -C /opt", "echo hi > /etc/hosts"):
        assert featurise(text) == command_features(split_line(text)[0])


def test_the_scorer_labels_the_held_out_set_as_scikit_learn_does(
    trained: Trained, tmp_path: Path
) -> None:
    path = tmp_path / "model.json"
    path.write_bytes(msgspec.json.encode(trained.model))
    scorer = TrainedModel.load(path)
    rows = [{name: 1 for name in featurise(example.command)} for example in HELD_OUT]
    expected = trained.estimator.predict(trained.vectorizer.transform(rows))
    probabilities = trained.estimator.predict_proba(trained.vectorizer.transform(rows)).max(axis=1)
    scored = [scorer.predict(split_line(example.command)[0]) for example in HELD_OUT]
    assert [s.label for s in scored] == list(expected)
    assert [round(s.confidence, 6) for s in scored] == [round(p, 6) for p in probabilities]


def test_the_held_out_commands_the_rules_do_not_know_are_labelled_better_than_flat_moderate(
    trained: Trained,
) -> None:
    scorer = TrainedModel(trained.model, Path("model.json"))
    unknown = [e for e in HELD_OUT if assess(split_line(e.command)[0]).reasons == [NO_RULE_REASON]]
    right = sum(scorer.predict(split_line(e.command)[0]).label == e.label for e in unknown)
    flat = sum(e.label == "moderate" for e in unknown)
    assert right > flat


def test_a_model_of_other_features_is_refused_saying_so(tmp_path: Path) -> None:
    path = small_model(tmp_path / "model.json")
    data = json.loads(path.read_text())
    data["featuresVersion"] = FEATURES_VERSION + 1
    path.write_text(json.dumps(data))
    with pytest.raises(UnusableModel, match="another version of wisp"):
        TrainedModel.load(path)


async def test_an_unreadable_model_leaves_the_rules_verdict_with_the_reason(
    tmp_path: Path,
) -> None:
    path = tmp_path / "model.json"
    path.write_text("{not json")
    opinion = await TrainedJudge(path).judge(split_line("seq 3")[0], tmp_path, None)
    assert opinion.label is None
    assert opinion.metadata["trained.fallback"].startswith(f"cannot read {path}")


async def test_a_trained_verdict_names_its_model_version_label_and_confidence(
    tmp_path: Path,
) -> None:
    path = small_model(tmp_path / "model.json")
    opinion = await TrainedJudge(path).judge(split_line("git status --short")[0], tmp_path, None)
    version = json.loads(path.read_text())["version"]
    assert opinion.metadata == {
        "trained.model": str(path),
        "trained.version": version,
        "trained.label": opinion.label,
        "trained.confidence": round(opinion.confidence or 0, 3),
    }


def test_scoring_at_run_time_never_imports_scikit_learn(tmp_path: Path) -> None:
    path = small_model(tmp_path / "model.json")
    program = f"""
import asyncio, sys
from pathlib import Path
import wisp.cli.building.runner, wisp.tools.command_runner
from wisp.policy.classifier.opinion import SecondOpinion
from wisp.policy.classifier.trained_judge import TrainedJudge
from wisp.policy.rules import assess
from wisp.policy.split import split_line
parts = split_line("seq 3")
opinion = SecondOpinion(TrainedJudge(Path({str(path)!r})), may_lower=True)
reviewed = asyncio.run(opinion.review(parts, [assess(p) for p in parts], Path(".")))
print(reviewed.assessments[0].sources, sorted(m for m in sys.modules if m.startswith("sklearn")))
"""
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=HANG, check=True
    )
    assert done.stdout.strip() == "['rules', 'trained'] []"


async def model_calls(tmp_path: Path, *answers: str) -> tuple[SideCalls, object]:
    script = tmp_path / "classify.json"
    routed = {"classify": [{"text": answer} for answer in answers]}
    script.write_text(json.dumps({"responses": [], "routed": routed}))
    model = await resolve(str(script))
    return SideCalls(None, None, lambda: model), model.backend  # type: ignore[arg-type]


async def test_the_model_classifier_asks_once_and_remembers_its_verdict(tmp_path: Path) -> None:
    answer = json.dumps({"reason": "it prints numbers", "risk": "safe"})
    side_calls, backend = await model_calls(tmp_path, answer)
    judge, command = ModelJudge(), split_line("seq 3")[0]
    first = await judge.judge(command, tmp_path, side_calls)
    again = await judge.judge(command, tmp_path, side_calls)
    assert (first.label, first.explanation) == ("safe", "it prints numbers")
    assert "classifier.cached" not in first.metadata
    assert again.label == "safe" and again.metadata["classifier.cached"] is True
    assert backend.routed_requests == {"classify": 1}  # type: ignore[attr-defined]


async def test_a_model_answer_that_does_not_fit_is_a_failure_never_remembered(
    tmp_path: Path,
) -> None:
    good = json.dumps({"reason": "it deletes", "risk": "dangerous"})
    side_calls, backend = await model_calls(tmp_path, "I think it is fine.", good)
    judge, command = ModelJudge(), split_line("seq 3")[0]
    failed = await judge.judge(command, tmp_path, side_calls)
    assert failed.label is None
    assert "not a JSON object" in failed.metadata["classifier.failure"]
    assert (await judge.judge(command, tmp_path, side_calls)).label == "dangerous"
    assert backend.routed_requests == {"classify": 2}  # type: ignore[attr-defined]


async def test_the_model_classifier_with_no_conversation_says_so(tmp_path: Path) -> None:
    opinion = await ModelJudge().judge(split_line("seq 3")[0], tmp_path, None)
    assert opinion.label is None and "no model to ask" in opinion.metadata["classifier.failure"]


def test_an_example_file_line_needs_only_a_command_and_a_label() -> None:
    line = b'{"command": "make deploy", "label": "dangerous"}'
    assert msgspec.json.decode(line, type=Example) == Example("make deploy", "dangerous")
