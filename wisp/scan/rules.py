"""The one rule set: every kind of secret and of personal data wisp finds, each rule compiled
once (docs/design.md, "Parts built so far": scan).

Each rule is a regular expression, an optional group ``v`` (the value, when the rule matches
its surroundings too: ``AccountKey=…``) and an optional check of the value (a placeholder, a
Luhn sum, an IBAN's mod-97). A text is searched as if the rules were joined into one
alternation: the leftmost match wins, and at one position the earlier rule, which is why the
precise shapes come before the assignments and the generic rule.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import msgspec

from wisp.scan.searching import Searcher, searchers_for
from wisp.scan.values import (
    is_card_number,
    is_iban,
    is_ip_address,
    is_phone,
    looks_like_token,
    plausible_assigned,
    real_value,
)

PERSONAL_CLASSIFIER = "personal@1"
"""The version of the personal-data rules below (email, phone, iban, card-number,
ip-address), recorded with every scan: a change to them bumps it."""

PERSONAL_KINDS = frozenset({"email", "phone", "iban", "card-number", "ip-address"})

Check = Callable[[str], bool]


class Rule(msgspec.Struct, frozen=True):
    kind: str
    pattern: str
    """A regular expression; a group named ``v`` marks the value within what it matches."""
    check: Check = real_value


_TOKEN = r"A-Za-z0-9_\-"
_NOT_BEFORE = rf"(?<![{_TOKEN}])"
_NOT_AFTER = rf"(?![{_TOKEN}])"
_KEYWORDS = (
    r"(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_.-]?key|apikey|access[_.-]?key"
    r"|private[_.-]?key|credentials?|auth)"
)

RULES: tuple[Rule, ...] = (
    Rule(
        "private-key",
        # A terminated block, or an unterminated one (a cut paste) whose base64 runs on.
        r"-----BEGIN (?P<pk>(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
        r"(?:[\s\S]{16,}?-----END (?P=pk)-----|(?:\\n|\r?\n)[A-Za-z0-9+/=\s\\:,-]{16,})",
    ),
    Rule(
        "gcp-service-account",
        r""""private_key_id"\s*:\s*"(?P<v>[0-9a-f]{40})\"""",
    ),
    Rule("jwt", rf"{_NOT_BEFORE}eyJ[A-Za-z0-9_-]{{8,}}\.eyJ[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]*"),
    Rule("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    Rule(
        "aws-secret-key",
        r"(?i:aws)[A-Za-z0-9_.-]{0,20}(?i:secret)[A-Za-z0-9_.-]{0,20}[\"']?\s*[:=]\s*[\"']?"
        r"(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
    ),
    Rule("azure-storage-key", r"AccountKey=(?P<v>[A-Za-z0-9+/]{86}==)"),
    Rule("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
    Rule("gitlab-token", rf"\bgl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{{20,}}{_NOT_AFTER}"),
    Rule(
        "slack-token",
        r"\bxox[abposr]-[A-Za-z0-9-]{10,}"
        r"|https://hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+",
    ),
    Rule("stripe-key", rf"\b[sr]k_(?:live|test)_[A-Za-z0-9]{{16,}}{_NOT_AFTER}"),
    Rule("anthropic-key", rf"\bsk-ant-[a-z]+\d*-[A-Za-z0-9_-]{{20,}}{_NOT_AFTER}"),
    Rule("openai-key", rf"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{{20,}}{_NOT_AFTER}"),
    Rule("huggingface-token", rf"\bhf_[A-Za-z0-9]{{30,}}{_NOT_AFTER}"),
    Rule("npm-token", rf"\bnpm_[A-Za-z0-9]{{36}}{_NOT_AFTER}"),
    Rule("pypi-token", rf"\bpypi-AgE[A-Za-z0-9_-]{{50,}}{_NOT_AFTER}"),
    Rule("twilio-key", r"\bSK[0-9a-fA-F]{32}\b"),
    Rule("sendgrid-key", rf"\bSG\.[A-Za-z0-9_-]{{22}}\.[A-Za-z0-9_-]{{43}}{_NOT_AFTER}"),
    Rule(
        "password-in-url",
        r"\b[a-z][a-z0-9+.-]*://[^\s:/@\"'<>]+:(?P<v>[^\s/@\"'<>]+)@[A-Za-z0-9.\-\[]",
    ),
    Rule(
        "password-assignment",
        # `password=…`, `secret: …`, `DB_PASSWORD=…`, `"api_key": "…"`: the keyword ends the
        # name (`max_tokens` and `password_min_length` are not secrets).
        # (`DB_PASSWORD`: the name's other words need not be read, only where it starts.)
        rf"(?<![A-Za-z0-9])(?i:{_KEYWORDS})"
        # After a colon, a lone lowercase word is prose (`a token: what`), not a value.
        r"[\"']?[ \t]*(?::=|=|:(?![ \t]*[a-z]+(?![^\s,;])))[ \t]*"
        r"(?P<v>\"[^\"\n]+\"|'[^'\n]+'|[^\s,;'\"=][^\s,;'\"]*)",
        plausible_assigned,
    ),
    Rule(
        "generic-secret",
        # A long run of token characters with a keyword before it on its line.
        # A base64 image (`data:image/png;base64,…`) is no secret.
        rf"(?i:{_KEYWORDS})[^\n]{{0,40}}?{_NOT_BEFORE}(?<!base64,)"
        r"(?P<v>[A-Za-z0-9+/_-]{20,}={0,2})(?![A-Za-z0-9+/_=-])",
        looks_like_token,
    ),
    Rule(
        "email",
        r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b",
    ),
    Rule("iban", r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b", is_iban),
    Rule("card-number", r"(?<![\d.-])\d{4}(?:[ -]?\d{4}){2}[ -]?\d{1,7}(?![\d.-])", is_card_number),
    Rule(
        "phone",
        r"(?<![\w+.-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?|\d{2,4}[ .-])"
        r"\d{3,4}[ .-]\d{3,4}(?![\w.-])"
        r"|(?<![\w+])\+\d{8,14}(?![\w.])",
        is_phone,
    ),
    Rule("ip-address", r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])", is_ip_address),
)


@functools.cache
def searchers() -> tuple[Searcher, ...]:
    """Each rule's searcher, in the rules' order: together they find what the rules joined
    into one alternation (``rule0|rule1|…``) would, far faster (wisp/scan/searching.py).
    Built on first use: reading the patterns takes tens of milliseconds that a command that
    never scans should not pay at start."""
    return searchers_for([rule.pattern for rule in RULES])


KINDS = tuple(dict.fromkeys(rule.kind for rule in RULES))
CONTEXT_KINDS = frozenset({"password-in-url", "password-assignment", "generic-secret"})
"""The rules that find a value by what surrounds it; any precise shape the value has wins."""
