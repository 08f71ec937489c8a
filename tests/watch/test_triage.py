"""Triage as a person sees it: a failed run's output read by a routed model, its words under the
run's line, the distinct problems counted in ``watch.run``'s ``findings``; not read again while
the output stays the same; a model that fails leaves the run's line standing (docs/watch.md,
"Triage")."""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path

import pytest

from tests.watch.conftest import events, routed_to

FAILING = "echo 'app.py:3: NameError: name x is not defined' >&2\nexit 1\n"


def answer(*problems: tuple[str, str]) -> dict:
    """A routed reply of the replay backend naming ``problems`` (where, what)."""
    named = [{"where": where, "what": what} for where, what in problems]
    return {"text": json.dumps({"problems": named})}


@pytest.fixture
def failing(tree: Path) -> Path:
    (tree / "fail.sh").write_text(FAILING)
    return tree / "fail.sh"


async def test_the_model_s_reading_is_shown_under_the_run_and_counted(
    start_watch, wisp_home: Path, tmp_path: Path, tree: Path, put, failing: Path, audit_lines
) -> None:
    routed_to(wisp_home, tmp_path / "routed.json", [
        answer(
            ("app.py:3", "name x is not defined"),
            ("app.py:3", "name   x is not defined"),  # the same problem: counted once
            ("nowhere.py:9", "a place the output never names"),  # kept, without the place
        )
    ])  # fmt: skip
    watching = await start_watch("--", "sh", "fail.sh")
    first = await watching.run()
    assert first.verdict == "fail (exit 1)"
    await watching.until("a place the output never names")
    assert first.under == [
        "app.py:3: NameError: name x is not defined",
        f"triage (script:{tmp_path / 'routed.json'}): 2 problems",
        "  app.py:3: name x is not defined",
        "  a place the output never names",
    ]
    put(tree / "notes.txt", "a change that leaves the failure as it was")
    second = await watching.run()
    await watching.until("triage: ")
    assert second.under[-1] == "triage: the same output as run 1's, read there"
    await watching.stop()
    (routed,) = events(audit_lines, "model.routed")  # the same output is not read again
    assert (routed["task"], routed["reason"]) == ("triage", "routing.tasks.triage names it")
    runs = events(audit_lines, "watch.run")
    assert [(r["findings"], r["triageError"]) for r in runs] == [(2, None), (None, None)]


async def test_a_model_that_fails_leaves_its_error_and_the_run_s_line(
    start_watch, wisp_home: Path, tmp_path: Path, failing: Path, audit_lines
) -> None:
    wisp_home.mkdir(parents=True)
    config = {"routing": {"tasks": {"triage": f"script:{tmp_path / 'absent.json'}"}}}
    (wisp_home / "config.json").write_text(json.dumps(config))
    watching = await start_watch("--", "sh", "fail.sh")
    first = await watching.run()
    assert first.verdict == "fail (exit 1)"
    failed = await watching.until("triage")
    assert failed.startswith("triage failed: ") and "absent.json" in failed
    await watching.stop()
    (run,) = events(audit_lines, "watch.run")
    assert run["findings"] is None and "absent.json" in run["triageError"]
    assert run["state"] == "fail" and run["exitStatus"] == 1


@pytest.mark.skipif(find_spec("llama_cpp") is None, reason="needs the local extra")
async def test_triage_on_the_embedded_model_for_real(
    start_watch, failing: Path, audit_lines
) -> None:
    watching = await start_watch("--", "sh", "fail.sh")
    await watching.run()
    verdict = await watching.until("triage")
    await watching.stop()
    assert verdict.startswith("triage (local): "), verdict
    (routed,) = events(audit_lines, "model.routed")
    assert (routed["task"], routed["model"]) == ("triage", "local")
    (run,) = events(audit_lines, "watch.run")
    assert run["triageError"] is None and isinstance(run["findings"], int)
    assert verdict.endswith(f"{run['findings']} problem{'' if run['findings'] == 1 else 's'}")


async def test_m_names_the_model_for_one_watch_over_the_setting(
    start_watch, wisp_home: Path, tmp_path: Path, failing: Path, audit_lines
) -> None:
    routed_to(wisp_home, tmp_path / "configured.json", [answer(("", "from the setting"))])
    named = tmp_path / "named.json"
    named.write_text(json.dumps({"responses": [], "routed": {"triage": [answer(("", "named"))]}}))
    watching = await start_watch("-m", f"script:{named}", "--", "sh", "fail.sh")
    await watching.run()
    await watching.until("  named")
    await watching.stop()
    (routed,) = events(audit_lines, "model.routed")
    assert routed["task"] == "triage" and routed["model"] == f"script:{named}"
    assert routed["reason"] == f"wisp watch -m script:{named} names it"
