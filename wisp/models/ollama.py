"""``ollama:NAME``: a model served by Ollama, over its own API.

Resolution lists ``/api/tags`` and asks ``/api/show`` for capabilities and shape; the window is
fixed then (``num_ctx`` on every request). A chat is one ``POST /api/chat`` whose NDJSON lines
carry thinking, text, tool calls and, on the last (``done: true``), the token counts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, TypeVar

import httpx
import msgspec

from wisp.agent.types import (
    Capability,
    CapabilitySource,
    ChatRequest,
    ContextOverflow,
    Message,
    ModelError,
    ModelUnavailable,
    ResolvedModel,
    StreamEvent,
    ToolSpec,
    Usage,
    UsageReport,
)
from wisp.config.model_entry import as_stored
from wisp.config.paths import model_path
from wisp.diagnostics import logger
from wisp.models import ollama_window
from wisp.models.http import (
    RESOLVE_TIMEOUT,
    ReplyAssembly,
    Server,
    context_length_in,
    declared_capabilities,
    ndjson_lines,
    read_error_body,
    server_error,
    stopped_early,
    transport_errors,
    wire_tool,
)
from wisp.models.ollama_wire import (
    ChatBody,
    Chunk,
    Options,
    Running,
    Show,
    Tag,
    Tags,
    WireCall,
    WireFunction,
    WireMessage,
)
from wisp.models.parsing import is_overflow_message, overflow_error
from wisp.models.selection import canonical_name

if TYPE_CHECKING:
    from wisp.config.model_entry import ModelEntries
    from wisp.config.sections import Ollama

SCHEME = "ollama"
RUNTIME = "Ollama"
START_HINT = "start it with ollama serve, or set ollama.baseURL"

CAPABILITY_NAMES: dict[str, Capability] = {
    "tools": "toolCalling",
    "completion": "guidedGeneration",
    "thinking": "reasoning",
    "vision": "vision",
}

_chunk_decoder = msgspec.json.Decoder(Chunk)
_T = TypeVar("_T")

# -- the backend -------------------------------------------------------------------------------


class OllamaBackend(msgspec.Struct):
    """One Ollama model, its window fixed at selection. The HTTP client belongs to the caller."""

    client: httpx.AsyncClient
    server: Server
    model: str
    """The installed name, tag included: ``qwen3:latest``."""
    context_length: int
    can_think: bool
    default_think: bool | str | None
    """``ollama.models.<name>.think``, then ``ollama.think``: sent when a request names none."""

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        wire = self.body_for(request)
        self._check_fits(wire)
        body = msgspec.json.encode(wire)
        logger.debug(
            "POST %s model=%s num_ctx=%d",
            self.server.url("/api/chat"),
            self.model,
            self.context_length,
        )
        with transport_errors(self.server):
            async with self.client.stream(
                "POST",
                self.server.url("/api/chat"),
                content=body,
                headers={"Content-Type": "application/json"},
                timeout=self.server.timeout,
            ) as response:
                if response.status_code != 200:
                    error = server_error(await read_error_body(response))
                    if is_overflow_message(error.message, error.type):
                        raise _overflow(error.message)
                    raise ModelError(
                        f"{RUNTIME} returned HTTP {response.status_code}: {error.message[:200]}"
                    )
                async for event in self._events(response, request.known_tools):
                    yield event

    async def _events(
        self, response: httpx.Response, tools: list[ToolSpec]
    ) -> AsyncIterator[StreamEvent]:
        reply = ReplyAssembly(tools)
        shown = False
        async for line in ndjson_lines(response):
            chunk = _decode(line)
            if chunk.error is not None:
                error = server_error(chunk.error.encode())
                if is_overflow_message(error.message, error.type):
                    raise _overflow(error.message)
                raise stopped_early(self.server, error.message)
            if chunk.message is not None:
                for event in reply.thinking(chunk.message.thinking or chunk.message.reasoning):
                    shown = True
                    yield event
                for event in reply.text(chunk.message.content):
                    shown = True
                    yield event
                for call in chunk.message.tool_calls:
                    reply.call(call.function.name, call.function.arguments)
            if chunk.done:
                self._check_not_shifted(chunk, shown)
                for event in reply.finish():
                    yield event
                yield UsageReport(_usage(chunk, reply.thinking_chunks))
                return
        raise stopped_early(self.server, "the stream ended without done: true")

    def body_for(self, request: ChatRequest) -> ChatBody:
        think = request.think if request.think is not None else self.default_think
        options = Options(num_ctx=self.context_length)
        if request.temperature is not None:
            options.temperature = request.temperature
        if request.max_tokens is not None:
            options.num_predict = request.max_tokens
        return ChatBody(
            model=self.model,
            messages=[_wire_message(message) for message in request.messages],
            options=options,
            tools=[wire_tool(tool) for tool in request.tools] or msgspec.UNSET,
            # Only to a model that reports it can think.
            think=think if think is not None and self.can_think else msgspec.UNSET,
            format=request.schema if request.schema is not None else msgspec.UNSET,
        )

    def _check_not_shifted(self, final: Chunk, shown: bool) -> None:
        """The prompt and reply together reached ``num_ctx``: Ollama went on by dropping the
        front of the context. A reply nothing of which was shown is refused as an overflow
        (its calls came from a cut conversation); one already shown is kept, and logged.

        A prompt an older Ollama cut before reading it is not seen here: it keeps about half
        the window, and ``prompt_eval_count`` leaves out what its cache held, so a small count
        proves nothing; the estimate before sending guards that case.
        """
        used = final.prompt_eval_count + final.eval_count
        if used < self.context_length:
            return
        why = (
            f"{final.prompt_eval_count:,} prompt and {final.eval_count:,} reply tokens filled "
            f"the num_ctx of {self.context_length:,}, and Ollama dropped the front to go on"
        )
        if not shown:
            raise ContextOverflow(
                f"the conversation no longer fits {RUNTIME}'s window: {why}; nothing of the "
                "reply was kept",
                tokens=used,
                window=self.context_length,
            )
        logger.warning("%s: %s", self.model, why)

    def _check_fits(self, body: ChatBody) -> None:
        """Refuse, before sending, a request that plainly outgrows ``num_ctx``.

        ``truncate: false`` has Ollama refuse it too, but an Ollama older than that field drops
        the front of the prompt without a word; this estimate keeps that from happening to a
        request wisp can tell will not fit.
        """
        estimate = estimate_tokens(body)
        if estimate >= self.context_length:
            raise ContextOverflow(
                f"the conversation no longer fits {RUNTIME}'s window: about {estimate:,} "
                f"tokens (its bytes ÷ {BYTES_PER_TOKEN}) for a num_ctx of "
                f"{self.context_length:,}; not sent, as Ollama would drop its front",
                tokens=estimate,
                window=self.context_length,
            )

    async def aclose(self) -> None:
        """Nothing to release: the client is the caller's, and each request closes its stream."""


