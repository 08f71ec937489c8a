"""Facts to keep, on the desk (docs/turn.md, "Facts from a caller, kept through the desk"): a
fact that a caller of ``wisp mcp`` (or wisp's own model there) proposes as permanent waits for
the person.

Nobody but the person makes a fact permanent. Where the person is not at hand, ``FactKeeper``
files each proposal (``<id>.proposal.json``) for the person to answer with ``wisp facts
keep|drop``, ``/facts keep|drop`` in a chat, or wisp-tui's dialog. The proposing thread records
``approval.pending`` with ``kind: fact`` and, once the answer is applied, ``approval.settled``
with the decision (``keep`` with the permanent fact's id as ``kept``, or ``drop``).

A proposal has no time limit, so it outlives the wait that filed it (the kind ``hands_over``):
when the server stops or the thread closes first, the wait is settled ``handed-over`` and the
proposal stays filed; the process that answers it later applies the answer itself
(``apply_handed_over``) and records the ending on its own log, saying why.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
from msgspec import UNSET

from wisp.audit.kinds import (
    ApprovalAnswered,
    ApprovalPending,
    ApprovalSettled,
    Details,
    FactScopeChanged,
)
from wisp.desk.answering import deliver, find_waiting
from wisp.desk.channel import Record, is_alive, withdraw
from wisp.desk.kind import (
    ChannelError,
    Filed,
    Kind,
    Settled,
    age,
    delivered,
    table,
    waits_for,
)
from wisp.desk.wait import Desk, new_request_id
from wisp.facts.book import Fact, FactError
from wisp.facts.shared import SharedFacts
from wisp.policy.approvers import escape_controls

__all__ = [
    "DECISIONS",
    "FACT",
    "FactDecision",
    "FactKeeper",
    "FactProposal",
    "answer_by_hand",
    "apply_handed_over",
    "fact_line",
]

DECISIONS = ("keep", "drop")
LISTING_HEADER = ("ID", "FACT", "SOURCE", "THREAD", "CLIENT", "AGE")
HANDED_OVER_REASON = "applied by the answering process: the server that filed it has stopped"


class FactProposal(Filed, frozen=True, kw_only=True):
    """One filed proposal, as ``<id>.proposal.json`` holds it: the fact to keep for good."""

    fact: str
    """Its id in the proposing conversation (``c3``)."""
    subject: str
    name: str
    value: str
    source: str

    binding_fields = (
        "id", "fact", "subject", "name", "value", "source", "thread", "pid", "created",
    )  # fmt: skip


class FactDecision(msgspec.Struct, frozen=True):
    """``<id>.decision.json``: the person's ``keep`` or ``drop``, and the proposal it answers."""

    id: str
    decision: str
    via: str
    """``cli`` (``wisp facts``), ``chat`` (``/facts``) or ``tui`` (a chat's front end)."""
    binding: str


def fact_line(proposal: FactProposal) -> str:
    """``release codename = BLUE HERON``: the fact as one line, for a listing or a dialog."""
    return escape_controls(f"{proposal.subject} {proposal.name} = {proposal.value}")


