"""The approval gate (§9): whether a line's commands may run, asking the person when they must.

Each part is cleared in the order of §9.1, and the first step that decides wins:

1. classified (already, by the caller): ``classifier.verdict`` for every part, before step 2;
2. below the threshold: allowed, nothing else consulted (a run outside the sandbox is asked);
3. the session cache covers it: ``cached``;
4. the turn cache (once-approvals this turn) covers it: ``cached-turn``;
5. below dangerous only, a standing approval in ``approvals.json``: ``cached-project`` or
   ``cached-always``;
6. ask the approver: ``approval.requested``, then ``approval.decided``.

Any part refused refuses the whole line (§9.4).

A line may hold thousands of parts (``true;`` six thousand times fits in
``MAX_LINE_BYTES``), so the work stays linear in the line and the chat stays responsive: a part
repeated word for word is rated, recorded and cleared once; the whole line is recorded in full
once per call (``policy.decision``), and each part's events carry at most
``EVENT_LINE_CHARS`` of it; and every ``YIELD_EVERY`` parts the gate lets the event loop run, so
an interrupt read meanwhile stops the line before anything runs.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from msgspec import UNSET, UnsetType

from wisp.audit.kinds import ApprovalDecided, ApprovalRequested, ClassifierVerdict
from wisp.policy.approvals import (
    ApprovalsFileError,
    ApprovalStore,
    StandingScope,
    StoredApproval,
)
from wisp.policy.approvers import ApprovalRefused, nobody_reason
from wisp.policy.types import (
    LEVEL_ORDER,
    Answer,
    ApprovalQuestion,
    Approver,
    Assessment,
    Level,
    Scope,
    SimpleCommand,
    Threshold,
)

log = logging.getLogger(__name__)

GateEvent = ClassifierVerdict | ApprovalRequested | ApprovalDecided
Record = Callable[[GateEvent], str]
"""Writes one audit event and returns its id (the conversation's recorder)."""

THRESHOLDS: tuple[Threshold, ...] = ("safe", "moderate", "dangerous", "never")
DEFAULT_TIMEOUT_SECONDS = 600
DECLINED = "declined by the user"
STOPPED = "the person stopped the turn"
YIELD_EVERY = 64
"""Parts handled between two turns of the event loop (an interrupt is read at each)."""
EVENT_LINE_CHARS = 240
"""How much of a long line each of its parts' events carries (docs/logging.md): as much as
``wisp logs`` shows of a value."""


@dataclass(frozen=True, slots=True)
class GateResult:
    """Whether the whole line may run; ``reason`` says why not (§9.4), empty when it may."""

    approved: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Refusal:
    """One refusal of this turn, for callers that report them without parsing prose (§9.4)."""

    command: str
    reason: str


@dataclass(frozen=True, slots=True)
class _Segment:
    """A part of the line (or the whole line, §9.3) on its way through steps 2–6."""

    command: str
    pattern: str
    """As shown and audited: the exact text when dangerous or outside the sandbox (§9.2, §6)."""
    legacy_pattern: str | None
    assessment: Assessment
    line: str | None
    """The whole line, when this is one part of a longer one."""
    outside_sandbox: bool = False
    is_unreadable: bool = False
    """What runs is only known when the line runs (issue 12.4): ``--yes`` never approves it."""

    @classmethod
    def of_part(cls, part: SimpleCommand, assessment: Assessment, line: str | None) -> _Segment:
        is_dangerous = assessment.level == "dangerous"
        return cls(
            command=part.text,
            pattern=part.text if is_dangerous else part.pattern,
            legacy_pattern=part.legacy_pattern,
            assessment=assessment,
            line=line,
            is_unreadable=not part.readable,
        )

    @property
    def level(self) -> Level:
        return self.assessment.level

    def exact_key(self, directory: Path) -> str:
        # §9.2: "cwd \0 \x01 text". A run outside the sandbox has its own mark, so only an
        # approval given for running outside covers it (§6).
        mark = "\x02" if self.outside_sandbox else "\x01"
        return f"{directory}\0{mark}{self.command}"

    def pattern_key(self, directory: Path) -> str | None:
        if self.outside_sandbox or self.level == "dangerous":
            return None
        return f"{directory}\0{self.pattern}"

    def remembered_key(self, directory: Path) -> str:
        return self.pattern_key(directory) or self.exact_key(directory)


class ApprovalCache:
    """The highest level approved per key (§9.2), behind a lock: the session's cache is shared
    by every gate of the process, whatever thread or event loop it runs on."""

    def __init__(self) -> None:
        self._levels: dict[str, int] = {}
        self._lock = threading.Lock()

    def covers(self, segment: _Segment, directory: Path) -> bool:
        needed = LEVEL_ORDER[segment.level]
        keys = (segment.exact_key(directory), segment.pattern_key(directory))
        with self._lock:
            return any(key is not None and self._levels.get(key, -1) >= needed for key in keys)

    def remember(self, segment: _Segment, directory: Path) -> None:
        key = segment.remembered_key(directory)
        level = LEVEL_ORDER[segment.level]
        with self._lock:
            self._levels[key] = max(level, self._levels.get(key, -1))

    def clear(self) -> None:
        with self._lock:
            self._levels.clear()


class SessionApprovals(ApprovalCache):
    """Approvals with scope ``session``: one per process, passed to every gate it makes."""


@dataclass(frozen=True, slots=True)
class _Outcome:
    approved: bool
    decided: bool = False
    """Whether a decision past the threshold was made (and recorded)."""
    reason: str = ""


_ALLOWED = _Outcome(approved=True)
_DECIDED = _Outcome(approved=True, decided=True)


@dataclass(slots=True)
class _Decision:
    """An ``approval.decided`` event's variable fields."""

    decision: str
    scope: Scope | UnsetType = UNSET
    reason: str | None = None
    approval_id: str | None = None
    expires_at: str | None = None
    downgraded_from: str | UnsetType = UNSET
    persist_error: str | UnsetType = UNSET


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
        """How long to wait for an answer; 0 waits for ever (§9.8)."""
        self.session = session if session is not None else SessionApprovals()
        self.refusals: list[Refusal] = []
        """This turn's refusals (§9.4); cleared when the turn changes."""
        self._record = record
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
    ) -> GateResult:
        """Clear ``line`` (split into ``parts``, each rated by ``assessments``) to run in
        ``directory``. ``line_assessment`` is the rules' verdict on the whole line (§9.3), and
        ``seconds`` how long each assessment took, for ``classifier.verdict``. Once ``stop``
        (the turn's) is set, the line is refused with ``STOPPED``: nothing of it runs."""
        if len(parts) != len(assessments):
            raise ValueError(f"{len(parts)} parts but {len(assessments)} assessments")
        self._begin_turn(turn)
        whole = line.strip()
        is_compound = len(parts) != 1 or parts[0].text != whole
        segments, timings = _distinct_segments(
            parts, assessments, seconds, whole if is_compound else None
        )
        # §9.1 (Python wisp): every part is classified before any is cleared.
        for index, segment in enumerate(segments):
            if await _is_stopped(index, stop):
                return GateResult(approved=False, reason=STOPPED)
            self._record_verdict(segment, timings[index])
        line_segment = self._line_segment(whole, segments, line_assessment, is_compound)
        if line_segment is not None:
            self._record_verdict(line_segment, 0.0)
        first = self._first_segment(whole, segments, line_segment, outside_sandbox, is_compound)
        is_line_cleared = False
        if first is not None:
            outcome = await self._clear(first, directory, is_line_cleared=False)
            if not outcome.approved:
                return self._refuse(first, outcome.reason, is_compound)
            is_line_cleared = outcome.decided
        if first is None or is_compound:
            for index, segment in enumerate(segments):
                if await _is_stopped(index, stop):
                    return GateResult(approved=False, reason=STOPPED)
                outcome = await self._clear(segment, directory, is_line_cleared=is_line_cleared)
                if not outcome.approved:
                    return self._refuse(segment, outcome.reason, is_compound)
        if stop is not None and stop.is_set():  # set while an answer was awaited
            return GateResult(approved=False, reason=STOPPED)
        return GateResult(approved=True)

    def _begin_turn(self, turn: int) -> None:
        if turn != self._turn:
            self._turn = turn
            self._turn_cache.clear()
            self.refusals.clear()

    def _line_segment(
        self,
        whole: str,
        segments: list[_Segment],
        line_assessment: Assessment | None,
        is_compound: bool,
    ) -> _Segment | None:
        """The whole line as one more segment, when the rules rate it above every part (§9.3)."""
        if not is_compound or line_assessment is None:
            return None
        highest = max((LEVEL_ORDER[s.level] for s in segments), default=-1)
        if LEVEL_ORDER[line_assessment.level] <= highest:
            return None
        is_unreadable = any(s.is_unreadable for s in segments)
        return _Segment(whole, whole, None, line_assessment, None, is_unreadable=is_unreadable)

    def _first_segment(
        self,
        whole: str,
        segments: list[_Segment],
        line_segment: _Segment | None,
        outside_sandbox: bool,
        is_compound: bool,
    ) -> _Segment | None:
        """What is cleared before the parts: the whole line, for a run outside the sandbox (§6,
        keyed by its exact text) or when it is rated above its parts (§9.3)."""
        if not outside_sandbox:
            return line_segment
        if not is_compound:
            only = segments[0]
            return replace(only, pattern=only.command, outside_sandbox=True)
        rated = [s.assessment for s in segments]
        if line_segment is not None:
            rated.append(line_segment.assessment)
        is_unreadable = any(s.is_unreadable for s in segments)
        return _Segment(
            whole, whole, None, _combined(rated), None, outside_sandbox=True,
            is_unreadable=is_unreadable,
        )  # fmt: skip

    async def _clear(
        self, segment: _Segment, directory: Path, *, is_line_cleared: bool
    ) -> _Outcome:
        """Steps 2–6 of §9.1 for one segment."""
        if not segment.outside_sandbox and self._is_below_threshold(segment.level):
            return _ALLOWED
        if self.session.covers(segment, directory):
            self._record_decided(segment, _Decision("cached"))
            return _DECIDED
        if self._turn_cache.covers(segment, directory):
            self._record_decided(segment, _Decision("cached-turn"))
            return _DECIDED
        standing = await self._standing(segment, directory)
        if standing is not None:
            decision = _Decision(
                f"cached-{standing.scope}",
                approval_id=standing.id,
                expires_at=_iso(standing.expires_at),
            )
            self._record_decided(segment, decision)
            return _DECIDED
        if is_line_cleared:
            self._record_decided(segment, _Decision("covered-line"))
            return _DECIDED
        return await self._ask(segment, directory)

    def _is_below_threshold(self, level: Level) -> bool:
        if self.threshold == "never":
            return True
        return LEVEL_ORDER[level] < LEVEL_ORDER[self.threshold]

    async def _standing(self, segment: _Segment, directory: Path) -> StoredApproval | None:
        """Step 5: a standing approval, for a verdict below dangerous only (§9.2: the file may
        be weeks old). The legacy pattern counts."""
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

    async def _ask(self, segment: _Segment, directory: Path) -> _Outcome:
        """Step 6: ``approval.requested``, the approver's answer, ``approval.decided``."""
        question = ApprovalQuestion(
            line=segment.line or segment.command,
            command=segment.command,
            pattern=segment.pattern,
            level=segment.level,
            reasons=list(segment.assessment.reasons),
            directory=directory,
            outside_sandbox=segment.outside_sandbox,
            is_unreadable=segment.is_unreadable,
        )
        self._record(
            ApprovalRequested(
                command=segment.command,
                pattern=segment.pattern,
                line=_event_line(segment.line) if segment.line else question.line,
                level=segment.level,
                outside_sandbox=True if segment.outside_sandbox else UNSET,
            )
        )
        try:
            answer = await self._answer(question)
        except ApprovalRefused as refusal:
            return self._deny(segment, "denied", refusal.reason)
        except TimeoutError:
            return self._deny(segment, "timed-out", self._timed_out_reason())
        except asyncio.CancelledError:
            # §11: a stopped turn withdraws the dialog; nothing is approved or remembered.
            self._record_decided(segment, _Decision("denied", reason=STOPPED))
            raise
        if answer is None:
            if self.timeout_seconds:
                return self._deny(segment, "timed-out", self._timed_out_reason())
            return self._deny(segment, "denied", "no answer came")
        if answer == "deny":
            return self._deny(segment, "denied", DECLINED)
        await self._approve(segment, directory, answer)
        return _DECIDED

    async def _answer(self, question: ApprovalQuestion) -> Answer | None:
        if not self.approver.can_ask:
            raise ApprovalRefused(nobody_reason(question))
        timeout = self.timeout_seconds or None
        async with asyncio.timeout(timeout):
            return await self.approver.ask(question, timeout)

    def _timed_out_reason(self) -> str:
        waited = _duration(self.timeout_seconds)
        return f"no answer within {waited}; an unanswered approval counts as declined"

    def _deny(self, segment: _Segment, decision: str, reason: str) -> _Outcome:
        self._record_decided(segment, _Decision(decision, reason=reason))
        return _Outcome(approved=False, decided=True, reason=reason)

    async def _approve(self, segment: _Segment, directory: Path, answer: Scope) -> None:
        """Remember the approval for its scope (§9.6) and record it."""
        scope: Scope = answer
        decision = _Decision("approved")
        if segment.outside_sandbox and answer != "once":
            scope, decision.downgraded_from = "once", answer  # §6: once or not at all
        elif segment.level == "dangerous" and answer in ("project", "always"):
            scope, decision.downgraded_from = "session", answer  # §9.6: never persisted
        decision.scope = scope
        match scope:
            case "once":
                self._turn_cache.remember(segment, directory)
            case "session":
                self.session.remember(segment, directory)
            case "project" | "always":
                await self._persist(segment, directory, scope, decision)
        self._record_decided(segment, decision)

    async def _persist(
        self, segment: _Segment, directory: Path, scope: StandingScope, decision: _Decision
    ) -> None:
        try:
            entry = await asyncio.to_thread(
                self.store.grant, segment.pattern, directory, segment.level, scope
            )
        except (ApprovalsFileError, OSError) as exc:
            # The command still runs (§9.5); this process at least remembers it.
            decision.persist_error = str(exc)
            self.session.remember(segment, directory)
            return
        decision.approval_id = entry.id
        decision.expires_at = _iso(entry.expires_at)

    def _refuse(self, segment: _Segment, reason: str, is_compound: bool) -> GateResult:
        self.refusals.append(Refusal(segment.command, reason))
        return GateResult(
            approved=False, reason=f"{segment.command}: {reason}" if is_compound else reason
        )

    def _record_verdict(self, segment: _Segment, seconds: float) -> None:
        assessment = segment.assessment
        self._record(
            ClassifierVerdict(
                command=segment.command,
                pattern=segment.pattern,
                line=_event_line(segment.line) if segment.line is not None else UNSET,
                level=assessment.level,
                reasons=list(assessment.reasons),
                sources=list(assessment.sources),
                seconds=seconds,
                metadata=dict(assessment.metadata) if assessment.metadata else UNSET,
            )
        )

    def _record_decided(self, segment: _Segment, decision: _Decision) -> None:
        self._record(
            ApprovalDecided(
                command=segment.command,
                pattern=segment.pattern,
                line=_event_line(segment.line) if segment.line is not None else UNSET,
                decision=decision.decision,
                scope=decision.scope,
                reason=decision.reason,
                approval_id=decision.approval_id,
                expires_at=decision.expires_at,
                downgraded_from=decision.downgraded_from,
                persist_error=decision.persist_error,
                outside_sandbox=True if segment.outside_sandbox else UNSET,
            )
        )


