"""Secret settings (API keys): which they are, and how they are shown, recorded and withheld.

A secret goes to the server it is for and nowhere else. ``wisp config`` and the inspect tool
show it as ``set (config.json)`` (or ``set (WISP_OPENAI_API_KEY)``), never its value; the audit
log records ``"[redacted]"`` in its place; and commands run without the ``WISP_*_API_KEY``
variables that stand in for the keys. Which settings are secret is said once, by
``Setting.secret``; an unknown key (a plugin's) counts as one when its name reads as one.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from wisp.config.paths import join_path
from wisp.config.settings import SETTINGS, Names, names_of, secret_variable, setting_for

SECRETS = frozenset(path for path, setting in SETTINGS.items() if setting.secret)
"""The dotted paths of the secret settings: ``openai.apiKey`` and its kin."""

REDACTED = "[redacted]"
"""What the audit log records in a secret's place (docs/logging.md)."""

SET_IN_FILE = "set (config.json)"
"""How a secret stored in config.json is shown."""

_HOLDERS = frozenset(names_of(path)[:-1] for path in SECRETS)
"""The objects that hold a secret: ``openai`` for ``openai.apiKey``."""

_SECRET_NAME = re.compile(r"(?i)(api[-_]?key|token|secret|password|credentials?)$")
"""An unknown key's last name that reads as a secret: ``auth.token``, not ``maxTokens``."""

_SECRET_VARIABLE = re.compile(r"WISP_[A-Z0-9_]+_API_KEY")
"""The family every ``secret_variable`` belongs to, a future runtime's included."""


def is_secret(key: str | Names) -> bool:
    """Whether the value at ``key`` is a credential, never to be shown or recorded."""
    names = names_of(key)
    setting = setting_for(names)
    if setting is not None:
        return setting.secret
    return bool(names) and _SECRET_NAME.search(names[-1]) is not None


def redacted(key: str | Names, value: Any) -> Any:
    """``value`` as stored at ``key``, with every secret in it (``key`` itself, or a key in an
    object below it) replaced by ``REDACTED``; None stays None (unset).

    So is anything but an object stored where a key's object should be (``openai`` set to
    ``sk-…``): the key was meant one level down.
    """
    names = names_of(key)
    if value is None:
        return None
    if is_secret(names) or (names in _HOLDERS and not isinstance(value, dict)):
        return REDACTED
    if isinstance(value, dict):
        return {name: redacted((*names, name), item) for name, item in value.items()}
    return value


def shown_secret(key: str | Names, stored: bool, environ: Mapping[str, str]) -> str | None:
    """Where the secret at ``key`` is set, as ``wisp config`` shows it, or None when it is not:
    its variable wins over the file, as the backends read them."""
    path = join_path(names_of(key))
    if path in SECRETS and environ.get(variable := secret_variable(path)):
        return f"set ({variable})"
    return SET_IN_FILE if stored else None


def is_secret_variable(name: str) -> bool:
    """Whether ``name`` is one of wisp's API key variables (``WISP_OPENAI_API_KEY``)."""
    return _SECRET_VARIABLE.fullmatch(name) is not None


def command_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment a command runs with: wisp's own, less its API key variables."""
    return {name: value for name, value in environ.items() if not is_secret_variable(name)}


CREDENTIAL_WORDS = ("KEY", "SECRET", "TOKEN", "PASSWORD")
"""A variable whose name holds one of these, in any case, is taken for a credential
(``OPENAI_API_KEY``, ``HF_TOKEN``, ``AWS_SECRET_ACCESS_KEY``, ``PGPASSWORD``), as Codex's default
environment policy takes them."""


def is_credential_variable(name: str) -> bool:
    """Whether ``name`` looks like a credential's variable (``CREDENTIAL_WORDS``)."""
    upper = name.upper()
    return any(word in upper for word in CREDENTIAL_WORDS)


def model_environment(
    environ: Mapping[str, str], passed: Collection[str]
) -> tuple[dict[str, str], list[str]]:
    """The environment the model's commands run with: ``command_environment`` less every
    credential variable ``passed`` (``commandPolicy.passEnv``) does not name; and the names
    withheld, sorted (names only: a value never leaves here)."""
    kept: dict[str, str] = {}
    withheld: list[str] = []
    for name, value in command_environment(environ).items():
        if is_credential_variable(name) and name not in passed:
            withheld.append(name)
        else:
            kept[name] = value
    return kept, sorted(withheld)
