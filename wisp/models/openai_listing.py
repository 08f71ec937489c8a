"""Resolving ``llamacpp:``, ``lmstudio:`` and ``openai:`` selections.

Each runtime lists what it serves its own way; all three end in a ``Served`` entry: the
server's id for the model, the window the server reports (if any) and what it reports the
model can do. The window and capabilities are then settled with config.json: a window neither
the server nor config.json gives is unknown, never guessed (docs/models.md, "Context windows").
"""

from __future__ import annotations

from typing import TypeVar

import httpx
import msgspec

from wisp.agent.types import Capability, CapabilitySource, ModelUnavailable
from wisp.config.model_entry import as_stored
from wisp.config.paths import model_path
from wisp.config.sections import LMStudio, OpenAICompatible
from wisp.models.http import (
    CAPABILITIES,
    RESOLVE_TIMEOUT,
    ApiKey,
    Server,
    auth_headers,
    context_length_in,
    declared_capabilities,
    failed_capabilities,
    server_error,
    transport_errors,
)
from wisp.models.openai_wire import LMSTUDIO, Dialect, refusal
from wisp.models.selection import canonical_name

_T = TypeVar("_T")

# -- the wire ----------------------------------------------------------------------------------


class LlamaMeta(msgspec.Struct):
    n_params: int | None = None
    size: int | None = None
    n_ctx_train: int | None = None


class ModelEntry(msgspec.Struct):
    """One of ``GET /v1/models``'s ``data``; llama.cpp adds ``meta``, vLLM ``max_model_len``."""

    id: str
    owned_by: str = ""
    max_model_len: int | None = None
    meta: LlamaMeta | None = None
    status: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    """Present only from llama-server in router mode."""


class ModelList(msgspec.Struct):
    data: list[ModelEntry] = msgspec.field(default_factory=list)


class GenerationSettings(msgspec.Struct):
    n_ctx: int | None = None


class TemplateCaps(msgspec.Struct):
    supports_tool_calls: bool | None = None
    supports_tools: bool | None = None


class Props(msgspec.Struct):
    """llama.cpp's ``GET /props``."""

    default_generation_settings: GenerationSettings | None = None
    n_ctx: int | None = None
    chat_template_caps: TemplateCaps | None = None


class LmLoadedConfig(msgspec.Struct):
    context_length: int | None = None


class LmInstance(msgspec.Struct):
    config: LmLoadedConfig = msgspec.field(default_factory=LmLoadedConfig)


class LmReasoning(msgspec.Struct):
    allowed_options: list[str] = msgspec.field(default_factory=list)


class LmCapabilities(msgspec.Struct):
    trained_for_tool_use: bool = False
    reasoning: bool | LmReasoning | None = None


class LmModel(msgspec.Struct):
    """One of LM Studio's ``GET /api/v1/models`` (0.4.0 and later)."""

    key: str
    type: str = "llm"
    max_context_length: int | None = None
    loaded_instances: list[LmInstance] = msgspec.field(default_factory=list)
    capabilities: LmCapabilities = msgspec.field(default_factory=LmCapabilities)


class LmModels(msgspec.Struct):
    models: list[LmModel] = msgspec.field(default_factory=list)


# -- what a server serves ----------------------------------------------------------------------


class Served(msgspec.Struct):
    """The model as its server reports it."""

    id: str
    window: int | None = None
    window_note: str | None = None
    reported: list[Capability] = msgspec.field(default_factory=list)
    has_report: bool = False
    """Whether the server said anything about what the model can do."""
    window_source: str = "the server"
    """Who reported ``window``, in words: ``llama.cpp (/props n_ctx)``."""
    no_window: str | None = None
    """Why the server reported no window, for the note of an unknown one."""
    maximum: int | None = None
    """The most the model can be loaded with, when the server says it but not the window."""


class Unreadable(ModelUnavailable):
    """A listing call answered, but not with something wisp can use."""


