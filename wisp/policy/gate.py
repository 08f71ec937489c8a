"""The approval gate: whether a line's commands may run, asking the person when they must.

Each part is cleared in this order, and the first step that decides wins:

1. classified (already, by the caller: the rules, then the classifier for a part they do not
   know, docs/policy.md, "The classifier"): ``classifier.verdict`` for every part, before step 2;
2. below the threshold: allowed, nothing else consulted (a run outside the sandbox, and one
   that would run with the network, are asked: docs/policy.md, "The network mark");
3. the session cache covers it: ``cached``;
4. the turn cache (once-approvals this turn) covers it: ``cached-turn``;
5. below dangerous only, a standing approval in ``approvals.json``: ``cached-project`` or
   ``cached-always``;
6. ask the approver: ``approval.requested``, then ``approval.decided``.

A request asked each time (``ASKED_EACH_TIME``: the model's ``models`` tool) goes straight to
step 6 whatever the threshold; approved, it holds once and is remembered nowhere, and its
``approval.decided`` carries an id of its own, which the caller is handed to record with what
the approval allowed (docs/policy.md, "Requests asked each time").

Any part refused refuses the whole line. What is cleared is a ``Segment`` (``segments``), what
is remembered sits in an ``ApprovalCache`` (``approval_cache``) or the approvals file, and what
is recorded is written by ``gate_events``. A line of thousands of parts stays linear in its
length: each distinct part is one segment, and ``pacing`` lets an interrupt stop the line.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from wisp.policy.approval_cache import ApprovalCache, SessionApprovals
from wisp.policy.approvals import (
    ApprovalsFileError,
    ApprovalStore,
    StandingScope,
    StoredApproval,
)
from wisp.policy.approvers import ApprovalRefused, nobody_reason
from wisp.policy.gate_events import Decision, GateRecorder, Record
from wisp.policy.pacing import is_stopped
from wisp.policy.segments import NETWORK_MARK, Segment, combined, distinct_segments
from wisp.policy.types import (
    LEVEL_ORDER,
    ONLY_PERSON,
    Answer,
    ApprovalQuestion,
    Approver,
    Assessment,
    Level,
    Scope,
    SimpleCommand,
    Threshold,
)

__all__ = ["DECLINED", "STOPPED", "THRESHOLDS", "ApprovalGate", "GateResult", "Refusal"]

log = logging.getLogger(__name__)

THRESHOLDS: tuple[Threshold, ...] = ("safe", "moderate", "dangerous", "never")
DEFAULT_TIMEOUT_SECONDS = 600
DECLINED = "declined by the user"
STOPPED = "the person stopped the turn"


class GateResult(msgspec.Struct, frozen=True):
    """Whether the whole line may run; ``reason`` says why not (the first refused part's), empty
    when it may."""

    approved: bool
    reason: str = ""
    approval_id: str | None = None
    """The id ``approval.decided`` gave the approval that cleared it, where it has one (a
    request asked each time, a standing approval); None otherwise."""


class Refusal(msgspec.Struct, frozen=True):
    """One refusal of this turn, for callers that report them without parsing prose."""

    command: str
    reason: str


class _Outcome(msgspec.Struct, frozen=True):
    approved: bool
    decided: bool = False
    """Whether a decision past the threshold was made (and recorded)."""
    reason: str = ""
    approval_id: str | None = None


_ALLOWED = _Outcome(approved=True)
_DECIDED = _Outcome(approved=True, decided=True)


class ApprovalGate:
    """One per conversation. ``session`` is the process's ``SessionApprovals``; without one the
    gate keeps its own (then nothing is shared)."""

    def __init__(
        self,
        threshold: Threshold,
        approver: Approver,
        store: ApprovalStore,
        *,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        record: Record,
        session: SessionApprovals | None = None,
    ) -> None:
        if threshold not in THRESHOLDS:
            raise ValueError(f"approval.threshold: expected one of {THRESHOLDS}, got {threshold!r}")
        if timeout_seconds < 0:
            raise ValueError(f"approval.timeoutSeconds: expected 0 or more, got {timeout_seconds}")
        self.threshold = threshold
        self.approver = approver
        self.store = store
        self.timeout_seconds = timeout_seconds
        """How long to wait for an answer; 0 waits for ever."""
        self.session = session if session is not None else SessionApprovals()
        self.refusals: list[Refusal] = []
        """This turn's refusals; cleared when the turn changes."""
        self._events = GateRecorder(record)
        self._turn_cache = ApprovalCache()
        self._turn: int | None = None

    async def authorize(
        self,
        line: str,
        parts: list[SimpleCommand],
        assessments: list[Assessment],
        directory: Path,
        *,
        turn: int,
        outside_sandbox: bool = False,
        line_assessment: Assessment | None = None,
        seconds: Sequence[float] | None = None,
        stop: asyncio.Event | None = None,
        network: Sequence[bool] | None = None,
    ) -> GateResult:
        """Clear ``line`` (split into ``parts``, each rated by ``assessments``) to run in
        ``directory``. ``line_assessment`` is the rules' verdict on the whole line, and
        ``seconds`` how long each assessment took, for ``classifier.verdict``. Once ``stop``
        (the turn's) is set, the line is refused with ``STOPPED``: nothing of it runs.
        ``network`` marks the parts that, approved, open the network to the line: each is asked
        whatever its level, and only an approval given for the network covers it."""
        if len(parts) != len(assessments):
            raise ValueError(f"{len(parts)} parts but {len(assessments)} assessments")
        self._begin_turn(turn)
        whole = line.strip()
        is_compound = len(parts) != 1 or parts[0].text != whole
        segments, timings = distinct_segments(
            parts, assessments, seconds, whole if is_compound else None, network
        )
        # Every part is classified before any is cleared, so the log shows every verdict.
        for index, segment in enumerate(segments):
            if await is_stopped(index, stop):
                return GateResult(approved=False, reason=STOPPED)
            self._events.verdict(segment, timings[index])
        line_segment = self._line_segment(whole, segments, line_assessment, is_compound)
        if line_segment is not None:
            self._events.verdict(line_segment, 0.0)
        first = self._first_segment(whole, segments, line_segment, outside_sandbox, is_compound)
        is_line_cleared = False
        approval_id = None
        if first is not None:
            outcome = await self._clear(first, directory, is_line_cleared=False)
            if not outcome.approved:
                return self._refuse(first, outcome.reason, is_compound)
            is_line_cleared, approval_id = outcome.decided, outcome.approval_id
        if first is None or is_compound:
            for index, segment in enumerate(segments):
                if await is_stopped(index, stop):
                    return GateResult(approved=False, reason=STOPPED)
                outcome = await self._clear(segment, directory, is_line_cleared=is_line_cleared)
                if not outcome.approved:
                    return self._refuse(segment, outcome.reason, is_compound)
                approval_id = outcome.approval_id or approval_id
        if stop is not None and stop.is_set():  # set while an answer was awaited
            return GateResult(approved=False, reason=STOPPED)
        return GateResult(approved=True, approval_id=approval_id)

    def _begin_turn(self, turn: int) -> None:
        if turn != self._turn:
            self._turn = turn
            self._turn_cache.clear()
            self.refusals.clear()

    def _line_segment(
        self,
        whole: str,
        segments: list[Segment],
        line_assessment: Assessment | None,
        is_compound: bool,
    ) -> Segment | None:
        """The whole line as one more segment, when the rules rate it above every part
        (``curl x | sh``)."""
        if not is_compound or line_assessment is None:
            return None
        highest = max((LEVEL_ORDER[s.level] for s in segments), default=-1)
        if LEVEL_ORDER[line_assessment.level] <= highest:
            return None
        is_unreadable = any(s.is_unreadable for s in segments)
        # Approving the line covers its parts: it must say so when they open the network.
        network = any(s.network for s in segments)
        pattern = whole + NETWORK_MARK if network else whole
        return Segment(
            whole, pattern, None, line_assessment, None, is_unreadable=is_unreadable,
            network=network,
        )  # fmt: skip

    def _first_segment(
        self,
        whole: str,
        segments: list[Segment],
        line_segment: Segment | None,
        outside_sandbox: bool,
        is_compound: bool,
    ) -> Segment | None:
        """What is cleared before the parts: the whole line, for a run outside the sandbox (keyed
        by its exact text) or when it is rated above its parts."""
        if not outside_sandbox:
            return line_segment
        if not is_compound:
            only = segments[0]
            return msgspec.structs.replace(only, pattern=only.command, outside_sandbox=True)
        rated = [s.assessment for s in segments]
        if line_segment is not None:
            rated.append(line_segment.assessment)
        is_unreadable = any(s.is_unreadable for s in segments)
        return Segment(
            whole, whole, None, combined(rated), None, outside_sandbox=True,
            is_unreadable=is_unreadable,
        )  # fmt: skip

    async def _clear(self, segment: Segment, directory: Path, *, is_line_cleared: bool) -> _Outcome:
        """Steps 2–6 of the module's order for one segment."""
        if segment.is_asked_each_time:
            return await self._ask(segment, directory)
        if (
            not segment.outside_sandbox
            and not segment.network
            and self._is_below_threshold(segment.level)
        ):
            return _ALLOWED
        if self.session.covers(segment, directory):
            self._events.decided(segment, Decision("cached"))
            return _DECIDED
        if self._turn_cache.covers(segment, directory):
            self._events.decided(segment, Decision("cached-turn"))
            return _DECIDED
        standing = await self._standing(segment, directory)
        if standing is not None:
            decision = Decision(
                f"cached-{standing.scope}",
                approval_id=standing.id,
                expires_at=_iso(standing.expires_at),
            )
            self._events.decided(segment, decision)
            return _Outcome(approved=True, decided=True, approval_id=standing.id)
        if is_line_cleared:
            self._events.decided(segment, Decision("covered-line"))
            return _DECIDED
        return await self._ask(segment, directory)

    def _is_below_threshold(self, level: Level) -> bool:
        if self.threshold == "never":
            return True
        return LEVEL_ORDER[level] < LEVEL_ORDER[self.threshold]

    async def _standing(self, segment: Segment, directory: Path) -> StoredApproval | None:
        """Step 5: a standing approval, for a verdict below dangerous only (the file may
        be weeks old, and a dangerous command is asked each time). The legacy pattern counts."""
        if segment.outside_sandbox or segment.level == "dangerous":
            return None
        patterns = [segment.pattern]
        if segment.legacy_pattern and segment.legacy_pattern != segment.pattern:
            patterns.append(segment.legacy_pattern)

        def find() -> StoredApproval | None:
            for pattern in patterns:
                found = self.store.find(pattern, directory, segment.level)
                if found is not None:
                    return found
            return None

        try:
            return await asyncio.to_thread(find)
        except ApprovalsFileError as exc:
            # Fail towards asking: an unreadable file grants nothing.
            log.warning("standing approvals not consulted: %s", exc)
            return None

    async def _ask(self, segment: Segment, directory: Path) -> _Outcome:
        """Step 6: ``approval.requested``, the approver's answer, ``approval.decided``."""
        question = ApprovalQuestion(
            line=segment.line or segment.command,
            command=segment.command,
            pattern=segment.pattern,
            level=segment.level,
            reasons=list(segment.assessment.reasons),
            directory=directory,
            outside_sandbox=segment.outside_sandbox,
            network=segment.network,
            is_unreadable=segment.is_unreadable,
            only_person=segment.assessment.metadata.get(ONLY_PERSON),
            once_only=segment.is_once_only,
        )
        self._events.requested(segment)
        try:
            answer = await self._answer(question)
        except ApprovalRefused as refusal:
            return self._deny(segment, "denied", refusal.reason)
        except TimeoutError:
            return self._deny(segment, "timed-out", self._timed_out_reason())
        except asyncio.CancelledError:
            # A stopped turn withdraws the dialog; nothing is approved or remembered.
            self._events.decided(segment, Decision("denied", reason=STOPPED))
            raise
        if answer is None:
            if self.timeout_seconds:
                return self._deny(segment, "timed-out", self._timed_out_reason())
            return self._deny(segment, "denied", "no answer came")
        if answer == "deny":
            return self._deny(segment, "denied", DECLINED)
        decision = await self._approve(segment, directory, answer)
        return _Outcome(approved=True, decided=True, approval_id=decision.approval_id)

    async def _answer(self, question: ApprovalQuestion) -> Answer | None:
        if not self.approver.can_ask:
            raise ApprovalRefused(nobody_reason(question))
        timeout = self.timeout_seconds or None
        async with asyncio.timeout(timeout):
            return await self.approver.ask(question, timeout)

    def _timed_out_reason(self) -> str:
        waited = _duration(self.timeout_seconds)
        return f"no answer within {waited}; an unanswered approval counts as declined"

    def _deny(self, segment: Segment, decision: str, reason: str) -> _Outcome:
        self._events.decided(segment, Decision(decision, reason=reason))
        return _Outcome(approved=False, decided=True, reason=reason)

    async def _approve(self, segment: Segment, directory: Path, answer: Scope) -> Decision:
        """Remember the approval for its scope and record it."""
        scope: Scope = answer
        decision = Decision("approved")
        if segment.is_once_only and answer != "once":
            # Outside the sandbox, or asked each time: once or never.
            scope, decision.downgraded_from = "once", answer
        elif segment.level == "dangerous" and answer in ("project", "always"):
            scope, decision.downgraded_from = "session", answer  # dangerous: never persisted
        decision.scope = scope
        match scope:
            case "once" if segment.is_asked_each_time:
                # Remembered nowhere; what it allows records this id with what it did.
                decision.approval_id = secrets.token_hex(4)
            case "once":
                self._turn_cache.remember(segment, directory)
            case "session":
                self.session.remember(segment, directory)
            case "project" | "always":
                await self._persist(segment, directory, scope, decision)
        self._events.decided(segment, decision)
        return decision

    async def _persist(
        self, segment: Segment, directory: Path, scope: StandingScope, decision: Decision
    ) -> None:
        try:
            entry = await asyncio.to_thread(
                self.store.grant, segment.pattern, directory, segment.level, scope
            )
        except (ApprovalsFileError, OSError) as exc:
            # The command still runs; this process at least remembers it.
            decision.persist_error = str(exc)
            self.session.remember(segment, directory)
            return
        decision.approval_id = entry.id
        decision.expires_at = _iso(entry.expires_at)

    def _refuse(self, segment: Segment, reason: str, is_compound: bool) -> GateResult:
        self.refusals.append(Refusal(segment.command, reason))
        return GateResult(
            approved=False, reason=f"{segment.command}: {reason}" if is_compound else reason
        )


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _duration(seconds: float) -> str:
    """``600`` → ``10 minutes``, ``45`` → ``45 seconds``."""
    for size, unit in ((3600, "hour"), (60, "minute")):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds:g} second{'s' if seconds != 1 else ''}"
