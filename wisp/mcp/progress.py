"""A turn's recorded events as ``notifications/progress`` messages, in the words chat prints."""

from __future__ import annotations

from wisp.audit.details import Details
from wisp.audit.kinds import ApprovalRequested
from wisp.chat.event_text import event_text, shorten


def progress_message(details: Details, call: str | None) -> str | None:
    """The activity line for one recorded event (``⚙ run_command git status``, ``waiting for
    approval [moderate]: git push``, ``↳ exit 0``), or None for one chat shows nothing for."""
    if isinstance(details, ApprovalRequested):
        return f"waiting for approval [{details.level}]: {shorten(details.command)}"
    text = event_text(details, call)
    if text is None:
        return None
    return text.strip() or None