BYTES_PER_TOKEN = 4
"""A token is about 4 bytes of English or code; fewer for other scripts, so the estimate errs
low and only a request that surely outgrows the window is refused before sending."""


def estimate_tokens(body: ChatBody) -> int:
    """The request's size in tokens, estimated: the UTF-8 bytes of every message's content,
    its calls and the tool schemas, ÷ 4."""
    size = 0
    for message in body.messages:
        size += len(message.content.encode())
        if message.tool_calls is not msgspec.UNSET:
            size += len(msgspec.json.encode(message.tool_calls))
    if body.tools is not msgspec.UNSET:
        size += len(msgspec.json.encode(body.tools))
    return size // BYTES_PER_TOKEN


def _overflow(message: str) -> ContextOverflow:
    return overflow_error(f"the conversation no longer fits {RUNTIME}'s window: {message}")


def _decode(line: str) -> Chunk:
    try:
        return _chunk_decoder.decode(line)
    except msgspec.DecodeError as exc:
        raise ModelError(f"{RUNTIME} sent a line wisp cannot read ({exc}): {line[:200]}") from exc


def _usage(final: Chunk, thinking_chunks: int) -> Usage:
    return Usage(
        input=final.prompt_eval_count,
        output=max(final.eval_count, thinking_chunks),
        cached=0,
        reasoning=thinking_chunks,
    )


def _wire_message(message: Message) -> WireMessage:
    wire = WireMessage(role=message.role, content=message.content)
    if message.tool_calls:
        wire.tool_calls = [
            WireCall(WireFunction(call.name, call.arguments)) for call in message.tool_calls
        ]
    if message.role == "tool" and message.tool_name:
        wire.tool_name = message.tool_name
    return wire


# -- resolution --------------------------------------------------------------------------------


def server_for(section: Ollama) -> Server:
    return Server(
        runtime=RUNTIME,
        scheme=SCHEME,
        base_url=section.base_url.rstrip("/"),
        start_hint=START_HINT,
        idle_seconds=float(section.timeout_seconds),
    )


async def resolve(
    name: str,
    section: Ollama,
    environ: Mapping[str, str],
    client: httpx.AsyncClient,
    *,
    memory: ollama_window.Memory | None = None,
) -> ResolvedModel:
    """``ollama:NAME`` checked against the server; ``memory`` stands in for this machine's."""
    server = server_for(section)
    tags = await _get(client, server, "GET", "/api/tags", Tags)
    tag = _find(tags, name)
    show = await _get(client, server, "POST", "/api/show", Show, {"model": tag.name})
    capabilities, source = _capabilities(show, section.models, tag.name)
    window, note = await _window(client, server, section, tag, show, memory)
    backend = OllamaBackend(
        client=client,
        server=server,
        model=tag.name,
        context_length=window,
        can_think="reasoning" in capabilities,
        default_think=_default_think(section, tag.name),
    )
    return ResolvedModel(
        selection=f"{SCHEME}:{tag.name}",
        backend_name=SCHEME,
        backend=backend,
        capabilities=capabilities,
        capability_source=source,
        asset=f"{server.base_url} {tag.name}",
        context_size=window,
        context_note=note,
    )


