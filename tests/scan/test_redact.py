"""``redact``: each finding replaced by its marker, every other character as it was, and the
line count held."""

from __future__ import annotations

import re

from wisp.scan import find, redact

AWS_ACCESS = "AKIA" + "QWERTYUIOPASDFGH"
PEM_BODY = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Lp9CxQ1dGqfJ1oD7u0b6yV8Wk3e"
MARKER = re.compile(r"\[REDACTED:[a-z-]+\]")


def test_every_character_outside_a_finding_is_unchanged() -> None:
    text = (
        "# deploy.env\r\n"
        f"AWS_ACCESS_KEY_ID={AWS_ACCESS}\r\n"
        "\tREGION = eu-west-1   \n"
        "OWNER=ana.lima@acme-corp.net\n"
        "ünïcödé stays, so do trailing spaces   \n"
    )
    redacted = redact(text)
    findings = find(text)
    assert [finding.kind for finding in findings] == ["aws-access-key", "email"]
    # Putting the values back gives the text, byte for byte.
    values = iter(text[finding.start : finding.end] for finding in findings)
    assert MARKER.sub(lambda _: next(values), redacted) == text


def test_a_multi_line_key_keeps_its_line_breaks_as_they_were() -> None:
    text = (
        "key:\r\n-----BEGIN RSA PRIVATE KEY-----\r\n"
        f"{PEM_BODY}\r\n-----END RSA PRIVATE KEY-----\r\nafter\r\n"
    )
    redacted = redact(text)
    assert redacted == "key:\r\n[REDACTED:private-key]\r\n\r\n\r\nafter\r\n"
    assert redacted.splitlines() == ["key:", "[REDACTED:private-key]", "", "", "after"]


def test_an_unterminated_key_is_redacted_to_the_end_of_its_base64() -> None:
    text = f"pasted:\n-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n{PEM_BODY}"
    assert redact(text) == "pasted:\n[REDACTED:private-key]\n\n"


def test_text_with_nothing_found_comes_back_whole() -> None:
    text = "nothing here but a sha 9a6b9c7e1f2a3b4c5d6e7f8091a2b3c4d5e6f708\n"
    assert redact(text) == text