class Listing(msgspec.Struct):
    """The calls resolution makes to one server, all with a 5 s limit."""

    client: httpx.AsyncClient
    dialect: Dialect
    server: Server
    key: ApiKey | None

    async def get(
        self, path: str, into: type[_T], params: dict[str, str] | None = None
    ) -> _T | None:
        """The decoded answer; None for 404 (the endpoint is not there)."""
        with transport_errors(self.server, waiting=f"GET {path}"):
            response = await self.client.get(
                self.server.url(path),
                params=params,
                headers=auth_headers(self.key),
                timeout=RESOLVE_TIMEOUT,
            )
        status = response.status_code
        if status == 404:
            return None
        if status != 200:
            error = server_error(response.content[:4096])
            failure = refusal(self.dialect, self.server, status, error, bool(self.key))
            raised = ModelUnavailable if status in (401, 403) else Unreadable
            raise raised(str(failure))
        try:
            return msgspec.json.decode(response.content, type=into)
        except msgspec.DecodeError as exc:
            raise Unreadable(
                f"{self.dialect.runtime} at {self.server.base_url} sent {path} "
                f"wisp cannot read: {exc}"
            ) from exc

    async def models(self) -> list[ModelEntry]:
        listed = await self.get("/v1/models", ModelList)
        if listed is None:
            raise ModelUnavailable(
                f"{self.dialect.runtime} at {self.server.base_url} has no /v1/models (HTTP 404); "
                f"is it an OpenAI-compatible server? {self.dialect.start_hint}"
            )
        return listed.data

    def missing(self, name: str, served: list[str]) -> ModelUnavailable:
        shown = ", ".join(canonical_name(self.dialect.scheme, id) for id in served) or "nothing"
        return ModelUnavailable(
            f"{self.dialect.runtime} serves no model '{name}'; it serves: {shown}"
        )


def _matches(scheme: str, name: str, id: str) -> bool:
    return name == id or canonical_name(scheme, name) == canonical_name(scheme, id)


async def served_by_llamacpp(listing: Listing, name: str) -> Served:
    entries = await listing.models()
    entry = next((e for e in entries if _matches("llamacpp", name, e.id)), None)
    if entry is None:
        raise listing.missing(name, [e.id for e in entries])
    served = Served(entry.id)
    is_router = entry.status is not msgspec.UNSET
    try:
        props = await listing.get("/props", Props, {"model": entry.id} if is_router else None)
    except Unreadable as exc:
        served.no_window = f"llama.cpp's /props could not be used ({exc})"
        return served
    if props is None:
        served.no_window = "llama.cpp has no /props (HTTP 404)"
        return served
    settings = props.default_generation_settings
    window = (settings.n_ctx if settings else None) or props.n_ctx
    if window:
        served.window = window
        served.window_source = "llama.cpp (/props n_ctx)"
        served.window_note = (
            "reported by llama.cpp (/props n_ctx): the server holds the model at this window"
        )
    else:
        served.no_window = "llama.cpp's /props gave no n_ctx"
    caps = props.chat_template_caps
    if caps is not None:
        tools = (
            caps.supports_tool_calls
            if caps.supports_tool_calls is not None
            else caps.supports_tools
        )
        served.has_report = tools is not None
        served.reported = ["toolCalling"] if tools else []
    return served


async def served_by_lmstudio(listing: Listing, name: str) -> Served:
    listed = await listing.get("/api/v1/models", LmModels)
    if listed is None:  # LM Studio before 0.4.0: ids only
        entries = await listing.models()
        entry = next((e for e in entries if _matches("lmstudio", name, e.id)), None)
        if entry is None:
            raise listing.missing(name, [e.id for e in entries])
        return Served(entry.id, has_report=True)
    model = next((m for m in listed.models if _matches("lmstudio", name, m.key)), None)
    if model is None:
        raise listing.missing(name, [m.key for m in listed.models])
    if model.type == "embedding":
        raise ModelUnavailable(
            f"LM Studio's '{model.key}' is an embedding model, which cannot hold a conversation"
        )
    served = Served(model.key, has_report=True, reported=_lmstudio_capabilities(model))
    loaded = model.loaded_instances[0].config.context_length if model.loaded_instances else None
    maximum = model.max_context_length
    if loaded:
        served.window = loaded
        served.window_source = "LM Studio (loaded)"
        served.window_note = f"reported by LM Studio: loaded at {loaded:,} of {maximum or loaded:,}"
    else:
        # Its maximum is not its window: loaded on demand, it gets LM Studio's default.
        served.maximum = maximum
        most = f" (it can hold up to {maximum:,})" if maximum else ""
        served.no_window = (
            f"LM Studio has not loaded it{most}; load it at the window you want and choose it again"
        )
    return served


def _lmstudio_capabilities(model: LmModel) -> list[Capability]:
    reported: list[Capability] = []
    if model.capabilities.trained_for_tool_use:
        reported.append("toolCalling")
    match model.capabilities.reasoning:
        case True:
            reported.append("reasoning")
        case LmReasoning(allowed_options=options) if any(o != "off" for o in options):
            reported.append("reasoning")
    return reported