async def _get(
    client: httpx.AsyncClient,
    server: Server,
    method: str,
    path: str,
    into: type[_T],
    body: dict[str, str] | None = None,
) -> _T:
    with transport_errors(server, waiting=f"{method} {path}"):
        response = await client.request(
            method, server.url(path), json=body, timeout=RESOLVE_TIMEOUT
        )
    if response.status_code != 200:
        message = server_error(response.content[:4096]).message
        raise ModelUnavailable(f"{RUNTIME} returned HTTP {response.status_code}: {message[:200]}")
    try:
        return msgspec.json.decode(response.content, type=into)
    except msgspec.DecodeError as exc:
        raise ModelUnavailable(f"{RUNTIME} sent {path} wisp cannot read: {exc}") from exc


def _find(tags: Tags, name: str) -> Tag:
    wanted = {name, canonical_name(SCHEME, name)}
    for tag in tags.models:
        if tag.name in wanted:
            return tag
    installed = ", ".join(tag.name for tag in tags.models) or "none"
    raise ModelUnavailable(f"{RUNTIME} has no model '{name}'; installed: {installed}")


def _capabilities(
    show: Show, models: ModelEntries, name: str
) -> tuple[list[Capability], CapabilitySource]:
    if show.capabilities is None:  # an Ollama that predates the report
        declared = declared_capabilities(models, SCHEME, _section_name(models, name))
        return (declared, "configuration") if declared is not None else ([], "undeclared")
    if "completion" not in show.capabilities:
        reported = ", ".join(show.capabilities) or "none"
        raise ModelUnavailable(
            f"{RUNTIME} reports it cannot hold a conversation (capabilities: {reported})"
        )
    mapped = [CAPABILITY_NAMES[item] for item in show.capabilities if item in CAPABILITY_NAMES]
    return list(dict.fromkeys(mapped)), "runtime"


def _section_name(models: ModelEntries, name: str) -> str:
    """The name ``ollama.models`` knows this model by: whole, or without ``:latest``."""
    for spelling in (name, name.removesuffix(":latest")):
        if models.entry(spelling).stored:
            return spelling
    return name


def _default_think(section: Ollama, name: str) -> bool | str | None:
    think = as_stored(section.models.entry(_section_name(section.models, name)).think)
    if isinstance(think, bool | str):
        return think
    return section.think


async def _window(
    client: httpx.AsyncClient,
    server: Server,
    section: Ollama,
    tag: Tag,
    show: Show,
    memory: ollama_window.Memory | None,
) -> tuple[int, str]:
    """Per-model config, then ``ollama.contextLength``, either within the model's trained
    maximum; else sized from memory."""
    configured = _configured_window(section, tag)
    if configured is not None:
        return _within_maximum(*configured, ollama_window.trained_maximum(show.model_info))
    shape = ollama_window.shape_from(show.model_info, show.modelfile)
    if shape is None:
        return ollama_window.FLOOR, ollama_window.NO_SHAPE_NOTE
    memory = memory or await ollama_window.probe_memory()
    if memory is None:
        return min(ollama_window.FLOOR, shape.maximum), (
            "the default: wisp could not read this machine's memory to size from"
        )
    held = await _held_bytes(client, server, tag.name, memory.is_gpu)
    budget = ollama_window.budget_for(memory, held)
    return ollama_window.size_window(shape, tag.size, budget)


def _configured_window(section: Ollama, tag: Tag) -> tuple[int, str] | None:
    spelling = _section_name(section.models, tag.name)
    value = as_stored(section.models.entry(spelling).context_length)
    if value is not None:
        where = model_path(SCHEME, spelling, "contextLength")
        return context_length_in(section.models.path, where, value), f"set for this model ({where})"
    if section.context_length is not None:
        return section.context_length, "configured (ollama.contextLength)"
    return None


def _within_maximum(window: int, note: str, maximum: int | None) -> tuple[int, str]:
    """A larger num_ctx than the model was trained for is not a window it can use."""
    if maximum is None or window <= maximum:
        return window, note
    return maximum, f"{note}, capped at the {maximum:,} the model was trained for"


async def _held_bytes(client: httpx.AsyncClient, server: Server, name: str, is_gpu: bool) -> int:
    """Bytes Ollama already holds for this model (``/api/ps``); they count as available."""
    try:
        running = await _get(client, server, "GET", "/api/ps", Running)
    except ModelError:
        return 0  # an Ollama without /api/ps, or one that failed to answer: hold nothing
    for loaded in running.models:
        if loaded.name == name:
            return loaded.size_vram if is_gpu else loaded.size
    return 0
