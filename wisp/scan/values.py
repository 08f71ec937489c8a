"""Checks of a matched value: placeholders and test values, hashes and ids, code naming a
value, and the sums and number plans that tell a card number, an IBAN, a phone number or an
address from any run of digits."""

from __future__ import annotations

import ipaddress
import math
import re
from collections import Counter

_PLACEHOLDER_WORDS = re.compile(
    r"(?i)example|placeholder|dummy|redacted|change[_-]?me|replace[_-]?me|your[ _-]|"
    r"my[_-]?(?:api|secret|token|pass)|xxxx|fake|REDACTED:"
)
"""Words that say a value is a stand-in, wherever they are in it."""
_PLACEHOLDER_SHAPES = re.compile(r"\*\*\*|\.\.\.|…|<[^>]*>|\$\{|\$\(|\{\{|%\(|^\$[A-Za-z_]")
"""Masks, ellipses and template or shell references (`<token>`, `${VAR}`, `{{ x }}`,
`%(x)s`, `$VAR`): a stand-in when typed, but a generated key may hold them by chance."""
_STAND_INS = frozenset({"foo", "bar", "baz", "qux", "foobar", "blah", "abc", "xyz"})
"""The names every example uses for a value: `{'password': 'bar'}`."""
_SELF_NAMING = re.compile(
    r"(?i)(?:^|[-_. ])(?:secret|passw(?:or)?d|token|api[-_]?key|key)(?:$|[-_. ])"
)
"""A value that names what it stands for (`my-client-secret`, `fal-ai-api-key`,
`X-API-Key`, `not-a-real-secret`): an example or a header's name, not a secret."""
_SAME_CHARACTER = re.compile(r"(.)\1+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}")
_LOWER_RUN = re.compile(r"[a-z]{3,}")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IDENTIFIER_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_SMALL_NUMBER = re.compile(r"[-+]?\d{1,3}(?:\.\d+)?")
_SECRET_WORD = re.compile(r"(?i)passw|secret|token|key|auth|credential")
_TWILIO_SID = re.compile(r"[A-Z]{2}[0-9a-f]{32}")
"""An account's or a message's id at Twilio (`AC…`, `SM…`): named beside keys, not one."""
_NOT_SECRET_PREFIX = re.compile(r"(?i)(?:sha\d{1,3}|md5|h1)[-:=]|pk_(?:live|test)_")
"""A digest with its algorithm named (`sha384-…`, `h1:…`) and a publishable key (Stripe's
`pk_live_…`, made to be shown in a page): no secrets, whatever their name says."""
_HASH_LENGTHS = {32, 40, 56, 64, 96, 128}
"""MD5, SHA-1 and git ids, SHA-224, SHA-256 and new git ids, SHA-384, SHA-512."""
_NAME_LENGTH = 32
"""The longest identifier one part of a dotted name is taken to be."""
_PHRASE_WORDS = 5
"""A passphrase is a few words; a quoted sentence is prose (a help text, a message)."""

_GENERATED_LENGTH = 32
_GENERATED_ENTROPY = 4.5
"""Bits a character: a value this long and this varied was generated, not typed."""
_GENERATED_MARKS = 8
"""Different punctuation marks in a generated key (a WordPress salt draws on 30, a Django key
on 14)..."""
_GENERATED_ALNUM = 0.5
"""...which are still mostly letters and digits, and seldom repeat a pair of characters (once
in 16), where a regular expression or a piece of code is mostly marks, and repeats `(?:`."""
_GENERATED_REPEATS = 16

_KNOWN_TEST_VALUES = {
    # jwt.io's example token (John Doe, signed with "your-256-bit-secret").
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"
    "aWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
}
_TEST_CARDS = {
    "4242424242424242",
    "4111111111111111",
    "4000056655665556",
    "5555555555554444",
    "5105105105105100",
    "378282246310005",
    "371449635398431",
    "6011111111111117",
}
"""The card numbers payment providers document for their sandboxes."""

_NAMES_AS_VALUES = {"password", "passwd", "pass", "pwd", "secret", "token", "key", "apikey"}
"""A value that is its own name: `user:PASSWORD@host`, `token=TOKEN`."""
_DEFAULT_PASSWORDS = frozenset({"guest", "postgres"})
"""Passwords software ships with and documents (RabbitMQ's `guest:guest`, the Postgres
image's `postgres`): known to everyone, so nothing is leaked."""

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
    # Code: what follows `=` in `const token = await …`, `ok = not …`.
    "await",
    "new",
    "async",
    "function",
    "lambda",
    "yield",
    "typeof",
    "this",
    "self",
    "void",
    "not",
    "and",
    "or",
    "is",
    "in",
    "if",
    "!0",  # minified `true` and `false`
    "!1",
}

# X.509's attribute and extension OIDs (2.5.4.N, 2.5.29.N), the internet's (1.3.6.1) and the
# Edwards curves' (1.3.101.N): dotted like an address in every certificate library.
_OID_NETWORKS = tuple(
    ipaddress.ip_network(network)
    for network in ("2.5.4.0/24", "2.5.29.0/24", "1.3.6.1/32", "1.3.101.0/24")
)


