"""Masking credential-shaped values in text the person typed (answers to the model's questions,
facts).

``mask_credentials`` replaces each value that looks like a secret with ``[masked: <kind>]`` and
says which kinds it found. The rules run in order, the precise shapes first, so a GitHub token
is called a ``github-token`` rather than a generic ``token``; an assignment's value
(``password=…``) is masked whatever its shape.

The generic rule is cautious: a run of 32 or more token characters counts only when it mixes
upper case, lower case and digits, or is pure hex of a length that is not a git object id
(40 or 64): commit ids and digests are common in answers and are not secrets.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import msgspec

MARKER = "[masked: {kind}]"

_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"
    # An unterminated block (a cut answer) is masked to the end.
    r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|.*)",
    re.DOTALL,
)
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private-key", _PRIVATE_KEY),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("api-key", re.compile(r"\b(?:sk-[A-Za-z0-9_-]{20,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,})")),
)

# `password=hunter2`, `token: abc`, `"api_key": "…"`: the value after the name is masked.
_ASSIGNMENT = re.compile(
    r"""(?ix)
    \b(?P<name>passwd|password|passphrase|secret|client[_-]?secret|token|auth[_-]?token
        |access[_-]?token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key)
    (?P<gap>["']?\s*[:=]\s*)
    (?P<value>"[^"\n]+"|'[^'\n]+'|[^\s,;'"]+)
    """
)
_PASSWORD_NAMES = {"passwd", "password", "passphrase"}

_GENERIC = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9+/_=-])")
_HEX = re.compile(r"[0-9a-fA-F]+")
_LOWER_RUN = re.compile(r"[a-z]{3,}")
_GIT_OBJECT_ID_LENGTHS = {40, 64}


class Masked(msgspec.Struct):
    """Text with its credential-shaped values masked."""

    text: str
    kinds: list[str] = msgspec.field(default_factory=list)
    """The kinds masked, each once, in the order first found; empty when nothing was."""


def mask_credentials(text: str) -> Masked:
    """``text`` with every credential-shaped value replaced by ``[masked: <kind>]``."""
    kinds: list[str] = []

    def found(kind: str) -> str:
        if kind not in kinds:
            kinds.append(kind)
        return MARKER.format(kind=kind)

    for kind, pattern in _SHAPES:
        text = pattern.sub(lambda _, kind=kind: found(kind), text)
    text = _ASSIGNMENT.sub(_assignment_masker(found), text)
    text = _GENERIC.sub(lambda match: _generic(match, found), text)
    return Masked(text, kinds)


def _assignment_masker(found: Callable[[str], str]) -> Callable[[re.Match[str]], str]:
    def mask(match: re.Match[str]) -> str:
        value = match["value"]
        bare = value.strip("\"'")
        if bare.startswith("["):
            return match[0]  # masked already by a precise rule, or a placeholder: [redacted]
        kind = "password" if match["name"].lower() in _PASSWORD_NAMES else "secret"
        quote = value[0] if value[0] in "\"'" else ""
        return f"{match['name']}{match['gap']}{quote}{found(kind)}{quote}"

    return mask


def _generic(match: re.Match[str], found: Callable[[str], str]) -> str:
    value = match[0]
    if looks_like_token(value):
        return found("token")
    return value


def looks_like_token(value: str) -> bool:
    """Whether a long run of token characters is likely a secret rather than a name or a path."""
    core = value.rstrip("=")
    if _HEX.fullmatch(core):
        return len(core) not in _GIT_OBJECT_ID_LENGTHS
    if core.startswith("/") or "//" in core:
        return False  # a path, not a key
    has_upper = any(c.isupper() for c in core)
    has_lower = any(c.islower() for c in core)
    digits = sum(c.isdigit() for c in core)
    return has_upper and has_lower and digits >= 2 and not _reads_as_words(core)


def _reads_as_words(core: str) -> bool:
    """Names (``AbstractProxyFactoryBean2``) are mostly lowercase runs of three or more
    letters; random text rarely has one."""
    in_words = sum(len(run) for run in _LOWER_RUN.findall(core))
    return in_words >= 0.4 * len(core)
