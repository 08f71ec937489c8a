"""The one answering path of the desk (docs/policy.md, "Approvals out of band"): how a process
that answers for the person (``wisp approvals``, ``wisp questions``, a chat relaying to its
front end) writes an answer of any kind and records it on its own log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wisp.desk.channel import Record, list_waiting, write_answer
from wisp.desk.kind import ChannelError, F, Kind, R
from wisp.policy.approvers import escape_controls


def find_waiting(home: Path, kind: Kind[R, Any, Any], request_id: str, record: Record) -> R | None:
    """The request of ``kind`` filed under ``request_id`` while it still waits; the listing
    sweeps stale ones on the way, recorded with ``record``."""
    return next((r for r in list_waiting(home, kind, record) if r.id == request_id), None)


def deliver(
    home: Path,
    kind: Kind[R, F, Any],
    request: R | None,
    given: Any,
    *,
    asked: str,
    via: str,
    record: Record,
) -> F:
    """Write ``given`` as the person's answer to ``request`` (the one ``asked`` names; None
    when none waits) and record the kind's answered event, ``delivery`` ``written``; the answer
    as filed. ``ChannelError`` when it was refused, recorded with ``delivery`` ``refused`` and
    the reason."""
    try:
        if request is None:
            command = f"wisp {kind.command} pending"
            raise ChannelError(f"no {kind.noun} {asked} is waiting ({command})")
        answer = write_answer(home, kind, request, given, via)
    except ChannelError as exc:
        record(kind.answered_event(escape_controls(asked), given, via, str(exc)))
        raise
    record(kind.answered_event(request.id, given, via, None))
    return answer
