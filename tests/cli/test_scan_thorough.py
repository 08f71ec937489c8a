"""``wisp scan --thorough`` and ``wisp redact --thorough`` as a user runs them: a model routed
for the task reads the text after the rules, each call recorded as ``model.routed``, the
session's events saying the pass ran and how many chunks failed (docs/scan.md, "The thorough
pass")."""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path

import pytest

from wisp.scan.thorough import CHUNK_CHARACTERS

AWS_KEY = "AKIA" + "2E0A8F3B244C9986"
NOTES = (
    "Meeting notes, 3 March.\n"
    "Call Margaret Okonkwo about the lease; her door code is 4471-blue-heron.\n"
    f"The deploy key is {AWS_KEY}.\n"
)


def answer(*findings: tuple[str, str]) -> dict:
    """A routed reply of the replay backend naming ``findings`` (kind, value)."""
    named = [{"kind": kind, "value": value} for kind, value in findings]
    return {"text": json.dumps({"findings": named})}


def routed_to(wisp_home: Path, tmp_path: Path, task: str, replies: list[dict]) -> None:
    """``routing.tasks.<task>`` set to a replay model answering ``replies`` in order."""
    script = tmp_path / "routed.json"
    script.write_text(json.dumps({"responses": [], "routed": {task: replies}}))
    wisp_home.mkdir(parents=True, exist_ok=True)
    config = {"routing": {"tasks": {task: f"script:{script}"}}}
    (wisp_home / "config.json").write_text(json.dumps(config))


def events(audit_lines, kind: str) -> list[dict]:
    return [line["details"] for line in audit_lines() if line["kind"] == kind]


def test_the_model_adds_what_the_rules_missed_and_only_what_is_there(
    run_wisp, wisp_home: Path, tmp_path: Path, audit_lines
) -> None:
    routed_to(wisp_home, tmp_path, "scan", [
        answer(
            ("name", "Margaret Okonkwo"),
            ("password", "4471-blue-heron"),
            ("secret", "a value the text does not hold"),  # invented: nothing found
            ("password", "your-password"),  # a placeholder: nothing found
        )
    ])  # fmt: skip
    (tmp_path / "notes.txt").write_text(NOTES)
    scanned = run_wisp("scan", "--thorough", "notes.txt", cwd=tmp_path)
    assert scanned.returncode == 1, scanned.stderr
    assert scanned.stdout.splitlines() == [
        "notes.txt:2:6: name  Marg…",
        "notes.txt:2:57: password  4471…",
        "notes.txt:3:19: aws-access-key  AKIA…",
    ]
    (routed,) = events(audit_lines, "model.routed")
    assert routed["task"] == "scan" and routed["model"].startswith("script:")
    assert routed["reason"] == "routing.tasks.scan names it"
    (scan,) = events(audit_lines, "secrets.scan")
    assert scan["thorough"] is True and scan["failedChunks"] == 0
    assert scan["kinds"] == {"name": 1, "password": 1, "aws-access-key": 1}


def test_redact_takes_out_what_the_model_found_too(
    run_wisp, wisp_home: Path, tmp_path: Path, audit_lines
) -> None:
    routed_to(wisp_home, tmp_path, "redact", [answer(("name", "Margaret Okonkwo"))])
    redacted = run_wisp("redact", "--thorough", "-", input=NOTES)
    assert redacted.returncode == 1, redacted.stderr
    assert redacted.stdout == NOTES.replace("Margaret Okonkwo", "[REDACTED:name]").replace(
        AWS_KEY, "[REDACTED:aws-access-key]"
    )
    (redaction,) = events(audit_lines, "redaction")
    assert redaction["thorough"] is True
    assert redaction["replaced"] == {"name": 1, "aws-access-key": 1}
    assert [r["task"] for r in events(audit_lines, "model.routed")] == ["redact"]


def test_a_model_failing_every_chunk_leaves_them_counted_and_the_rules_findings(
    run_wisp, wisp_home: Path, tmp_path: Path, audit_lines
) -> None:
    # Two chunks; each fails twice, once with an error and once with no JSON at all.
    failing = [{"error": "the server went away"}, {"text": "I cannot help with that."}] * 2
    routed_to(wisp_home, tmp_path, "scan", failing)
    filler = "A line of plain words about nothing in particular.\n"
    text = NOTES + filler * (CHUNK_CHARACTERS // len(filler) + 1)
    scanned = run_wisp("scan", "--thorough", "--json", "-", input=text)
    assert scanned.returncode == 1, scanned.stderr
    assert [json.loads(line)["kind"] for line in scanned.stdout.splitlines()] == ["aws-access-key"]
    (scan,) = events(audit_lines, "secrets.scan")
    assert scan["thorough"] is True and scan["failedChunks"] == 2
    assert len(events(audit_lines, "model.routed")) == 4


def test_a_model_named_for_the_task_that_cannot_load_fails_every_chunk(
    run_wisp, wisp_home: Path, tmp_path: Path, audit_lines
) -> None:
    wisp_home.mkdir(parents=True)
    missing = tmp_path / "absent.json"
    (wisp_home / "config.json").write_text(
        json.dumps({"routing": {"tasks": {"scan": f"script:{missing}"}}})
    )
    scanned = run_wisp("scan", "--thorough", "-", input=NOTES)
    assert scanned.returncode == 1, scanned.stderr
    assert "aws-access-key" in scanned.stdout
    (scan,) = events(audit_lines, "secrets.scan")
    assert scan["failedChunks"] == 1


@pytest.mark.skipif(find_spec("llama_cpp") is None, reason="needs the local extra")
def test_thorough_on_the_embedded_model_for_real(run_wisp, audit_lines) -> None:
    scanned = run_wisp("scan", "--thorough", "--json", "-", input=NOTES)
    assert scanned.returncode == 1, scanned.stderr
    kinds = [json.loads(line)["kind"] for line in scanned.stdout.splitlines()]
    assert "aws-access-key" in kinds  # the rules' finding, whatever the model adds
    (routed,) = events(audit_lines, "model.routed")
    assert routed["task"] == "scan" and routed["model"] == "local"
    (scan,) = events(audit_lines, "secrets.scan")
    assert scan["thorough"] is True and scan["findings"] == len(kinds)
    assert scan["failedChunks"] in (0, 1)