async def served_by_openai(listing: Listing, name: str) -> Served:
    entries = await listing.models()
    entry = next((e for e in entries if _matches("openai", name, e.id)), None)
    if entry is None:
        raise listing.missing(name, [e.id for e in entries])
    served = Served(entry.id)
    if entry.max_model_len:
        served.window = entry.max_model_len
        served.window_source = "the server (/v1/models max_model_len)"
        served.window_note = "reported by the server (/v1/models max_model_len)"
    else:
        served.no_window = "the server reported no window"
    return served


_SERVED_BY = {
    "llamacpp": served_by_llamacpp,
    "lmstudio": served_by_lmstudio,
    "openai": served_by_openai,
}


async def served_by(listing: Listing, name: str) -> Served:
    """The model ``name`` as the listing's server reports it; ``ModelUnavailable`` if absent."""
    return await _SERVED_BY[listing.dialect.scheme](listing, name)


# -- settling it with config.json --------------------------------------------------------------


def server_for(dialect: Dialect, section: OpenAICompatible) -> Server:
    """The base URL without a trailing ``/`` or ``/v1`` (a ``/v1`` is accepted, not doubled)."""
    base = section.base_url.rstrip("/")
    return Server(
        runtime=dialect.runtime,
        scheme=dialect.scheme,
        base_url=base.removesuffix("/v1"),
        start_hint=dialect.start_hint,
        idle_seconds=float(section.timeout_seconds),
    )


def settle_window(
    dialect: Dialect, section: OpenAICompatible, name: str, served: Served
) -> tuple[int | None, str]:
    """The window and why: the server's and the configured one, the smaller when both are
    given (the server holds no more than it has; the operator may want less); None, unknown,
    when neither is: a guess would have the agent condense against a window the server lacks.
    """
    configured = _configured_window(dialect, section, name)
    reported = served.window
    if reported and configured:
        value, where = configured
        if value < reported:
            return value, (f"{where}, below the {reported:,} reported by {served.window_source}")
        if value > reported:
            return reported, (f"reported by {served.window_source}, below the {value:,} {where}")
        return reported, f"reported by {served.window_source}, as {where}"
    if reported:
        return reported, served.window_note or "reported by the server"
    if configured:
        value, where = configured
        if served.maximum and served.maximum < value:
            return served.maximum, (f"{where}, capped at the {served.maximum:,} the model can hold")
        return configured
    why = served.no_window or f"{dialect.runtime} reported no window"
    return None, f"unknown: {why}; {_how_to_set(dialect, name)}"


def _configured_window(
    dialect: Dialect, section: OpenAICompatible, name: str
) -> tuple[int, str] | None:
    """Per-model config, then ``<scheme>.contextLength``; with the note saying where."""
    if dialect is not LMSTUDIO:  # LM Studio has no models section
        value = as_stored(section.models.entry(name).context_length)
        if value is not None:
            where = model_path(dialect.scheme, name, "contextLength")
            path = section.models.path
            return context_length_in(path, where, value), f"set for this model ({where})"
    if section.context_length is not None:
        return section.context_length, f"configured ({dialect.scheme}.contextLength)"
    return None


def _how_to_set(dialect: Dialect, name: str) -> str:
    if dialect is LMSTUDIO:
        return "or set lmstudio.contextLength to the window it is loaded with"
    where = model_path(dialect.scheme, name, "contextLength")
    return f"set {dialect.scheme}.contextLength (or {where}) to the server's window"


def settle_capabilities(
    dialect: Dialect, section: OpenAICompatible, name: str, served: Served
) -> tuple[list[Capability], CapabilitySource]:
    """Capabilities: the dialect's, the server's, the declared; a recorded failure removes one."""
    models = section.models
    declared = (
        declared_capabilities(models, dialect.scheme, name) if dialect.declares_by_config else None
    )
    failed = failed_capabilities(models, name) if dialect.declares_by_config else set()
    found: set[str] = set(served.reported) | set(declared or [])
    if dialect.is_always_guided:
        found.add("guidedGeneration")
    found -= failed - set(declared or [])  # a failed check outranks the server, not the operator
    found.discard("vision")  # the mapping to these servers is text only
    if declared:
        source: CapabilitySource = "configuration"
    elif dialect.declares_by_config and not served.has_report:
        source = "undeclared"
    else:
        source = "runtime"
    return [c for c in CAPABILITIES if c in found], source


def default_think(dialect: Dialect, section: OpenAICompatible, name: str) -> bool | None:
    if not dialect.has_think_switch or isinstance(section, LMStudio):
        return None
    think = section.models.entry(name).think
    if isinstance(think, bool):
        return think
    return section.think
