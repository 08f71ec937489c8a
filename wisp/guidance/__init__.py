"""Guidance files: a project's ``AGENTS.md``, read once at a session's start and used only as
the person accepted it (docs/turn.md, "Guidance files")."""

from wisp.guidance.answers import GuidanceError, KeptAnswers
from wisp.guidance.files import MAX_BYTES, NAME, GuidanceFile, LeftOut
from wisp.guidance.session import Ask, SessionGuidance

__all__ = [
    "MAX_BYTES",
    "NAME",
    "Ask",
    "GuidanceError",
    "GuidanceFile",
    "KeptAnswers",
    "LeftOut",
    "SessionGuidance",
]