async def assess_each(
    parts: Sequence[SimpleCommand],
    assess: Callable[[SimpleCommand], Assessment],
    *,
    stop: asyncio.Event | None = None,
) -> list[Assessment] | None:
    """Each part's assessment, a part repeated word for word assessed once (the verdict is the
    same object); None once ``stop`` is set. The event loop runs every ``YIELD_EVERY`` parts."""
    known: dict[SimpleCommand, Assessment] = {}
    assessments: list[Assessment] = []
    for index, part in enumerate(parts):
        if await _is_stopped(index, stop):
            return None
        assessment = known.get(part)
        if assessment is None:
            assessment = known[part] = assess(part)
        assessments.append(assessment)
    return assessments


async def _is_stopped(index: int, stop: asyncio.Event | None) -> bool:
    """Whether the turn was stopped, letting the event loop run first every ``YIELD_EVERY``
    steps: a long line must not keep the chat from reading an interrupt."""
    if index and index % YIELD_EVERY == 0:
        await asyncio.sleep(0)
    return stop is not None and stop.is_set()


def _distinct_segments(
    parts: Sequence[SimpleCommand],
    assessments: Sequence[Assessment],
    seconds: Sequence[float] | None,
    line: str | None,
) -> tuple[list[_Segment], list[float]]:
    """One segment per distinct part and verdict, in the order they first appear, with the
    first one's time: a repeated part adds no verdict, no question and no decision."""
    seen: dict[Hashable, int] = {}
    segments: list[_Segment] = []
    timings: list[float] = []
    for index, (part, assessment) in enumerate(zip(parts, assessments, strict=True)):
        key = (part, _assessment_key(assessment))
        if key in seen:
            continue
        seen[key] = len(segments)
        segments.append(_Segment.of_part(part, assessment, line))
        timings.append(seconds[index] if seconds else 0.0)
    return segments, timings


