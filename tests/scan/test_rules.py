"""The one rule set: each kind found in the surroundings it turns up in, and the values that
look like secrets and are not (placeholders, hashes, UUIDs, git ids, images) left alone."""

from __future__ import annotations

import pytest

from wisp.scan import KINDS, Finding, find, redact

# Made-up values in the real shapes, put together here so no whole one sits in the source;
# none is a live credential.
AWS_ACCESS = "AKIA" + "QWERTYUIOPASDFGH"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzQ3wE9k2Lm"
AZURE_KEY = "Zm9vYmFyYmF6cXV4" * 5 + "Q2xpZW" + "=="
GITHUB = "ghp_" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8"
GITLAB = "glpat-" + "x9Qw8Er7Ty6Ui5Op4As3"
SLACK = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
OPENAI = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
ANTHROPIC = "sk-ant-api03-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z-Ab3dEf6h"
HUGGINGFACE = "hf_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zQ"
NPM = "npm_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zQr7s"
PYPI = "pypi-AgEIcHlwaS5vcmc" + "CJGQ5ZmY4YmM3LTk2YzItNGM0Yy1hYjI0LWM0ZTRkOGZiNDZiNwACKlsz"
TWILIO = "SK" + "0123456789abcdef0123456789abcdef"
SENDGRID = "SG." + "Ab3dEf6hIj9kLm2nOp5qRs" + "." + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zQr7sT0uV2wX"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM_BODY = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Lp9CxQ1dGqfJ1oD7u0b6yV8Wk3e\n"
RSA_KEY = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}-----END RSA PRIVATE KEY-----"
OPENSSH_KEY = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}-----END OPENSSH PRIVATE KEY-----"
PGP_KEY = f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{PEM_BODY}-----END PGP PRIVATE KEY BLOCK-----"
GCP_KEY_ID = "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f"


def values(text: str) -> list[tuple[str, str]]:
    return [(finding.kind, text[finding.start : finding.end]) for finding in find(text)]


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        (f"export AWS_ACCESS_KEY_ID={AWS_ACCESS}\n", "aws-access-key", AWS_ACCESS),
        (f"aws_secret_access_key = {AWS_SECRET}\n", "aws-secret-key", AWS_SECRET),
        (
            f'{{"type": "service_account", "private_key_id": "{GCP_KEY_ID}"}}',
            "gcp-service-account",
            GCP_KEY_ID,
        ),
        (
            f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={AZURE_KEY};",
            "azure-storage-key",
            AZURE_KEY,
        ),
        (
            f"git remote set-url origin https://oauth2:{GITHUB}@github.com/acme/app.git",
            "github-token",
            GITHUB,
        ),
        (f"  GITLAB_TOKEN: {GITLAB}\n", "gitlab-token", GITLAB),
        (f"curl -H 'Authorization: Bearer {SLACK}'", "slack-token", SLACK),
        (f'stripe.api_key = "{STRIPE}"', "stripe-key", STRIPE),
        (f"OPENAI_API_KEY={OPENAI}", "openai-key", OPENAI),
        (f"client = Anthropic(api_key='{ANTHROPIC}')", "anthropic-key", ANTHROPIC),
        (f"$ huggingface-cli login --token {HUGGINGFACE}", "huggingface-token", HUGGINGFACE),
        (f"//registry.npmjs.org/:_authToken={NPM}", "npm-token", NPM),
        (f"[pypi]\n  username = __token__\n  password = {PYPI}\n", "pypi-token", PYPI),
        (f"twilio api key {TWILIO} in use", "twilio-key", TWILIO),
        (f"SENDGRID_API_KEY='{SENDGRID}'", "sendgrid-key", SENDGRID),
        (f"2024-05-01 INFO request Authorization: Bearer {JWT} ok", "jwt", JWT),
        (f"key:\n{RSA_KEY}\n", "private-key", RSA_KEY),
        (f"{OPENSSH_KEY}\n", "private-key", OPENSSH_KEY),
        (f"{PGP_KEY}\n", "private-key", PGP_KEY),
        (
            "DATABASE_URL=postgres://app:Tr0ub4dor@db.internal:5432/app",
            "password-in-url",
            "Tr0ub4dor",
        ),
        ("DB_PASSWORD=hunter2\n", "password-assignment", "hunter2"),
        ('settings:\n  secret: "n0t-so-s3cret"\n', "password-assignment", "n0t-so-s3cret"),
        (
            "the deploy token is q8Zr3KfT9wLx2NbV7cHm4PsY6dJg1RaE, keep it",
            "generic-secret",
            "q8Zr3KfT9wLx2NbV7cHm4PsY6dJg1RaE",
        ),
        ("From: Ana Lima <ana.lima@acme-corp.net>", "email", "ana.lima@acme-corp.net"),
        ("call me on +44 20 7946 0958 tomorrow", "phone", "+44 20 7946 0958"),
        ("IBAN: GB82 WEST 1234 5698 7654 32", "iban", "GB82 WEST 1234 5698 7654 32"),
        ("card 4341 6721 1068 4038 exp 12/29", "card-number", "4341 6721 1068 4038"),
        ("Accepted publickey from 93.184.216.34 port 52113", "ip-address", "93.184.216.34"),
    ],
)
def test_each_kind_is_found_in_its_surroundings(text: str, kind: str, value: str) -> None:
    assert values(text) == [(kind, value)]


