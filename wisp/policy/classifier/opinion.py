"""A second opinion on the commands the rules do not know (docs/policy.md, "The classifier").

The rules rate a command no rule covers and no known-safe form fits a flat ``moderate`` ("not in
the rules"). A judge (the trained model, ``trained_judge.TrainedJudge``; or the conversation's
model, ``model_judge.ModelJudge``) rates those commands again, and ``combined`` decides what its
word changes:

* it may raise the level: ``dangerous`` stands whatever else is set;
* it lowers ``moderate`` to ``safe`` only with ``commandPolicy.classifier.mayLower`` on, only
  when sure enough (``LOWER_CONFIDENCE``, for a judge that says how sure it is), and never for a
  command whose program is only known when the line runs (its folder computed, or none);
* it never sees a command the rules rated themselves (a rule's ``dangerous``, a known-safe
  form, an unreadable command), and the deny list has refused what it refuses before the rules
  are asked.

A judge that cannot give a verdict (no usable model, a failed call) leaves the rules' verdict,
saying why in the metadata (``trained.fallback``, ``classifier.failure``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import msgspec

from wisp.policy.rules import NO_RULE_REASON
from wisp.policy.types import Assessment, Level, SimpleCommand

__all__ = [
    "LOWER_CONFIDENCE",
    "Judge",
    "Opinion",
    "Reviewed",
    "SecondOpinion",
    "combined",
    "is_not_in_the_rules",
]

LOWER_CONFIDENCE = 0.8
"""How sure the trained model must be of ``safe`` to lower a command (with ``mayLower``)."""
NOT_IN_THE_RULES = "no rule covers this command"


class Opinion(msgspec.Struct, frozen=True):
    """What a judge says of one command: a label, or why it has none."""

    source: str
    """``trained`` or ``model``: the name the verdict's ``sources`` gives it."""
    label: Level | None
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    confidence: float | None = None
    """From 0 to 1, for a judge that says; None for one that does not (a model's answer)."""
    explanation: str | None = None
    """The judge's own words for its label (a model's ``reason``)."""
    failure: str | None = None
    """Why there is no label."""


class Judge(Protocol):
    """Rates one command the rules do not know."""

    source: str

    async def judge(self, command: SimpleCommand, directory: Path, side_calls: Any) -> Opinion:
        """``side_calls`` are the conversation's (``wisp.agent.side_calls.SideCalls``), for a
        judge that asks a model; None where there are none."""
        ...


class Reviewed(msgspec.Struct, frozen=True):
    """A line's verdicts after the second opinion, and how long each part's took."""

    assessments: list[Assessment]
    seconds: list[float]


class SecondOpinion:
    """The configured judge, and whether it may lower: one per runner."""

    def __init__(self, judge: Judge, *, may_lower: bool) -> None:
        self.judge = judge
        self.may_lower = may_lower

    async def review(
        self,
        parts: Sequence[SimpleCommand],
        assessments: Sequence[Assessment],
        directory: Path,
        *,
        side_calls: Any = None,
    ) -> Reviewed:
        """Each part the rules rated "not in the rules" rated again, a part repeated word for
        word once; the others as they were (0 seconds)."""
        judged: dict[SimpleCommand, tuple[Assessment, float]] = {}
        reviewed: list[Assessment] = []
        seconds: list[float] = []
        for part, assessment in zip(parts, assessments, strict=True):
            if not is_not_in_the_rules(assessment):
                reviewed.append(assessment)
                seconds.append(0.0)
                continue
            if part not in judged:
                started = time.perf_counter()
                opinion = await self.judge.judge(part, directory, side_calls)
                verdict = combined(assessment, opinion, part, may_lower=self.may_lower)
                judged[part] = verdict, time.perf_counter() - started
            verdict, took = judged[part]
            reviewed.append(verdict)
            seconds.append(took)
        return Reviewed(reviewed, seconds)


def is_not_in_the_rules(assessment: Assessment) -> bool:
    """The rules' flat ``moderate`` for a command they do not know, and nothing else."""
    return assessment.level == "moderate" and assessment.reasons == [NO_RULE_REASON]


def combined(
    rules: Assessment, opinion: Opinion, command: SimpleCommand, *, may_lower: bool
) -> Assessment:
    """The verdict on a command the rules do not know, with ``opinion`` heard."""
    sources = [*rules.sources, opinion.source]
    metadata = {**rules.metadata, **opinion.metadata}
    if opinion.label is None:
        why = f"{NOT_IN_THE_RULES}, and the {opinion.source} classifier could not judge it"
        return Assessment("moderate", [f"{why}: {opinion.failure}"], sources, metadata)
    said = _said(opinion)
    if opinion.label == "safe":
        refusal = _why_not_lowered(opinion, command, may_lower=may_lower)
        if refusal is None:
            reason = f"{said}; commandPolicy.classifier.mayLower lets it lower the rules' moderate"
            return Assessment("safe", [reason], sources, metadata)
        reasons = [f"{said}, but {refusal}", NOT_IN_THE_RULES]
        return Assessment("moderate", reasons, sources, metadata)
    return Assessment(opinion.label, [said, NOT_IN_THE_RULES], sources, metadata)


def _said(opinion: Opinion) -> str:
    said = f"the {opinion.source} classifier rates it {opinion.label}"
    if opinion.confidence is not None:
        said += f" ({opinion.confidence:.0%} sure)"
    if opinion.explanation:
        said += f": {opinion.explanation}"
    return said


def _why_not_lowered(opinion: Opinion, command: SimpleCommand, *, may_lower: bool) -> str | None:
    if not may_lower:
        return "commandPolicy.classifier.mayLower is off"
    if opinion.source == "model":
        # The model asked may be the one whose command it is, steered by what it read.
        return "a model's word never lowers a level: it may be the model that asked"
    if not command.readable or command.executable is None or command.has_computed_folder:
        return "its program is only known when the line runs"
    if opinion.confidence is not None and opinion.confidence < LOWER_CONFIDENCE:
        return f"lowering needs it {LOWER_CONFIDENCE:.0%} sure"
    return None
