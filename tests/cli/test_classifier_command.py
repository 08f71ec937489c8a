"""`wisp classifier train` and the gate's second opinion, as a person meets them: the real
script, a temporary WISP_HOME, the audit log (docs/policy.md, "The classifier")."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import msgspec
import pytest

from tests.conftest import RunWisp
from wisp.policy.classifier.examples import bundled_examples

pytest.importorskip("sklearn", reason="training needs scikit-learn: pip install 'wisp[classifier]'")

SMALL = 500
"""Examples in the small file most tests train on (a second or two)."""


@pytest.fixture
def examples_file(tmp_path: Path) -> Path:
    path = tmp_path / "mine.jsonl"
    chosen = [e for e in bundled_examples() if e.split == "train"][:SMALL]
    path.write_bytes(b"".join(msgspec.json.encode(e) + b"\n" for e in chosen))
    return path


def trained_event(audit_lines) -> dict:
    return next(e["details"] for e in audit_lines() if e["kind"] == "classifier.train")


def test_training_on_a_file_writes_a_private_model_and_records_it(
    run_wisp: RunWisp, wisp_home: Path, examples_file: Path, audit_lines
) -> None:
    done = run_wisp("classifier", "train", "--examples", str(examples_file))
    assert done.returncode == 0, done.stderr
    model = wisp_home / "classifier" / "model.json"
    assert stat.S_IMODE(model.stat().st_mode) == 0o600
    assert done.stdout.startswith(f"trained on {SMALL} examples ({examples_file}: safe ")
    assert f"model: {model} (sha256:" in done.stdout
    starts = [e for e in audit_lines() if e["kind"] == "session.start"]
    assert [s["details"]["entryPoint"] for s in starts] == ["classifier"]
    event = trained_event(audit_lines)
    assert event["path"] == str(model)
    assert event["examplesSource"] == str(examples_file)
    assert event["examples"] == SMALL and sum(event["perLevel"].values()) == SMALL
    assert 0.5 < event["trainingAccuracy"] <= 1.0 and event["seconds"] > 0


def test_training_on_the_bundled_set_leaves_the_held_out_part_out(
    run_wisp: RunWisp, audit_lines
) -> None:
    done = run_wisp("classifier", "train")
    assert done.returncode == 0, done.stderr
    event = trained_event(audit_lines)
    learnt = sum(e.split == "train" for e in bundled_examples())
    assert (event["examplesSource"], event["examples"]) == ("bundled", learnt)
    assert set(event["perLevel"]) == {"safe", "moderate", "dangerous"}


def test_an_examples_file_that_does_not_fit_is_one_line_naming_its_line(
    run_wisp: RunWisp, tmp_path: Path, wisp_home: Path
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"command": "ls", "label": "safe"}\n{"command": "rm x", "label": "risky"}\n')
    done = run_wisp("classifier", "train", "--examples", str(path))
    assert done.returncode == 1
    assert done.stderr.startswith(f"wisp: {path}:2: ") and done.stderr.count("\n") == 1
    assert not (wisp_home / "classifier" / "model.json").exists()


def one_command(tmp_path: Path, command: str, **top: object) -> Path:
    script = tmp_path / "script.json"
    call = {"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}
    script.write_text(json.dumps({"responses": [call, {"text": "done"}], **top}))
    return script


def verdict_of(audit_lines, command: str) -> dict:
    return next(
        e["details"] for e in audit_lines()
        if e["kind"] == "classifier.verdict" and e["details"]["command"] == command
    )  # fmt: skip


def test_an_unknown_command_gets_the_trained_verdict_with_its_metadata(
    run_wisp: RunWisp, wisp_home: Path, examples_file: Path, tmp_path: Path, audit_lines
) -> None:
    assert run_wisp("classifier", "train", "--examples", str(examples_file)).returncode == 0
    script = one_command(tmp_path, "seq 3")
    done = run_wisp("--yes", "-m", f"script:{script}", "count to three", input="", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    verdict = verdict_of(audit_lines, "seq 3")
    assert verdict["sources"] == ["rules", "trained"]
    metadata = verdict["metadata"]
    model = wisp_home / "classifier" / "model.json"
    assert metadata["trained.model"] == str(model)
    assert metadata["trained.version"] == json.loads(model.read_text())["version"]
    assert metadata["trained.label"] in ("safe", "moderate", "dangerous")
    assert 0 < metadata["trained.confidence"] <= 1
    assert verdict["level"] in ("moderate", "dangerous")  # mayLower is off: never lowered


def test_without_a_trained_model_the_rules_stand_alone(
    run_wisp: RunWisp, tmp_path: Path, audit_lines
) -> None:
    script = one_command(tmp_path, "seq 3")
    done = run_wisp("--yes", "-m", f"script:{script}", "count to three", input="", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    verdict = verdict_of(audit_lines, "seq 3")
    assert verdict["sources"] == ["rules"] and "metadata" not in verdict


def test_the_model_classifier_asks_the_routed_model_once(
    run_wisp: RunWisp, wisp_home: Path, tmp_path: Path, audit_lines
) -> None:
    wisp_home.mkdir()
    config = {"commandPolicy": {"classifier": {"mode": "model"}}}
    (wisp_home / "config.json").write_text(json.dumps(config))
    answer = json.dumps({"reason": "it only prints numbers", "risk": "dangerous"})
    script = one_command(tmp_path, "seq 3", routed={"classify": [{"text": answer}]})
    done = run_wisp("--yes", "-m", f"script:{script}", "count to three", input="", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    verdict = verdict_of(audit_lines, "seq 3")
    assert (verdict["level"], verdict["sources"]) == ("dangerous", ["rules", "model"])
    said = "the model classifier rates it dangerous: it only prints numbers"
    assert verdict["reasons"][0] == said
    routed = [e["details"] for e in audit_lines() if e["kind"] == "model.routed"]
    assert [r["task"] for r in routed if r["task"] == "classify"] == ["classify"]
