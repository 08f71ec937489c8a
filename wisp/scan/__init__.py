"""Secrets and personal data found in text, and taken out: the one rule set behind
``wisp scan``, ``wisp redact``, the ``ask`` tool's answers and the facts' values."""

from wisp.scan.finding import MARKER, Finding, find, redact
from wisp.scan.rules import KINDS, PERSONAL_CLASSIFIER, PERSONAL_KINDS

__all__ = ["KINDS", "MARKER", "PERSONAL_CLASSIFIER", "PERSONAL_KINDS", "Finding", "find", "redact"]
