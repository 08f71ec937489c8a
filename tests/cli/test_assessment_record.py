"""A real `wisp` one-shot records the assessment and its routed model call with every field of
the seed's `context.assessment` and `model.routed` (docs/turn.md, "The assessment per
request"; docs/models.md, "Routed tasks")."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import RunWisp

AuditLines = Callable[[], list[dict[str, Any]]]
QUESTION = "What is the capital of France?"


def write(path: Path, *responses: dict[str, Any]) -> Path:
    path.write_text(json.dumps({"responses": list(responses)}))
    return path


def test_a_one_shot_records_the_assessment_and_the_routed_call(
    tmp_path: Path, wisp_home: Path, run_wisp: RunWisp, audit_lines: AuditLines
) -> None:
    # The chooser's replies are to the routed task: a script keeps them apart.
    answer = {"text": '{"tools": ["current_date"], "intent": "the capital of France"}'}
    chooser = tmp_path / "chooser.json"
    chooser.write_text(json.dumps({"routed": {"assess": [answer]}}))
    conversation = write(tmp_path / "conversation.json", {"text": "Paris."})
    wisp_home.mkdir(mode=0o700)
    routing = {"tasks": {"assess": f"script:{chooser}"}}
    settings = {"assessment": {"enabled": True}, "routing": routing}
    (wisp_home / "config.json").write_text(json.dumps(settings))

    result = run_wisp("--yes", "-m", f"script:{conversation}", QUESTION)

    assert result.returncode == 0, result.stderr
    assert "Paris." in result.stdout
    lines = audit_lines()
    kinds = [line["kind"] for line in lines]
    assert kinds.index("prompt") < kinds.index("model.routed") < kinds.index("context.assessment")
    assert kinds.index("context.assessment") < kinds.index("response")
    (routed,) = [line["details"] for line in lines if line["kind"] == "model.routed"]
    assert routed == {
        "task": "assess",
        "inputBytes": routed["inputBytes"],
        "model": f"script:{chooser}",
        "reason": "routing.tasks.assess names it",
    }
    assert routed["inputBytes"] > len(QUESTION)
    (assessment,) = [line["details"] for line in lines if line["kind"] == "context.assessment"]
    assert assessment == {
        "method": "model",
        "tools": ["current_date"],
        "ruleTools": [],
        "registered": assessment["registered"],
        "taskChanged": False,
        "facts": [],
        "seconds": assessment["seconds"],
        "bytes": routed["inputBytes"],
        "model": f"script:{chooser}",
        "intent": "the capital of France",
        "think": False,  # a script model has a thinking switch; the call asks it not to think
    }
    assert {"read_file", "run_command", "current_date"} <= set(assessment["registered"])


def test_off_records_no_assessment(
    tmp_path: Path, wisp_home: Path, run_wisp: RunWisp, audit_lines: AuditLines
) -> None:
    conversation = write(tmp_path / "conversation.json", {"text": "Paris."})
    result = run_wisp("--yes", "-m", f"script:{conversation}", QUESTION)
    assert result.returncode == 0, result.stderr
    kinds = {line["kind"] for line in audit_lines()}
    assert "context.assessment" not in kinds and "model.routed" not in kinds
