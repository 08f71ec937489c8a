"""Checks of a matched value: placeholders and test values, hashes and ids, and the sums
that tell a card number or an IBAN from any run of digits."""

from __future__ import annotations

import ipaddress
import re

_PLACEHOLDER_WORDS = re.compile(
    r"(?i)example|placeholder|dummy|redacted|changeme|your[_-]|my[_-]?(?:api|secret|token)|"
    r"xxxx|\*\*\*\*|\.\.\.|…|<[^>]*>|\$\{|\$\(|\{\{|%\(|^\$[A-Za-z_]|REDACTED:"
)
_SAME_CHARACTER = re.compile(r"(.)\1+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_LOWER_RUN = re.compile(r"[a-z]{3,}")
_HASH_LENGTHS = {32, 40, 56, 64, 96, 128}
"""MD5, SHA-1 and git ids, SHA-224, SHA-256 and new git ids, SHA-384, SHA-512."""

_NAMES_AS_VALUES = {"password", "passwd", "pass", "secret", "token", "key", "apikey"}
"""A value that is its own name: `user:PASSWORD@host`, `token=TOKEN`."""

_NOT_A_VALUE = {
    "none",
    "null",
    "nil",
    "true",
    "false",
    "undefined",
    "str",
    "string",
    "int",
    "bool",
    "bytes",
    "optional",
    "required",
    "secret",
    "password",
    "token",
}


def real_value(value: str) -> bool:
    """Whether ``value`` is not a known placeholder or test value (``AKIAIOSFODNN7EXAMPLE``,
    ``xxxx``, ``<token>``, ``${VAR}``, ``your-api-key``, one character repeated)."""
    bare = value.strip("\"'` ")
    if len(bare) < 2 or _SAME_CHARACTER.fullmatch(bare) or bare.lower() in _NAMES_AS_VALUES:
        return False
    return _PLACEHOLDER_WORDS.search(bare) is None


def plausible_assigned(value: str) -> bool:
    """Whether the value of ``password=…`` is a value and not code naming one: a call, an
    attribute, a type, a variable (``os.environ[…]``, ``str``, ``$DB_PASSWORD``)."""
    bare = value.strip("\"'")
    if not real_value(bare) or bare.lower() in _NOT_A_VALUE or bare.startswith("["):
        return False
    if " " in bare:
        return True  # a quoted phrase: `passphrase = 'open sesame'`
    if bare.isdigit() and len(bare) < 4:
        return False  # a count: `BYTES_PER_TOKEN = 4`
    if any(mark in bare for mark in "()[]{}$%<>`"):
        return False
    # `password = self.password`, `token: settings.TOKEN`: an identifier path, not a value.
    return not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+", bare)


def looks_like_token(value: str) -> bool:
    """Whether a long run of token characters is likely a secret rather than a name, a path,
    a hash, a UUID or a git id."""
    core = value.rstrip("=")
    if not real_value(core) or _UUID.fullmatch(core):
        return False
    if _HEX.fullmatch(core):
        return len(core) not in _HASH_LENGTHS and len(core) >= 24
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


def is_card_number(value: str) -> bool:
    """13 to 19 digits, grouped one way throughout, whose Luhn sum checks."""
    digits = [int(c) for c in value if c.isdigit()]
    separators = {c for c in value if not c.isdigit()}
    if not 13 <= len(digits) <= 19 or len(separators) > 1 or len(set(digits)) == 1:
        return False
    total = 0
    for position, digit in enumerate(reversed(digits)):
        if position % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def is_iban(value: str) -> bool:
    """An IBAN: its letters as numbers, the first four characters moved to the end, is 1
    modulo 97."""
    compact = value.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def is_phone(value: str) -> bool:
    """Eight to fifteen digits (E.164's bound), not one digit repeated."""
    digits = [c for c in value if c.isdigit()]
    return 8 <= len(digits) <= 15 and len(set(digits)) > 1


def is_ip_address(value: str) -> bool:
    """A public IPv4 address; loopback, private, unspecified and reserved ones say nothing
    about a person."""
    try:
        address = ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return address.is_global