def _assessment_key(assessment: Assessment) -> Hashable:
    # metadata is open (a classifier's own keys), so its values are compared by repr.
    metadata = tuple(sorted((key, repr(value)) for key, value in assessment.metadata.items()))
    return (assessment.level, tuple(assessment.reasons), tuple(assessment.sources), metadata)


def _event_line(line: str) -> str:
    """The line as a part's event carries it: whole up to ``EVENT_LINE_CHARS``, else its start
    and a mark. The call's ``policy.decision`` records it whole, once, so a line of thousands
    of parts writes a log linear in its length, not in its length times its parts."""
    if len(line) <= EVENT_LINE_CHARS:
        return line
    rest = len(line) - EVENT_LINE_CHARS
    return f"{line[:EVENT_LINE_CHARS]}… [{rest:,} more characters: see policy.decision]"


def _combined(assessments: list[Assessment]) -> Assessment:
    """§8.1: the higher level wins; reasons, sources and metadata merge."""
    level = max((a.level for a in assessments), key=LEVEL_ORDER.__getitem__, default="safe")
    reasons = list(dict.fromkeys(r for a in assessments for r in a.reasons))
    sources = list(dict.fromkeys(s for a in assessments for s in a.sources))
    metadata = {k: v for a in assessments for k, v in a.metadata.items()}
    return Assessment(level=level, reasons=reasons, sources=sources, metadata=metadata)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _duration(seconds: float) -> str:
    """``600`` → ``10 minutes``, ``45`` → ``45 seconds``."""
    for size, unit in ((3600, "hour"), (60, "minute")):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds:g} second{'s' if seconds != 1 else ''}"
