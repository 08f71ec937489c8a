"""Secret settings: one flag on the Setting, and everything derived from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from wisp.config import SETTINGS, Config
from wisp.config.secrets import (
    REDACTED,
    SECRETS,
    command_environment,
    is_secret,
    model_environment,
    redacted,
    secret_variable,
)
from wisp.models.http import api_key
from wisp.models.openai_wire import DIALECTS


def test_the_secrets_are_the_api_keys_the_backends_read() -> None:
    assert {f"{scheme}.apiKey" for scheme in DIALECTS} == SECRETS
    assert all(SETTINGS[path].secret for path in SECRETS)


@pytest.mark.parametrize("path", sorted(SECRETS))
def test_each_secret_is_read_from_config_and_from_its_variable(path: str) -> None:
    scheme = path.split(".")[0]
    config = Config(Path("/nonexistent/config.json"), {scheme: {"apiKey": "from-file"}})
    stored = config.settings.openai_compatible(scheme).api_key
    assert api_key(scheme, stored, {}).source == "config.json"  # type: ignore[union-attr]
    variable = secret_variable(path)
    assert api_key(scheme, stored, {variable: "env"}).source == variable  # type: ignore[union-attr]
    assert command_environment({variable: "env"}) == {}


def test_an_unknown_key_named_like_a_secret_is_one_and_tokens_are_not() -> None:
    assert is_secret("plugin.auth.token") and is_secret(("x", "password"))
    assert not is_secret("agent.maxTokens") and not is_secret("openai.baseURL")


def test_redacted_replaces_each_secret_below_a_key() -> None:
    value = {"apiKey": "sk-1", "baseURL": "http://h/v1", "models": {"m": {"think": True}}}
    assert redacted("openai", value) == {**value, "apiKey": REDACTED}
    assert redacted("openai.apiKey", "sk-1") == REDACTED
    assert redacted("openai.apiKey", None) is None
    assert redacted("audit.keepFiles", 3) == 3


def test_a_commands_environment_drops_the_api_key_family_only() -> None:
    environ = {
        "WISP_OPENAI_API_KEY": "a",
        "WISP_NEW_RUNTIME_API_KEY": "b",
        "WISP_HOME": "/h",
        "OPENAI_API_KEY": "the person's own",
        "PATH": "/bin",
    }
    assert command_environment(environ) == {
        "WISP_HOME": "/h",
        "OPENAI_API_KEY": "the person's own",
        "PATH": "/bin",
    }


def test_a_value_where_a_key_was_meant_one_level_up_is_redacted_too() -> None:
    # `wisp config set openai sk-…`: the key was meant for openai.apiKey.
    assert redacted("openai", "sk-1") == REDACTED
    assert redacted("ollama", "http://h") == "http://h"  # ollama holds no key


def test_the_models_commands_lose_every_credential_but_those_passed() -> None:
    environ = {
        "WISP_OPENAI_API_KEY": "wisp's",
        "OPENAI_API_KEY": "the person's",
        "hf_token": "any case",
        "AWS_SECRET_ACCESS_KEY": "aws",
        "PGPASSWORD": "pg",
        "GITHUB_TOKEN": "passed",
        "PATH": "/usr/bin",
    }
    kept, withheld = model_environment(environ, ["GITHUB_TOKEN"])
    assert kept == {"GITHUB_TOKEN": "passed", "PATH": "/usr/bin"}
    assert withheld == ["AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY", "PGPASSWORD", "hf_token"]