def real_value(value: str) -> bool:
    """Whether ``value`` is not a known placeholder or test value (``AKIAIOSFODNN7EXAMPLE``,
    ``xxxx``, ``<token>``, ``${VAR}``, ``your-api-key``, one character repeated)."""
    bare = value.strip("\"'` ")
    if len(bare) < 2 or _SAME_CHARACTER.fullmatch(bare) or bare.lower() in _NAMES_AS_VALUES:
        return False
    if bare in _KNOWN_TEST_VALUES or bare.lower() in _STAND_INS:
        return False
    if _PLACEHOLDER_WORDS.search(bare):
        return False
    return _PLACEHOLDER_SHAPES.search(bare) is None


def plausible_assigned(value: str) -> bool:
    """Whether the value of ``password=…`` is a value and not code naming one: a call, an
    attribute, a type, a variable (``os.environ[…]``, ``str``, ``$DB_PASSWORD``)."""
    bare = value.strip("\"'")
    if _PLACEHOLDER_WORDS.search(bare) or _NOT_SECRET_PREFIX.match(bare):
        return False
    if _generated(bare):
        return True  # `$`, `(`, `<` by chance: a salt, not code
    if _SELF_NAMING.search(bare):
        return False
    if not real_value(bare) or bare.lower() in _NOT_A_VALUE | _DEFAULT_PASSWORDS:
        return False
    if bare.startswith(("[", "{", "?", "/", "./", "../", "~/")) or _COLOUR.fullmatch(bare):
        return False  # a list or object, `${X:?unset}`, a path, a colour
    if " " in bare:
        return _passphrase(bare)
    if _SMALL_NUMBER.fullmatch(bare):
        return False  # a count: `BYTES_PER_TOKEN = 4`, `token = -1`
    return not _code(bare)


def _passphrase(phrase: str) -> bool:
    """A quoted phrase that may be a passphrase (`'open sesame'`), not a sentence, a phrase
    naming the secret (`"a secret"`, `"My API Key"`) or code (`' + key + '`)."""
    if phrase != phrase.strip() or _SECRET_WORD.search(phrase):
        return False
    if any(mark in phrase for mark in "(){}[]%"):
        return False  # a format string: `"!end {}".format(…)`
    return len(phrase.split()) <= _PHRASE_WORDS


def _code(value: str) -> bool:
    """Whether an unspaced value is code naming a value: a call or an index, an operator, an
    identifier path (`self.password`), a constant (`FG_DEFAULT`), a variable named like a
    secret (`refresh_token`, `STRIPE_API_KEY`, `auth`) or a type (`SecretStr`)."""
    if any(mark in value for mark in "()[]{}$%<>`") or "||" in value or "&&" in value:
        return True
    if _CONSTANT.fullmatch(value):
        return True
    if _IDENTIFIER.fullmatch(value) and _SECRET_WORD.search(value):
        return "_" in value or not any(c.isdigit() for c in value)
    return _IDENTIFIER_PATH.fullmatch(value) is not None


def url_password(value: str) -> bool:
    """Whether the password of ``scheme://user:PASSWORD@host`` is one: not a placeholder,
    not one naming itself (``mypassword``, ``a%20secret``), not the default the software
    ships with (``guest:guest``)."""
    if not real_value(value) or _SECRET_WORD.search(value) or value.lower() in _STAND_INS:
        return False
    return value.lower() not in _DEFAULT_PASSWORDS


def random_secret(value: str) -> bool:
    """Whether the value given to a name that only mentions a secret (``SECRET_KEY``,
    ``routing_key``, ``TWILIO_AUTH_TOKEN``) is one: long and random, hex included (a key
    from ``openssl rand -hex``), never words, a phrase, code, a path, a UUID or a URL."""
    bare = value.strip("\"'")
    if _PLACEHOLDER_WORDS.search(bare) or _NOT_SECRET_PREFIX.match(bare):
        return False
    if _generated(bare):
        return True
    if len(bare) < 16 or " " in bare or not real_value(bare) or _UUID.fullmatch(bare):
        return False
    if _HEX.fullmatch(bare):
        return True
    if bare.startswith("/") or "//" in bare or _reads_as_words(bare) or _code(bare):
        return False
    has_lower = any(c.islower() for c in bare)
    has_upper_or_digit = any(c.isupper() or c.isdigit() for c in bare)
    return has_lower and has_upper_or_digit and _entropy(bare) >= 3.5


def aws_secret(value: str) -> bool:
    """Forty characters of base64 as AWS makes them: not a placeholder, not hex (a SHA-1)."""
    return real_value(value) and _HEX.fullmatch(value) is None


