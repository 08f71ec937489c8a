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
    aws_secret,
    is_card_number,
    is_iban,
    is_ip_address,
    is_phone,
    looks_like_token,
    plausible_assigned,
    random_secret,
    real_value,
    url_password,
)

PERSONAL_CLASSIFIER = "personal@2"
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
    # Each alternative starts with its own letters (no optional head such as "(?:pg)?"), so
    # the search can start at the keyword (wisp/scan/searching.py).
    r"(?:pgpassw(?:or)?d|passw(?:or)?d|passphrase|pwd|secret|token|api[ _.-]?key|apikey"
    r"|access[_.-]?key|private[_.-]?key|credentials?|auth)"
)
_NAME_START = r"(?:(?<![A-Za-z0-9])|(?<=[a-z])(?=[A-Z]))"
"""Where a keyword may start a word of a name: `DB_PASSWORD`, `clientSecret`, `PGPASSWORD`
(its first letter tried first: most places in a text start no keyword)."""
_ASSIGN = (
    r"[\"']?[ \t]*(?::=|=>|=|:(?![ \t]*(?:"
    # After a colon, prose (`a token: what`, `token: The access token to use.`) and a type
    # (`token: TokenOpt = None`) are no values.
    r"[a-z]+(?:-[a-z]+)*(?![^\s,;'\")\]=])|[A-Za-z]+[ \t]+[A-Za-z]"
    r"|(?:[A-Z][a-z]+){2,}(?![^\s,;)\]=]))))[ \t]*"
)
_VALUE = (
    # Quoted (a Python string's `b`, `u` or `f` before it kept out; a raw string is a pattern
    # or a path), but not a piece that `+` joins to more (`'username:' + …`).
    r"(?:[bBuUfF](?=['\"]))?(?P<v>\"[^\"\n]+\"(?![ \t]*\+)|'[^'\n]+'(?![ \t]*\+)"
    # Unquoted, a YAML tag, anchor or alias (`!vault`, `&default`, `*pw`) names no value; nor
    # does a bare name after ` = ` (`password = value`: code) or before `,` or `)` (an
    # argument, `f(secret=match)`), nor a word an operator follows (`folder / "secret"`).
    r"|(?![!&*][A-Za-z]|[rRbBuUfF]{1,2}['\"])(?!(?<=[ \t]=[ \t])[A-Za-z_]+(?![^\s,;)\]]))"
    r"(?![A-Za-z_][A-Za-z0-9_]*[,)])"
    r"[^\s,;'\"=][^\s,;'\"]*+(?![ \t]+[-+*/%|&][ \t=]))"
)
_HASH_NAME = r"(?i:hash|digest|checksum|fingerprint|sha\d|md5)"
"""A name that says it holds a hash (`password_hash`, `token_sha256`): not a secret."""

