"""Masking credential-shaped values in text the person typed (answers to the model's questions,
facts), with the one rule set of ``wisp.scan`` and its marker, ``[REDACTED:KIND]``.

Only the secrets are masked here, not the personal data: a person who answers the model's
question with a host's address or an email address means the model to have it. ``wisp scan``
and ``wisp redact`` find both.
"""

from __future__ import annotations

import msgspec

from wisp.scan import PERSONAL_KINDS, find, redact


class Masked(msgspec.Struct):
    """Text with its credential-shaped values masked."""

    text: str
    kinds: list[str] = msgspec.field(default_factory=list)
    """The kinds masked, each once, in the order first found; empty when nothing was."""


def mask_credentials(text: str) -> Masked:
    """``text`` with every credential-shaped value replaced by ``[REDACTED:KIND]``."""
    secrets = [finding for finding in find(text) if finding.kind not in PERSONAL_KINDS]
    kinds = list(dict.fromkeys(finding.kind for finding in secrets))
    return Masked(redact(text, secrets), kinds)