def test_every_kind_has_a_test_above() -> None:
    tested = {
        "aws-access-key", "aws-secret-key", "gcp-service-account", "azure-storage-key",
        "github-token", "gitlab-token", "slack-token", "stripe-key", "openai-key",
        "anthropic-key", "huggingface-token", "npm-token", "pypi-token", "twilio-key",
        "sendgrid-key", "jwt", "private-key", "password-in-url", "password-assignment",
        "generic-secret", "email", "phone", "iban", "card-number", "ip-address",
    }  # fmt: skip
    assert set(KINDS) == tested


@pytest.mark.parametrize(
    "text",
    [
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "password: xxxx",
        "password = <token>",
        "PASSWORD=${DB_PASSWORD}",
        "api_key: your-api-key",
        "secret = 'aaaaaaaaaaaaaaaa'",
        "password = os.environ['DB_PASSWORD']",
        "password: str",
        "def login(password: str = None):",
        "max_tokens: 100",
        "password_min_length: 8",
        "commit 9a6b9c7e1f2a3b4c5d6e7f8091a2b3c4d5e6f708 by the token rotation job",
        "secret sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "request id (token) 550e8400-e29b-41d4-a716-446655440000",
        "md5 of the api key file: d41d8cd98f00b204e9800998ecf8427e",
        "key icon: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4",
        "AbstractSingletonProxyFactoryBean2023v1 token handler",
        "listening on 127.0.0.1:8080 and 10.0.0.5, mask 255.255.255.0",
        "mail alice@example.com for the token",
        "build 20240501123456 took 1234567 ms",
        "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
        'if line.startswith("-----BEGIN PRIVATE KEY-----"):',
        "BYTES_PER_TOKEN = 4",
        '"""The size at four bytes a token: what wisp counts"""',
        'if secret := environ.get(variable, ""):',
        "if password == expected:",
        '_TOKEN = r"A-Za-z0-9_"',
        "# `password=…` is masked",
        "postgres://user:PASSWORD@host/db",
        "test card 4242 4242 4242 4242 or 4111 1111 1111 1111, any date",
        # From a scan of a virtual environment: code, docs and data that only look the part.
        "def send(self, token: TokenOpt = None, auth: Auth = None) -> None:",
        "    token: The access token to verify.",
        "    return self.send(request, auth=auth, secret=match)",
        "username, password = value",
        'end_token = "!end {}".format(" ".join(bits))',
        "_core_token = r'(?:(?:\\^[{_nl}]?)?[^\"{_nlws}{_punct}])+'",
        'client_secret="my-client-secret", api_key="X-API-Key"',
        "auth/handlers/authorize.py,sha256=AfDGhtNQpe1CLmy3G2ZkPer8o0j5jC4viX-FpYi82pg,7172",
        "US\t+384452-0850402\tAmerica/Indiana/Vevay",
        "# 51 Franklin Street, Boston, MA 02110-1301  USA",
        'KEY_USAGE = ObjectIdentifier("2.5.29.15")',
        "# According to RFC 9110 section 8.4.1.3, recipients should",
        'b"aes256-gcm@openssh.com" and git@github.com:acme/app.git',
        'choice_hash = "4266599d12bfcfb815213303432341c06b4349f5455890446578877bb322e222"',
        "00000010  02 00 3e 00 01 00 00 00  c5 48 40 00 00 00 00 00",
    ],
)
def test_placeholders_hashes_and_ids_are_not_findings(text: str) -> None:
    assert find(text) == []


def test_a_finding_has_its_line_and_column() -> None:
    text = f"first line\n  token = {GITHUB}\n"
    (finding,) = find(text)
    assert finding == Finding("github-token", 21, 21 + len(GITHUB), 2, 11)


def test_redaction_keeps_every_other_character_and_the_line_count() -> None:
    text = f"id={AWS_ACCESS} # ci\n{RSA_KEY}\nmail ana.lima@acme-corp.net\n"
    redacted = redact(text)
    assert redacted == (
        "id=[REDACTED:aws-access-key] # ci\n[REDACTED:private-key]\n\n\nmail [REDACTED:email]\n"
    )
    assert redacted.count("\n") == text.count("\n")