class FactsToKeep(Kind[FactProposal, FactDecision, FactDecision]):
    """A fact proposed as permanent, waiting for the person's ``keep`` or ``drop``."""

    name = "fact"
    noun, answer_noun = "proposal", "decision"
    refused_words = "an answer to fact proposal"
    record_type, answer_type = FactProposal, FactDecision
    hands_over = True

    @property
    def source(self) -> str:
        return "approval"  # the audit's word: a fact to keep is an approval of kind fact

    def answer(self, request: FactProposal, given: Any, via: str) -> FactDecision:
        if given not in DECISIONS:
            raise ChannelError(f"not an answer: {given!r} (keep or drop)")
        return FactDecision(id=request.id, decision=given, via=via, binding=request.binding)

    def answered_event(self, asked: str, given: Any, via: str, refused: str | None) -> Details:
        return ApprovalAnswered(request=asked, decision=str(given), via=via, **delivered(refused))

    def check_filed(self, answer: FactDecision) -> None:
        if answer.decision not in DECISIONS:
            raise ChannelError(f"the decision file holds no decision ({answer.decision!r})")

    def face_answer(self, answer: FactDecision) -> FactDecision:
        return answer

    def failure(self, reason: str) -> Exception:
        return FactError(reason)

    def no_way_left(self, out_of_band: bool) -> str:
        return (
            "the proposal could not be filed for the person (approval.outOfBand is off); the "
            "fact stays this conversation's"
        )

    def listing(self, waiting: list[FactProposal], now: int) -> list[str]:
        """A table: id, fact, source, thread, client, age."""
        return table([LISTING_HEADER, *(_row(proposal, now) for proposal in waiting)])

    def banner_body(self, request: FactProposal) -> str:
        return (
            f"{fact_line(request)}, to keep for every conversation (thread "
            f"{request.thread or '-'}): wisp facts keep {request.id}, or drop {request.id}"
        )

    def confirmation(self, request: FactProposal, answer: FactDecision) -> str:
        done = "kept for every conversation" if answer.decision == "keep" else "dropped"
        return f"{done}: {fact_line(request)} ({waits_for(request)})"

    def stale_event(self, request: FactProposal, why: str, seconds: float) -> Details:
        return self.settled_event(request, Settled("stale", reason=why), seconds, "skipped")

    def pending_event(
        self, request: FactProposal, outcome: str, reason: str | None, *, alongside: bool,
        delay: float,
    ) -> Details:  # fmt: skip
        return ApprovalPending(
            request=request.id,
            thread=request.thread or "",
            client=request.client or "",
            outcome=outcome,
            reason=UNSET if reason is None else reason,
            **_fact_fields(request),
        )

    def settled_event(
        self, request: FactProposal, settled: Settled, seconds: float, banner: str
    ) -> Details | None:
        if settled.outcome == "answered":
            return None  # recorded once the answer is applied, with what it kept
        return settled_fact(request, settled.outcome, seconds, banner, reason=settled.reason)


FACT = FactsToKeep()
"""The kind of a fact to keep: what the desk's channel, wait and answering path are handed."""


def settled_fact(
    request: FactProposal,
    outcome: str,
    seconds: float,
    banner: str,
    *,
    answer: FactDecision | None = None,
    kept: str | None = None,
    reason: str | None = None,
) -> ApprovalSettled:
    """A proposal's ``approval.settled``: ``kind: fact`` and the fact in place of a command."""
    settled = ApprovalSettled(
        request=request.id,
        thread=request.thread or "",
        outcome=outcome,
        seconds=seconds,
        banner=banner,
        **_fact_fields(request),
    )
    if answer is not None:
        settled.via, settled.decision = answer.via, answer.decision
    if kept is not None:
        settled.kept = kept
    if reason is not None:
        settled.reason = reason
    return settled


def _fact_fields(request: FactProposal) -> dict[str, str]:
    fields = ("fact", "subject", "name", "value", "source")
    return {"request_kind": "fact", **{name: getattr(request, name) for name in fields}}


Apply = Callable[[str, str], str | None]
"""Applies the person's decision to the proposing conversation's fact (its id, ``keep`` or
``drop``): the permanent fact's id for a keep; ``FactError`` when the fact changed since."""


