"""The third line under a reply: its claims of actions, each checked by its reader against
the turn's calls, and the ``response.verification`` event that records the check."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import msgspec

from wisp.agent.checks import TrailEvent
from wisp.agent.verification.calls import turn_calls
from wisp.agent.verification.claims import find_claims
from wisp.agent.verification.readers import READERS
from wisp.audit.kinds import ResponseVerification, VerifiedClaim

METHOD = "readers"
SHOWN_CLAIMS = 3


class Verification(msgspec.Struct, frozen=True):
    """What the check found: the event to record, and the line to show (None when every
    claim is supported)."""

    details: ResponseVerification
    line: str | None


def verify(reply: str, trail: Sequence[TrailEvent], working_directory: Path) -> Verification | None:
    """The reply's claims checked against the turn's calls; None when it makes no claim."""
    started = time.perf_counter()
    claims = find_claims(reply)
    if not claims:
        return None
    calls = turn_calls(trail)
    unsupported: list[VerifiedClaim] = []
    for claim in claims:
        reader = READERS[claim.family]
        reason = reader.check(claim, calls, working_directory)
        if reason is not None:
            unsupported.append(VerifiedClaim(reader=reader.name, claim=claim.quote, reason=reason))
    details = ResponseVerification(
        method=METHOD,
        status="unsupported" if unsupported else "verified",
        claims=unsupported,
        calls=len(calls),
        seconds=round(time.perf_counter() - started, 6),
    )
    return Verification(details, verification_line(unsupported))


def verification_line(unsupported: Sequence[VerifiedClaim]) -> str | None:
    """``claimed but not done: ran the tests (no command ran); updated config.ini (no edit of
    config.ini)``, the first three, then how many more; None when there is none."""
    if not unsupported:
        return None
    shown = "; ".join(f"{c.claim} ({c.reason})" for c in unsupported[:SHOWN_CLAIMS])
    if len(unsupported) > SHOWN_CLAIMS:
        shown += f"; +{len(unsupported) - SHOWN_CLAIMS} more"
    return f"claimed but not done: {shown}"
