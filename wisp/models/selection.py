"""Model selections: parse what a person typed, and give every spelling one canonical name.

One grammar everywhere (docs/models.md, "Selections"): ``-m``, config.json's ``model``, ``/model``,
``models.disabled``. Parsing accepts any scheme; the registry decides whether this build has
it. Canonical names exist so that a disabled model is refused under every spelling.
"""

from __future__ import annotations

import os
import re

import msgspec

from wisp.agent.types import ModelUnavailable

LOCAL = "local"

_SCHEME = re.compile(r"[A-Za-z0-9-]+")
_PATH_SCHEMES = ("local", "script")
_GGUF_ID_SCHEMES = ("llamacpp", "lmstudio", "openai")


class Selection(msgspec.Struct, frozen=True):
    """A parsed selection: ``ollama:qwen3`` is scheme ``ollama``, name ``qwen3``."""

    scheme: str
    """Lower-cased backend name: ``local``, ``ollama``, ``script`` … (not yet checked)."""
    name: str
    """What follows the first colon, as written; empty for the default ``local``."""
    canonical: str
    """The spelling every comparison uses: ``ollama:qwen3:latest``, ``script:/abs/x.json``."""

    @property
    def is_default_local(self) -> bool:
        return self.scheme == LOCAL and not self.name


def parse_selection(text: str) -> Selection:
    """Parse a selection; a malformed one is ``ModelUnavailable`` naming what was typed."""
    trimmed = text.strip()
    if trimmed.lower() in ("", LOCAL):
        return Selection(LOCAL, "", LOCAL)
    if trimmed.lower() == "system":
        # The reference wisp's built-in model; people moving over will type it.
        raise ModelUnavailable("unknown model 'system': the built-in model is local")
    scheme, colon, name = trimmed.partition(":")
    if not colon or not _SCHEME.fullmatch(scheme) or not name or _has_space(name):
        raise ModelUnavailable(f"unknown model '{trimmed}': use local, or <backend>:<name>")
    scheme = scheme.lower()
    return Selection(scheme, name, f"{scheme}:{canonical_name(scheme, name)}")


def canonical_selection(text: str) -> str:
    """The canonical spelling of a selection (``local``, ``ollama:qwen3:latest`` …)."""
    return parse_selection(text).canonical


def canonical_name(scheme: str, name: str) -> str:
    """The part after the colon, canonical for ``scheme``."""
    if scheme in _GGUF_ID_SCHEMES and _is_gguf_path_id(name):
        # llama-server lists a model started with -m by its path; people say its file name.
        return os.path.basename(name)[: -len(".gguf")]
    if scheme == LOCAL and is_local_name(name):
        return name  # a pulled model's name, not a path (docs/models.md, "Pulling from the Hub")
    if scheme in _PATH_SCHEMES or name.startswith(("/", "~")):
        return os.path.realpath(os.path.expanduser(name))
    if scheme == "ollama" and ":" not in name.rsplit("/", 1)[-1]:
        return f"{name}:latest"
    return name


def is_local_name(name: str) -> bool:
    """Whether ``local:NAME`` names a model by its entry (``local.models."NAME".file``, as
    ``wisp models pull hf:…`` records it) rather than a file: no ``/``, no ``~``, no ``.gguf``."""
    return (
        bool(name)
        and "/" not in name
        and not name.startswith("~")
        and not name.lower().endswith(".gguf")
        and name not in (".", "..")
    )


def _is_gguf_path_id(name: str) -> bool:
    return "/" in name and name.lower().endswith(".gguf")


def _has_space(name: str) -> bool:
    return any(character.isspace() for character in name)