class FactKeeper(Desk[FactProposal, FactDecision, FactDecision]):
    """One thread's proposals: each filed and waited for in the background, the answer applied
    to the thread's facts with ``apply``; ``aclose`` hands over what still waits."""

    def __init__(
        self,
        home: Path,
        *,
        apply: Apply,
        record: Callable[[Details], object],
        thread: str | None,
        client: str | None,
        out_of_band: bool = True,
        banner_delay: float = 0.0,
    ) -> None:
        super().__init__(
            FACT, home, record=record, thread=thread, client=client, out_of_band=out_of_band,
            alongside=None, banner_delay=banner_delay,
        )  # fmt: skip
        self._apply = apply
        self._waits: set[asyncio.Task[None]] = set()

    def propose(self, fact: Fact) -> None:
        """File ``fact`` for the person to keep or drop, and wait for the answer meanwhile."""
        proposal = FactProposal(
            fact=fact.id, subject=fact.subject, name=fact.name, value=fact.value,
            source=fact.source, **self.stamp(new_request_id(), None),
        )  # fmt: skip
        task = asyncio.get_running_loop().create_task(self._await(proposal))
        self._waits.add(task)
        task.add_done_callback(self._waits.discard)

    async def settled(self) -> None:
        """Every proposal answered and applied (for a caller that waits on them, and tests)."""
        while self._waits:
            await asyncio.wait(set(self._waits))

    async def aclose(self) -> None:
        """Hand over what still waits: each is recorded ``handed-over`` and stays filed."""
        waits = list(self._waits)
        for task in waits:
            task.cancel()
        for task in waits:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _await(self, proposal: FactProposal) -> None:
        started = asyncio.get_running_loop().time()
        try:
            answer = await self.wait(proposal, None)
        except FactError:
            return  # not filed (approval.outOfBand is off): recorded; the fact stays a proposal
        assert answer is not None  # no limit: only an answer ends the wait
        seconds = round(asyncio.get_running_loop().time() - started, 3)
        # With no dialog to wait for, the waiting notice is posted as soon as it is filed.
        try:
            kept = self._apply(proposal.fact, answer.decision)
        except FactError as exc:
            self.record(settled_fact(proposal, "failed", seconds, "posted", reason=str(exc)))
            return
        answered = settled_fact(proposal, "answered", seconds, "posted", answer=answer, kept=kept)
        self.record(answered)


def answer_by_hand(home: Path, request_id: str, decision: str, *, via: str, record: Record) -> str:
    """The person's ``decision`` on the proposal ``request_id``, written on the desk's answering
    path (``approval.answered`` on ``record``) and applied here when its server has stopped;
    what became of it. ``ChannelError`` when no such proposal waits or the answer is refused."""
    proposal = find_waiting(home, FACT, request_id, record)
    answer = deliver(home, FACT, proposal, decision, asked=request_id, via=via, record=record)
    assert proposal is not None  # deliver refuses an answer to nothing
    said = FACT.confirmation(proposal, answer)
    applied = apply_handed_over(home, proposal, answer, record)
    return said if applied is None else f"{said}; {applied}"


def apply_handed_over(
    home: Path, proposal: FactProposal, answer: FactDecision, record: Record
) -> str | None:
    """When the server that filed ``proposal`` has stopped, the answering process applies
    ``answer`` itself: a keep copies the fact into the shared store. Records the move and the
    ending on ``record`` (its own log), withdraws the proposal, and says what it did. Nothing
    (None) while the server still waits: it applies the answer."""
    if is_alive(proposal.pid):
        return None
    kept = None
    if answer.decision == "keep":
        fact = Fact(
            id=proposal.fact, scope="thread", subject=proposal.subject, name=proposal.name,
            value=proposal.value, source=proposal.source,  # type: ignore[arg-type]
            fact_class="permanent", method="stated", version=1, detail=proposal.client or "",
        )  # fmt: skip
        kept = SharedFacts(home).keep(fact).id
        named = f"{proposal.thread}/{proposal.fact}" if proposal.thread else proposal.fact
        record(
            FactScopeChanged(
                fact=named, from_="thread", to="permanent", by="person", now=kept,
                subject=proposal.subject, name=proposal.name, source=proposal.source,
                value=proposal.value, proposed=True, request="kept",
            )
        )  # fmt: skip
    seconds = float(max(0.0, time.time() - proposal.created))
    record(
        settled_fact(
            proposal, "answered", seconds, "posted", answer=answer, kept=kept,
            reason=HANDED_OVER_REASON,
        )
    )  # fmt: skip
    withdraw(home, FACT, proposal.id)
    done = f"kept here as {kept}" if kept is not None else "dropped here"
    return f"the server that proposed it has stopped: {done}"


def _row(proposal: FactProposal, now: int) -> tuple[str, ...]:
    line = fact_line(proposal)
    if len(line) > 60:
        line = line[:59] + "…"
    return (
        proposal.id,
        line,
        proposal.source,
        escape_controls(proposal.thread or "-"),
        escape_controls(proposal.client or "-"),
        age(now - proposal.created),
    )
