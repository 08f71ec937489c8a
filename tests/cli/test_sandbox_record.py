"""``policy.decision`` records what the sandbox really applied to a model's command (wisp's own
fields: ``namespaces``, ``landlockAbi``, ``devpts``), through the real ``wisp --yes`` with a
``script:`` model: the helper's namespaces, Landlock alone, and none under ``--unsafe``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests import no_namespaces
from tests.hang import HANG
from wisp.sandbox.plan import probe


def decision_of_a_command(
    wisp: list[str], wisp_env: dict[str, str], tmp_path: Path, audit_lines, *flags: str
) -> dict:
    script = tmp_path / "s.json"
    call = {"tool_calls": [{"name": "run_command", "arguments": {"command": "true"}}]}
    script.write_text(json.dumps({"responses": [call, {"text": "done"}]}))
    done = subprocess.run(
        [*wisp, "--yes", *flags, "-m", f"script:{script}", "send"],
        env=wisp_env, cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return next(e["details"] for e in audit_lines() if e["kind"] == "policy.decision")


def test_with_the_namespace_the_decision_names_them_the_abi_and_a_private_devpts(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, audit_lines
) -> None:
    if probe().landlock_abi is None or not probe().namespace:
        pytest.skip("no Landlock, or no mount namespace here")
    decision = decision_of_a_command([str(wisp_script)], wisp_env, tmp_path, audit_lines)
    assert decision["sandbox"] is True
    assert {"mount", "pid"} <= set(decision["namespaces"])
    assert (decision["landlockAbi"], decision["devpts"]) == (probe().landlock_abi, "private")


def test_under_landlock_alone_the_decision_names_no_namespace_and_the_shared_devpts(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, audit_lines
) -> None:
    # As on a machine where no namespace can be made (bubblewrap cannot make one either): the
    # record must not claim one.
    if probe().landlock_abi is None:
        pytest.skip("this kernel has no Landlock")
    if not no_namespaces.supported():
        pytest.skip(no_namespaces.REASON_UNSUPPORTED)
    wisp = [*no_namespaces.launcher(), str(wisp_script)]
    decision = decision_of_a_command(wisp, wisp_env, tmp_path, audit_lines)
    assert decision["sandbox"] is True
    assert (decision["namespaces"], decision["devpts"]) == ([], "shared")
    assert decision["landlockAbi"] == probe().landlock_abi


def test_an_unconfined_command_claims_nothing_applied(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, audit_lines
) -> None:
    decision = decision_of_a_command(
        [str(wisp_script)], wisp_env, tmp_path, audit_lines, "--unsafe"
    )
    assert decision["sandbox"] is False
    assert not {"namespaces", "landlockAbi", "devpts"} & set(decision)
