"""Masking credential-shaped values: each shape, what stays, and the kinds reported."""

from __future__ import annotations

import pytest

from wisp.redaction import looks_like_token, mask_credentials

# Made-up values in the real shapes; none is a live credential.
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
GITHUB_CLASSIC = "ghp_" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8"
GITHUB_FINE = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"
OPENAI_KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
ANTHROPIC_KEY = "sk-ant-api03-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z-Ab3dEf6h"
STRIPE_KEY = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
SLACK_TOKEN = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
RANDOM_TOKEN = "q8Zr3KfT9wLx2NbV7cHm4PsY6dJg1RaE"
RANDOM_HEX = "8f14e45fceea167a5a36dedd4bea2543a1b2c3d4e5f6"


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (AWS_KEY, "aws-access-key"),
        ("ASIAJEXAMPLEXEG2JICA", "aws-access-key"),
        (GITHUB_CLASSIC, "github-token"),
        (GITHUB_FINE, "github-token"),
        (OPENAI_KEY, "api-key"),
        (ANTHROPIC_KEY, "api-key"),
        (STRIPE_KEY, "api-key"),
        (SLACK_TOKEN, "slack-token"),
        (JWT, "jwt"),
        (PRIVATE_KEY, "private-key"),
        (RANDOM_TOKEN, "token"),
        (RANDOM_HEX, "token"),
    ],
)
def test_a_credential_shape_is_masked_with_its_kind(value: str, kind: str) -> None:
    masked = mask_credentials(f"here: {value} (thanks)")
    assert masked.text == f"here: [masked: {kind}] (thanks)"
    assert masked.kinds == [kind]


@pytest.mark.parametrize(
    ("text", "expected", "kind"),
    [
        ("password=hunter2", "password=[masked: password]", "password"),
        ("Password: hunter2 please", "Password: [masked: password] please", "password"),
        ("passphrase = 'open sesame'", "passphrase = '[masked: password]'", "password"),
        ('{"api_key": "abc123"}', '{"api_key": "[masked: secret]"}', "secret"),
        ("token: 1234", "token: [masked: secret]", "secret"),
        ("client_secret=s3cr3t; next", "client_secret=[masked: secret]; next", "secret"),
    ],
)
def test_the_value_of_a_secret_assignment_is_masked(text: str, expected: str, kind: str) -> None:
    masked = mask_credentials(text)
    assert (masked.text, masked.kinds) == (expected, [kind])


def test_an_assignment_keeps_the_precise_kind_of_its_value() -> None:
    masked = mask_credentials(f"token={GITHUB_CLASSIC}")
    assert (masked.text, masked.kinds) == ("token=[masked: github-token]", ["github-token"])


def test_a_placeholder_value_is_left_alone() -> None:
    assert mask_credentials("password: [redacted]").kinds == []


def test_an_unterminated_private_key_is_masked_to_the_end() -> None:
    text = "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA"
    assert mask_credentials(text).text == "key:\n[masked: private-key]"


def test_text_after_a_private_key_block_stays() -> None:
    masked = mask_credentials(f"{PRIVATE_KEY}\nthat is the deploy key")
    assert masked.text == "[masked: private-key]\nthat is the deploy key"


def test_each_kind_is_reported_once_in_the_order_found() -> None:
    masked = mask_credentials(f"{AWS_KEY} {GITHUB_CLASSIC} {AWS_KEY} password=x")
    assert masked.kinds == ["aws-access-key", "github-token", "password"]
    assert masked.text.count("[masked: aws-access-key]") == 2


@pytest.mark.parametrize(
    "text",
    [
        "the staging environment, please",
        "commit 9a6b9c7e1f2a3b4c5d6e7f8091a2b3c4d5e6f708",  # a git object id
        "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "/usr/lib/x86_64-linux-gnu/libSomethingReally2Long.so.6",
        "https://github.com/encode/httpx/blob/master/httpx/_client.py",
        "AbstractSingletonProxyFactoryBean2023v1",
        "550e8400-e29b-41d4-a716-446655440000",
        "max_tokens: 100",
        "sk-short",
        "the password manager is fine",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    masked = mask_credentials(text)
    assert (masked.text, masked.kinds) == (text, [])


def test_a_mixed_case_word_is_not_a_token() -> None:
    assert not looks_like_token("ThisIsAVeryLongClassNameForTesting123")


def test_a_random_mixed_run_is_a_token() -> None:
    assert looks_like_token(RANDOM_TOKEN)