def looks_like_token(value: str) -> bool:
    """Whether a long run of token characters is likely a secret rather than a name, a path,
    a hash, a UUID or a git id."""
    core = value.rstrip("=")
    if not real_value(core) or _UUID.fullmatch(core) or _TWILIO_SID.fullmatch(core):
        return False
    if _HEX.fullmatch(core):
        return len(core) not in _HASH_LENGTHS and len(core) >= 24
    if core.startswith("/") or "//" in core or _dotted_name(core):
        return False  # a path or a name (`ed25519.Ed25519PrivateKey`), not a key
    has_upper = any(c.isupper() for c in core)
    has_lower = any(c.islower() for c in core)
    digits = sum(c.isdigit() for c in core)
    return has_upper and has_lower and digits >= 2 and not _reads_as_words(core)


def _dotted_name(core: str) -> bool:
    """A name in code (`module.Class`): identifiers joined by dots, each of a name's length,
    where a token's random part (`hvs.…`, `SG.….…`) runs on far longer."""
    return _IDENTIFIER_PATH.fullmatch(core) is not None and all(
        len(part) <= _NAME_LENGTH for part in core.split(".")
    )


def _reads_as_words(core: str) -> bool:
    """Names (``AbstractProxyFactoryBean2``) are mostly lowercase runs of three or more
    letters; random text rarely has one."""
    in_words = sum(len(run) for run in _LOWER_RUN.findall(core))
    return in_words >= 0.4 * len(core)


def _generated(value: str) -> bool:
    """Long, varied and full of different marks: a generated key (a WordPress salt, a Django
    secret key), whatever punctuation it happens to hold."""
    if len(value) < _GENERATED_LENGTH or value.count(" ") > 2:
        return False
    marks = {c for c in value if not c.isalnum() and c != " "}
    if len(marks) < _GENERATED_MARKS:
        return False
    if sum(c.isalnum() for c in value) < _GENERATED_ALNUM * len(value):
        return False
    pairs = Counter(value[i : i + 2] for i in range(len(value) - 1))
    repeated = sum(n - 1 for n in pairs.values() if n > 1)
    return repeated <= len(value) // _GENERATED_REPEATS and _entropy(value) >= _GENERATED_ENTROPY


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


# Issuer prefixes and lengths (ISO/IEC 7812): Visa, Mastercard, American Express, Discover,
# JCB, Diners Club, UnionPay, Maestro.
_CARD_PLANS = (
    (re.compile(r"4"), {13, 16}),
    (re.compile(r"5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720"), {16}),
    (re.compile(r"3[47]"), {15}),
    (re.compile(r"6011|64[4-9]|65"), {16, 17, 18, 19}),
    (re.compile(r"35(?:2[89]|[3-8]\d)"), {16, 17, 18, 19}),
    (re.compile(r"30[0-5]|36|38|39"), {14, 15, 16, 17, 18, 19}),
    (re.compile(r"62"), {16, 17, 18, 19}),
    (re.compile(r"5[06-8]|67"), {12, 13, 14, 15, 16, 17, 18, 19}),
)


def is_card_number(value: str) -> bool:
    """13 to 19 digits, grouped one way throughout, of a card issuer's prefix and length,
    whose Luhn sum checks; the sandbox numbers payment providers publish are not."""
    number = "".join(c for c in value if c.isdigit())
    separators = {c for c in value if not c.isdigit()}
    if not 13 <= len(number) <= 19 or len(separators) > 1 or len(set(number)) == 1:
        return False
    if number in _TEST_CARDS or not _issued(number):
        return False
    total = 0
    for position, digit in enumerate(int(c) for c in reversed(number)):
        if position % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def _issued(number: str) -> bool:
    return any(prefix.match(number) and len(number) in lengths for prefix, lengths in _CARD_PLANS)


def is_iban(value: str) -> bool:
    """An IBAN: its letters as numbers, the first four characters moved to the end, is 1
    modulo 97."""
    compact = value.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def is_phone(value: str) -> bool:
    """Eight to fifteen digits (E.164's bound), ten or more after a national ``0`` (so that
    ``01-02-2024`` is a date and ``02110-1301`` a ZIP code), eleven after ``+1`` (North
    America's plan, where 555-01XX is kept for fiction), not one digit repeated, not a
    counting run (``123-456-7890``)."""
    digits = "".join(c for c in value if c.isdigit())
    if value.startswith("0") and len(digits) < 10:
        return False
    if value.startswith("+1") and (len(digits) != 11 or digits[4:8] == "5550"):
        return False
    if digits in "01234567890123456789" or digits in "98765432109876543210":
        return False
    return 8 <= len(digits) <= 15 and len(set(digits)) > 1


def is_ip_address(value: str) -> bool:
    """A public address, IPv4 or IPv6, of someone: not loopback, private, multicast,
    unspecified, reserved or for documentation; not a network's ``x.x.x.0``; not a version or
    a section number (``4.1.2.1``, ``1.2.3.4``: three small numbers after the first, as a
    person's address almost never has), nor an OID."""
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return False
    if address.version == 4:
        octets = [int(octet) for octet in value.split(".")]
        if octets[3] == 0 or all(octet < 10 for octet in octets[1:]):
            return False
        if any(address in network for network in _OID_NETWORKS):
            return False
    return address.is_global and not address.is_multicast
