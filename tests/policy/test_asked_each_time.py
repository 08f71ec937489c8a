"""A request asked each time (docs/policy.md, "Requests asked each time"): the model's request to
change its models is put to the person whatever the threshold, holds once, is remembered nowhere,
is never approved by ``--yes``, and its approval has an id of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.policy.test_gate import PROJECT, Clock, Harness, ScriptedApprover, question, terminal
from wisp.policy.approvers import YesApprover
from wisp.policy.gate import GateResult
from wisp.policy.types import ASKED_EACH_TIME, ONLY_PERSON, Assessment, SimpleCommand

PULL = "models pull hf:acme/Tiny-GGUF/tiny-Q4_K_M.gguf"


@pytest.fixture
def harness(wisp_home: Path) -> Harness:
    return Harness(wisp_home, Clock())


def request() -> tuple[SimpleCommand, Assessment]:
    part = SimpleCommand(PULL, None, None, PULL)
    metadata = {ASKED_EACH_TIME: "the model's request", ONLY_PERSON: "the person's to approve"}
    return part, Assessment("dangerous", ["downloads a file"], ["models"], metadata)


async def ask(harness: Harness, approver: object, *, threshold: str = "never") -> GateResult:
    part, assessment = request()
    gate = harness.gate(approver, threshold=threshold)
    return await gate.authorize(PULL, [part], [assessment], PROJECT, turn=1)


async def test_it_is_asked_whatever_the_threshold_and_its_approval_has_an_id(
    harness: Harness,
) -> None:
    approver = ScriptedApprover("always")

    result = await ask(harness, approver)

    assert [q.command for q in approver.questions] == [PULL]
    assert approver.questions[0].once_only
    [decided] = harness.details("approval.decided")
    assert (decided.decision, decided.scope, decided.downgraded_from) == (
        "approved",
        "once",
        "always",
    )
    assert decided.approval_id is not None
    assert result == GateResult(approved=True, approval_id=decided.approval_id)


async def test_an_approval_covers_that_request_alone(harness: Harness) -> None:
    approver = ScriptedApprover("session", "once")
    part, assessment = request()
    gate = harness.gate(approver, threshold="dangerous")

    first = await gate.authorize(PULL, [part], [assessment], PROJECT, turn=1)
    second = await gate.authorize(PULL, [part], [assessment], PROJECT, turn=1)

    assert len(approver.questions) == 2  # asked again in the same turn
    assert first.approval_id != second.approval_id
    assert harness.decisions() == ["approved", "approved"]


async def test_yes_never_approves_it_for_the_person(harness: Harness) -> None:
    result = await ask(harness, YesApprover())

    assert not result.approved
    assert result.reason == "the person's to approve"
    [decided] = harness.details("approval.decided")
    assert (decided.decision, decided.approval_id) == ("denied", None)


async def test_the_terminal_offers_once_or_no() -> None:
    approver, output = terminal("y")

    await approver.ask(question(once_only=True), None)

    assert output.getvalue().endswith("  [y]once  [n]o › ")