RULES: tuple[Rule, ...] = (
    Rule(
        "private-key",
        # A terminated block, or an unterminated one (a cut paste) whose base64 runs on.
        r"-----BEGIN (?P<pk>(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
        r"(?:[\s\S]{16,}?-----END (?P=pk)-----|(?:\\n|\r?\n)[A-Za-z0-9+/=\s\\:,-]{16,})",
    ),
    Rule(
        "gcp-service-account",
        # Also inside a JSON string, its quotes escaped (`\"private_key_id\": \"…\"`).
        r"\\?\"private_key_id\\?\"\s*:\s*\\?\"(?P<v>[0-9a-f]{40})\\?\"",
    ),
    Rule("jwt", rf"{_NOT_BEFORE}eyJ[A-Za-z0-9_-]{{8,}}\.eyJ[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]*"),
    Rule("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    Rule(
        "aws-secret-key",
        # `aws_secret_access_key`, and the names AWS's own tools give it (`SecretAccessKey`
        # from STS, `secret_access_key`, `SecretKey` beside an `AccessKey`).
        r"(?:(?i:aws)[A-Za-z0-9_.-]{0,20}(?i:secret)|(?i:secret)[_.-]?(?i:access)?[_.-]?(?i:key)\b)"
        r"[A-Za-z0-9_.-]{0,20}[\"']?\s*[:=]\s*[\"']?"
        r"(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        aws_secret,
    ),
    Rule("azure-storage-key", r"AccountKey=(?P<v>[A-Za-z0-9+/]{86}==)"),
    Rule("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
    Rule("gitlab-token", rf"\bgl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{{20,}}{_NOT_AFTER}"),
    Rule(
        "slack-token",
        r"\bxox[abposr]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}"
        r"|https://hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+",
    ),
    Rule(
        "stripe-key",
        # Secret and restricted keys, and a webhook endpoint's signing secret.
        rf"\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{{16,}}|whsec_[A-Za-z0-9]{{32,}}){_NOT_AFTER}",
    ),
    Rule("anthropic-key", rf"\bsk-ant-[a-z]+\d*-[A-Za-z0-9_-]{{20,}}{_NOT_AFTER}"),
    Rule("openai-key", rf"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{{20,}}{_NOT_AFTER}"),
    Rule("huggingface-token", rf"\bhf_[A-Za-z0-9]{{30,}}{_NOT_AFTER}"),
    Rule("npm-token", rf"\bnpm_[A-Za-z0-9]{{36}}{_NOT_AFTER}"),
    Rule("pypi-token", rf"\bpypi-AgE[A-Za-z0-9_-]{{50,}}{_NOT_AFTER}"),
    Rule("twilio-key", r"\bSK[0-9a-fA-F]{32}\b"),
    Rule("sendgrid-key", rf"\bSG\.[A-Za-z0-9_-]{{22}}\.[A-Za-z0-9_-]{{43}}{_NOT_AFTER}"),
    Rule(
        "password-in-url",
        # The user may be empty: `redis://:PASSWORD@host`.
        r"\b[a-z][a-z0-9+.-]*://[^\s:/@\"'<>]*:(?P<v>[^\s/@\"'<>]+)@[A-Za-z0-9.\-\[]",
        url_password,
    ),
    Rule(
        "password-assignment",
        # `password=…`, `secret: …`, `DB_PASSWORD=…`, `"api_key": "…"`, `clientSecret: …`: the
        # keyword ends the name (`max_tokens` and `password_min_length` are not secrets).
        # (`DB_PASSWORD`: the name's other words need not be read, only where it starts.)
        # Helm's `checksum/secret:` annotation holds a hash of one; an ARN's `:secret:name`
        # names one.
        rf"{_NAME_START}(?<!checksum/)(?<!:)(?i:{_KEYWORDS}){_ASSIGN}{_VALUE}",
        plausible_assigned,
    ),
    Rule(
        "password-assignment",
        # A name that only mentions a secret (`SECRET_KEY`, `TWILIO_AUTH_TOKEN`,
        # `secret_key_base`; not `Authorization`, a word of its own) or ends in a key or a
        # salt (`ENCRYPTION_KEY`, `routing_key`; not a public key): its value counts when it
        # is long and random.
        rf"(?:{_NAME_START}(?i:{_KEYWORDS})(?![A-Za-z0-9_.-]*?{_HASH_NAME})"
        r"(?:[_.-]|(?<=[a-z])(?=[A-Z0-9]))"
        r"[A-Za-z0-9_.-]*?"
        r"|(?=[_.\-KS])(?<=[A-Za-z0-9])(?<!(?i:public))(?:[_.-](?i:key|salt)|(?<=[a-z])(?:Key|Salt)))"
        rf"{_ASSIGN}{_VALUE}",
        random_secret,
    ),
    Rule(
        "password-assignment",
        # PHP's `define('DB_PASSWORD', '…')` (WordPress's keys and salts too).
        r"\bdefine\(\s*['\"][A-Z0-9_]*(?:PASSWORD|PASS|SECRET|TOKEN|KEY|SALT)['\"]\s*,\s*"
        r"(?P<v>'[^'\n]+'|\"[^\"\n]+\")",
        plausible_assigned,
    ),
    Rule(
        "password-assignment",
        # A command's option: `--password VALUE`, `--auth-token VALUE`, a word of a command
        # line. Unquoted, a lowercase word after it is prose (`the --token flag`).
        rf"-(?<![^\s\"']-)-?(?:[A-Za-z0-9]+-)*(?i:{_KEYWORDS})[ \t]+"
        r"(?P<v>\"[^\"\n]+\"|'[^'\n]+'|(?![a-z]+\b)[^\s,;'\"=-][^\s,;'\"]*)",
        plausible_assigned,
    ),
    Rule(
        "generic-secret",
        # A long run of token characters with a keyword before it on its line. A base64 image
        # (`data:image/png;base64,…`), a digest (`sha512-…`, `h1:…`, `SHA256:…`, `sha256=…`)
        # and a password hash's fields (`$argon2id$…$…`) are no secrets.
        rf"(?i:{_KEYWORDS})[^\n]{{0,40}}?(?<![A-Za-z0-9_.$+/\-])(?<!base64,)"
        r"(?<![Ss][Hh][Aa]1[-:=])(?<![Ss][Hh][Aa]\d\d\d[-:=])(?<!h1:)(?<![Mm][Dd]5[-:=])"
        r"(?P<v>[A-Za-z0-9+/_-](?:[A-Za-z0-9+/_.-]{18,}[A-Za-z0-9+/_-])={0,2})"
        r"(?![A-Za-z0-9+/_=-]|\.[A-Za-z0-9+/_-])",
        looks_like_token,
    ),
    Rule(
        "email",
        # Not a URL's user (`https://KEY@o1.ingest.sentry.io`), not after an escape (`\n@dec`),
        # not a git remote (`git@github.com:org/repo`), not an SSH algorithm's name
        # (`aes256-gcm@openssh.com`).
        r"(?:(?<=\\[nrt])|(?<![A-Za-z0-9._%+\\-]))(?<!//)"
        r"[A-Za-z0-9._%+-]+@(?!openssh\.com\b)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"
        r"(?!:[^\s])",
    ),
    Rule("iban", r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b", is_iban),
    Rule(
        "card-number",
        # Fours (`4111 1111 1111 1111`), or American Express's and Diners Club's 4-6-5 and 4-6-4.
        # Never glued to letters: a run of digits in hex (`…6170706c…`, `0x4073…`) is none.
        r"\d(?<![\w.-]\d)\d{3}(?:(?:[ -]?\d{4}){2}[ -]?\d{1,7}|[ -]\d{6}[ -]\d{4,5})"
        r"(?![\w-]|\.\d)",
        is_card_number,
    ),
    Rule(
        "phone",
        # International: `+`, the country's code and groups of digits, or all of them together
        # (not a place's `+DDMM-DDDMM`). National: a trunk `0` and groups split by spaces,
        # dashes or slashes, never dots (so no dates). North American: three, three and four
        # digits, the first three maybe in brackets. Each starts with the character it needs,
        # and only then looks behind it: most places in a text start none.
        r"\+(?<![\w+.-]\+)(?:\d{1,3}(?:[ .-]?\(\d{1,4}\)[ .-]?\d{1,8})?(?:[ .-]\d{1,8}){1,6}"
        r"|\d{8,14})(?![\w-]|\.\d)"
        r"|0(?<![\w+./-]0)[1-9]\d{0,3}(?:[ /-]\d{2,8}){1,4}(?![\w/-]|\.\d)"
        r"|(?:\((?<![\w+.-]\()\d{3}\)[ ]?|\d(?<![\w+.-]\d)\d{2}[ .-])\d{3}[ .-]\d{4}"
        r"(?![\w-]|\.\d)",
        is_phone,
    ),
    Rule(
        "ip-address",
        # Not a product's version (`Chrome/120.0.6099.109`, `version 2.14.0.1`, `>=1.2.0.2`),
        # a section (`Section 8.4.1.13`, after a section sign, `[3.3.2.14]`), nor a network.
        r"\d(?<![\w.]\d)(?<![A-Za-z]/\d)(?<![Vv]ersion \d)(?<![Ss]ection[ -]\d)(?<!\u00a7\d)"
        r"(?<![=<>~!]=\d)(?<![<>\[]\d)\d{0,2}\.(?:\d{1,3}\.){2}\d{1,3}(?![\w.]|/\d)",
        is_ip_address,
    ),
    Rule(
        "ip-address",
        # IPv6, global unicast (the block of the addresses that start with a 2 or a 3), in full
        # or with `::`; not a network (`/48`).
        r"[23](?<![\w:.][23])[0-9a-fA-F]{3}(?::[0-9a-fA-F]{0,4}){2,7}(?![\w:.]|/\d)",
        is_ip_address,
    ),
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
