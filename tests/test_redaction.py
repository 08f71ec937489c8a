"""Masking credential-shaped values in what the person typed: the scan's rules and marker,
secrets only."""

from __future__ import annotations

import pytest

from wisp.redaction import mask_credentials

GITHUB_CLASSIC = "ghp_" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8"
AWS_KEY = "AKIA" + "QWERTYUIOPASDFGH"
PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password=hunter2", "password=[REDACTED:password-assignment]"),
        ("Password: hunter2 please", "Password: [REDACTED:password-assignment] please"),
        ("passphrase = 'open sesame'", "passphrase = '[REDACTED:password-assignment]'"),
        ('{"api_key": "abc123"}', '{"api_key": "[REDACTED:password-assignment]"}'),
        ("token: 1234", "token: [REDACTED:password-assignment]"),
        ("client_secret=s3cr3t; next", "client_secret=[REDACTED:password-assignment]; next"),
    ],
)
def test_the_value_of_a_secret_assignment_is_masked(text: str, expected: str) -> None:
    masked = mask_credentials(text)
    assert (masked.text, masked.kinds) == (expected, ["password-assignment"])


def test_an_assignment_keeps_the_precise_kind_of_its_value() -> None:
    masked = mask_credentials(f"token={GITHUB_CLASSIC}")
    assert (masked.text, masked.kinds) == ("token=[REDACTED:github-token]", ["github-token"])


def test_a_placeholder_value_is_left_alone() -> None:
    assert mask_credentials("password: [redacted]").kinds == []


def test_text_after_a_private_key_block_stays_and_the_lines_hold() -> None:
    masked = mask_credentials(f"{PRIVATE_KEY}\nthat is the deploy key")
    assert masked.text == "[REDACTED:private-key]\n\n\nthat is the deploy key"


def test_each_kind_is_reported_once_in_the_order_found() -> None:
    masked = mask_credentials(f"{AWS_KEY} {GITHUB_CLASSIC} {AWS_KEY} password=x9")
    assert masked.kinds == ["aws-access-key", "github-token", "password-assignment"]
    assert masked.text.count("[REDACTED:aws-access-key]") == 2


def test_personal_data_in_an_answer_reaches_the_model() -> None:
    text = "deploy to 93.184.216.34 and mail ops@acme-corp.net"
    masked = mask_credentials(text)
    assert (masked.text, masked.kinds) == (text, [])
