"""The classifier's second opinion at the gate (docs/policy.md, "The classifier"): only for the
commands the rules do not know; it raises, it lowers only with mayLower and never a command
whose program is computed; it never touches a rule's verdict or the deny list.

Each line goes the real path: the deny list, the rules, the judge, the gate (nobody to ask, so
a line rated moderate or above is refused and a safe one runs), the sandbox.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from wisp.audit.kinds import ClassifierVerdict
from wisp.policy.approvals import ApprovalStore
from wisp.policy.approvers import NobodyApprover
from wisp.policy.classifier.opinion import Opinion, SecondOpinion
from wisp.policy.gate import ApprovalGate
from wisp.policy.patterns import CommandPatterns
from wisp.policy.types import Level, SimpleCommand
from wisp.sandbox.plan import probe_uncached
from wisp.sandbox.writable import WritableSet
from wisp.tools.command_runner import CommandRunner, CommandSettings, Ran, Refused


class FixedJudge:
    """A judge that says one thing of every command, and keeps what it was asked."""

    source = "trained"

    def __init__(self, label: Level | None, confidence: float | None = 0.97) -> None:
        self.label = label
        self.confidence = confidence
        self.asked: list[str] = []

    async def judge(self, command: SimpleCommand, directory: Path, side_calls: Any) -> Opinion:
        self.asked.append(command.text)
        if self.label is None:
            failure = "no usable model"
            return Opinion(self.source, None, {"trained.fallback": failure}, failure=failure)
        metadata = {"trained.label": self.label, "trained.confidence": self.confidence}
        return Opinion(self.source, self.label, metadata, self.confidence)


class Line:
    """One line through a runner whose second opinion is ``judge``."""

    def __init__(self, tmp_path: Path, judge: FixedJudge, *, may_lower: bool) -> None:
        self.events: list[Any] = []
        self.tmp_path = tmp_path
        gate = ApprovalGate(
            "moderate", NobodyApprover(), ApprovalStore(tmp_path / "approvals.json"),
            record=self.record,
        )  # fmt: skip
        self.runner = CommandRunner(
            patterns=CommandPatterns.compile(),
            gate=gate,
            writable=WritableSet.build(
                working_directory=tmp_path, home=tmp_path / "home", environ=os.environ
            ),
            support=probe_uncached(),
            settings=CommandSettings(),
            environ=os.environ,
            opinion=SecondOpinion(judge, may_lower=may_lower),
        )

    def record(self, event: Any) -> str:
        self.events.append(event)
        return "e1"

    async def run(self, line: str) -> Ran | Refused:
        return await self.runner.run_for_model(
            line, self.tmp_path, timeout=None, turn=1, record=self.record
        )

    def verdicts(self) -> list[ClassifierVerdict]:
        return [e for e in self.events if isinstance(e, ClassifierVerdict)]


async def test_a_command_the_rules_do_not_know_is_raised_to_dangerous(tmp_path: Path) -> None:
    line = Line(tmp_path, FixedJudge("dangerous"), may_lower=False)
    outcome = await line.run("seq 3")
    assert isinstance(outcome, Refused) and outcome.verdict == "disapproved"
    [verdict] = line.verdicts()
    assert verdict.level == "dangerous"
    assert verdict.sources == ["rules", "trained"]
    assert verdict.reasons[0] == "the trained classifier rates it dangerous (97% sure)"


async def test_without_may_lower_a_safe_opinion_leaves_it_moderate_and_says_why(
    tmp_path: Path,
) -> None:
    line = Line(tmp_path, FixedJudge("safe"), may_lower=False)
    outcome = await line.run("seq 3")
    assert isinstance(outcome, Refused)
    [verdict] = line.verdicts()
    assert verdict.level == "moderate"
    assert verdict.reasons == [
        "the trained classifier rates it safe (97% sure), but "
        "commandPolicy.classifier.mayLower is off",
        "no rule covers this command",
    ]


async def test_with_may_lower_a_safe_opinion_lets_it_run_without_asking(tmp_path: Path) -> None:
    line = Line(tmp_path, FixedJudge("safe"), may_lower=True)
    outcome = await line.run("seq 3")
    assert isinstance(outcome, Ran) and outcome.result.stdout == "1\n2\n3\n"
    [verdict] = line.verdicts()
    assert verdict.level == "safe"
    assert verdict.metadata == {"trained.label": "safe", "trained.confidence": 0.97}


async def test_a_models_safe_never_lowers_even_with_may_lower(tmp_path: Path) -> None:
    # With `mode: model` the model asked may be the conversation's own, steered by a file it
    # read into calling its command safe.
    judge = FixedJudge("safe", confidence=None)
    judge.source = "model"
    line = Line(tmp_path, judge, may_lower=True)
    assert isinstance(await line.run("seq 3"), Refused)
    [verdict] = line.verdicts()
    assert verdict.level == "moderate"
    assert verdict.reasons[0].endswith("it may be the model that asked")


async def test_a_safe_opinion_it_is_not_sure_enough_of_never_lowers(tmp_path: Path) -> None:
    line = Line(tmp_path, FixedJudge("safe", confidence=0.6), may_lower=True)
    assert isinstance(await line.run("seq 3"), Refused)
    assert line.verdicts()[0].level == "moderate"


async def test_a_program_whose_folder_is_computed_is_never_lowered(tmp_path: Path) -> None:
    line = Line(tmp_path, FixedJudge("safe"), may_lower=True)
    outcome = await line.run('"$VENV/bin/seq" 3')
    assert isinstance(outcome, Refused)
    [verdict] = line.verdicts()
    assert verdict.level == "moderate"
    assert verdict.reasons[0].endswith("but its program is only known when the line runs")


@pytest.mark.parametrize(
    ("command", "level"),
    [
        ("rm -rf build", "dangerous"),  # a rule's dangerous
        ("ls -la", "safe"),  # a known-safe form
        ("$PROGRAM 3", "dangerous"),  # unreadable
        ("git push origin main", "moderate"),  # a rule's own moderate
    ],
)
async def test_a_command_the_rules_rate_themselves_is_never_judged(
    tmp_path: Path, command: str, level: str
) -> None:
    judge = FixedJudge("safe")
    line = Line(tmp_path, judge, may_lower=True)
    await line.run(command)
    assert judge.asked == []
    assert [v.level for v in line.verdicts()] == [level]
    assert line.verdicts()[0].sources == ["rules"]


async def test_the_deny_list_refuses_before_any_classifier_is_asked(tmp_path: Path) -> None:
    judge = FixedJudge("safe")
    line = Line(tmp_path, judge, may_lower=True)
    outcome = await line.run("mke2fs -t ext4 /dev/sdb1")
    assert isinstance(outcome, Refused) and outcome.verdict == "denied"
    assert judge.asked == [] and line.verdicts() == []


async def test_a_dangerous_opinion_asks_and_never_denies(tmp_path: Path) -> None:
    line = Line(tmp_path, FixedJudge("dangerous"), may_lower=False)
    outcome = await line.run("seq 3")
    assert isinstance(outcome, Refused)
    assert outcome.message.startswith("error: command not approved")


async def test_only_the_unknown_parts_of_a_line_are_judged_each_once(tmp_path: Path) -> None:
    judge = FixedJudge("safe")
    line = Line(tmp_path, judge, may_lower=True)
    outcome = await line.run("seq 2; ls; seq 2")
    assert isinstance(outcome, Ran)
    assert judge.asked == ["seq 2"]
    assert sorted(v.level for v in line.verdicts()) == ["safe", "safe"]


async def test_a_judge_with_no_verdict_leaves_the_rules_moderate_with_its_reason(
    tmp_path: Path,
) -> None:
    line = Line(tmp_path, FixedJudge(None), may_lower=True)
    assert isinstance(await line.run("seq 3"), Refused)
    [verdict] = line.verdicts()
    assert verdict.level == "moderate"
    assert verdict.metadata == {"trained.fallback": "no usable model"}
    assert verdict.reasons == [
        "no rule covers this command, and the trained classifier could not judge it: "
        "no usable model"
    ]
