"""The model backends this build has, keyed by scheme, and the one way in: ``resolve_model``.

Each backend module is imported when its scheme is first resolved, never at import time, so
one backend's missing module or optional dependency cannot stop the others from working.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Awaitable, Callable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

import msgspec

from wisp.agent.types import ModelUnavailable, ResolvedModel
from wisp.models.selection import parse_selection

if TYPE_CHECKING:
    import httpx

    from wisp.config import Config
    from wisp.models.local_files import ModelFiles

Resolver = Callable[[str, Any, Mapping[str, str], Any], Awaitable[ResolvedModel]]
"""A backend's resolve: (name, its section of the settings (``wisp.config.sections``; None for
``script``), environment, an httpx.AsyncClient or None)."""

BACKENDS: dict[str, tuple[str, str]] = {
    "local": ("wisp.models.local", "resolve"),
    "ollama": ("wisp.models.ollama", "resolve"),
    "llamacpp": ("wisp.models.openai_compat", "resolve_llamacpp"),
    "lmstudio": ("wisp.models.openai_compat", "resolve_lmstudio"),
    "openai": ("wisp.models.openai_compat", "resolve_openai"),
    "script": ("wisp.models.script", "resolve"),
}
"""Scheme → (module, resolver function), in the order of docs/models.md, "Selections"."""


async def resolve_model(
    selection: str,
    *,
    config: Config,
    environ: Mapping[str, str],
    client: httpx.AsyncClient | None,
    model_files: ModelFiles | None = None,
) -> ResolvedModel:
    """The model ``selection`` names, checked and ready; ``ModelUnavailable`` if it cannot be.

    ``config`` is the ``wisp.config.Config`` in force, of which the backend is handed its own
    section (``config.settings.ollama`` for ``ollama:``); ``client`` the session's HTTP client;
    ``model_files`` where a ``local:PATH`` file's checksum is kept, for every caller that will
    load it (docs/models.md, "Local GGUF checksums").
    """
    parsed = parse_selection(selection)
    resolver = backend_resolver(parsed.scheme)
    if parsed.scheme == "local" and model_files is not None:
        resolver = functools.partial(resolver, files=model_files)
    section = config.settings.runtime(parsed.scheme)
    resolved = await resolver(parsed.name, section, environ, client)
    # One canonical spelling everywhere, whatever the backend found the model as.
    return msgspec.structs.replace(resolved, selection=parsed.canonical)


def backend_resolver(scheme: str) -> Resolver:
    """The resolve function for ``scheme``; ``ModelUnavailable`` when this build lacks it."""
    if scheme not in BACKENDS:
        raise ModelUnavailable(
            f"no model backend '{scheme}' in this build; available: {', '.join(BACKENDS)}"
        )
    module_name, function_name = BACKENDS[scheme]
    module = _import_backend(scheme, module_name)
    resolver = getattr(module, function_name, None)
    if resolver is None:
        raise ModelUnavailable(
            f"the {scheme} backend is not complete in this build ({module_name} has no "
            f"{function_name})"
        )
    return resolver  # type: ignore[no-any-return]


def _import_backend(scheme: str, module_name: str) -> ModuleType:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise  # something the backend imports is missing: a real bug, not a missing backend
        raise ModelUnavailable(
            f"the {scheme} backend is not in this build ({module_name} is missing)"
        ) from exc
