"""Each rule searched on its own, from where it can start (wisp/scan/searching.py), finds what
the rules joined into one alternation find: the same findings, over wisp's own files, texts
made of the pieces secrets are made of, and the characters where case folding or ASCII could
tell the two apart."""

from __future__ import annotations

import bisect
import random
import re
from pathlib import Path

import pytest

from wisp.scan import Finding, find
from wisp.scan.rules import CONTEXT_KINDS, PERSONAL_KINDS, RULES, searchers
from wisp.scan.searching import AsWritten

ROOT = Path(__file__).resolve().parents[2]


def _alternation() -> re.Pattern[str]:
    """Every rule in one alternation, ``r<n>`` around rule n and ``v<n>`` its value."""
    parts = []
    for index, rule in enumerate(RULES):
        pattern = rule.pattern.replace("(?P<v>", f"(?P<v{index}>")
        pattern = pattern.replace("(?P<pk>", f"(?P<pk{index}>").replace(
            "(?P=pk)", f"(?P=pk{index})"
        )
        parts.append(f"(?P<r{index}>{pattern})")
    return re.compile("|".join(parts))


ALTERNATION = _alternation()


def find_by_alternation(text: str) -> list[Finding]:
    """``find`` as it reads with one alternation: from a position, its leftmost match, and at
    one position the earlier rule."""
    findings = []
    starts = [0] + [match.end() for match in re.finditer("\n", text)]
    position = 0
    while (match := ALTERNATION.search(text, position)) is not None:
        found, position = _judge(text, match)
        if found is not None:
            kind, start, end = found
            line = bisect.bisect_right(starts, start)
            findings.append(Finding(kind, start, end, line, start - starts[line - 1] + 1))
    return findings


def _judge(text: str, match: re.Match[str]) -> tuple[tuple[str, int, int] | None, int]:
    index = int((match.lastgroup or "r")[1:])
    rule = RULES[index]
    group = f"v{index}"
    has_value = group in ALTERNATION.groupindex and match[group] is not None
    start, end = match.span(group) if has_value else match.span()
    if end - start > 2 and text[start] in "\"'" and text[end - 1] == text[start]:
        start, end = start + 1, end - 1
    if rule.kind in CONTEXT_KINDS:
        precise = ALTERNATION.match(text, start)
        if precise is not None:
            inner_rule = RULES[int((precise.lastgroup or "r")[1:])]
            if inner_rule.kind not in CONTEXT_KINDS | PERSONAL_KINDS:
                inner, after = _judge(text, precise)
                if inner is not None:
                    return inner, after
        if not rule.check(text[start:end]):
            return None, max(start, match.start() + 1)
        return (rule.kind, start, end), max(end, match.start() + 1)
    if not rule.check(text[start:end]):
        return None, match.end()
    return (rule.kind, start, end), max(end, match.start() + 1)


# Pieces of secrets and of what surrounds them, put together at random below; none is a
# live credential.
PIECES = [
    "AKIA", "ASIA", "QWERTYUIOPASDFGH", "ghp_", "gho_", "github_pat_", "glpat-", "xoxb-",
    "https://hooks.slack.com/services/T0/B1/x", "sk_live_", "rk_test_", "sk-", "sk-ant-api03-",
    "sk-proj-", "hf_", "npm_", "pypi-AgE", "SK", "SG.", "eyJhbGciOi", ".eyJzdWIiOi", "eyJ",
    "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "-----BEGIN ",
    '"private_key_id": "', "AccountKey=", "aws_secret_access_key", "AWS_SECRET = ",
    "password", "PASSWORD=", "passwd: ", "Secret: ", "api_key", "apiKey=", "token = ",
    "Token:", "auth", "credentials", "private_key", "passphrase '", "postgres://app:",
    "@db.internal", "://", "user@", "acme-corp.net", "ana.lima", "@", "+44 20 7946 0958",
    "(020) 7946-0958", "+4915112345678", "4111 1111 1111 1111", "4111-1111-1111-1111",
    "GB82 WEST 1234 5698 7654 32", "DE89370400440532013000", "93.184.216.34", "10.0.0.5",
    "1234", "5678", "0", "42", ".", "-", "_", "=", ":", '"', "'", " ", " ", "\t", "\n", "\n",
    "\r\n", ",", ";", "/", "+", "(", ")", "<token>", "${VAR}", "xxxx", "example",
    "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8", "q8Zr3KfT9wLx2NbV7cHm4PsY6dJg1RaE",
    "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "0123456789abcdef0123456789abcdef", "base64,",
    "data:image/png;base64,iVBORw0KGgo", "Zm9vYmFyYmF6cXV4" * 5 + "Q2xpZW==",
    # Characters where lowercasing, case folding and ASCII part ways.
    "\u017fecret", "\u0131", "\u0130", "\u212a", "\u00e9", "\u00df", "\x1c", "\x1f", "\u00a0",
    "\u0660\u0661\u0662\u0663",
]  # fmt: skip


def made_texts(count: int, seed: int = 29) -> list[str]:
    chance = random.Random(seed)
    return ["".join(chance.choices(PIECES, k=chance.randint(1, 60))) for _ in range(count)]


def own_files() -> list[str]:
    """Some of wisp's own files: code, docs and tests, with the secrets the tests hold."""
    names = ["wisp/scan/rules.py", "wisp/scan/values.py", "docs/scan.md", "README.md"]
    names += [
        str(path.relative_to(ROOT)) for path in sorted((ROOT / "tests").glob("*/test_*.py"))[::9]
    ]
    return [(ROOT / name).read_text() for name in names]


def test_the_searchers_find_what_one_alternation_finds_in_wisps_own_files() -> None:
    for text in own_files():
        assert find(text) == find_by_alternation(text)


@pytest.mark.parametrize("seed", range(4))
def test_the_searchers_find_what_one_alternation_finds_in_made_texts(seed: int) -> None:
    for text in made_texts(150, seed):
        assert find(text) == find_by_alternation(text), repr(text)


@pytest.mark.parametrize(
    "text",
    [
        "\u017fecret = 'hunter2hunter2'",  # (?i) takes the long s for an s
        "\u0130 token = q8Zr3KfT9wLx2NbV7cHm4PsY6dJg1RaE",  # lowercase is longer
        "PASSWORD\x1c=\x1chunter2",  # \s takes \x1c in a str pattern
        "\u212aey: api_key = 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'",
    ],
)
def test_case_folding_and_ascii_do_not_part_the_two(text: str) -> None:
    assert find(text) == find_by_alternation(text)


def test_every_rule_is_searched_from_where_it_can_start() -> None:
    """A rule searched as written is tried at every position of every text: reword it (a
    literal it starts with or holds, a class it starts with) rather than let it slow all."""
    slow = [
        rule.kind
        for rule, searcher in zip(RULES, searchers(), strict=True)
        if isinstance(searcher, AsWritten)
    ]
    assert slow == []
