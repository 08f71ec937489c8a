"""One executor for OpenAI-compatible servers, and a resolver per runtime.

``llamacpp:``, ``lmstudio:`` and ``openai:`` differ in names, hints, the thinking switch and
how they report models (their ``Dialect``); a chat is the same for all three: one
``POST /v1/chat/completions``, streamed as server-sent events whose deltas carry thinking, text
and tool-call fragments.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

import httpx
import msgspec

from wisp.agent.types import (
    ChatRequest,
    ContextOverflow,
    ModelError,
    ResolvedModel,
    StreamEvent,
    UsageReport,
)
from wisp.config.sections import LlamaCpp, LMStudio, OpenAI, OpenAICompatible
from wisp.diagnostics import logger
from wisp.models.http import (
    ERROR_BODY_LIMIT,
    ApiKey,
    ReplyAssembly,
    Server,
    ServerError,
    api_key,
    auth_headers,
    read_error_body,
    server_error,
    sse_payloads,
    stopped_early,
    transport_errors,
    wire_tool,
)
from wisp.models.openai_listing import (
    Listing,
    default_think,
    served_by,
    server_for,
    settle_capabilities,
    settle_window,
)
from wisp.models.openai_wire import (
    DIALECTS,
    LLAMACPP,
    LMSTUDIO,
    OPENAI,
    CallGatherer,
    ChatBody,
    Chunk,
    Dialect,
    TemplateKwargs,
    WireUsage,
    overflow,
    parse_call,
    refusal,
    response_format,
    thinking_switch,
    usage_from,
    wire_messages,
)
from wisp.models.parsing import is_overflow_message
from wisp.models.selection import canonical_name

__all__ = [
    "DIALECTS",
    "LLAMACPP",
    "LMSTUDIO",
    "OPENAI",
    "Dialect",
    "OpenAICompatBackend",
    "resolve_llamacpp",
    "resolve_lmstudio",
    "resolve_openai",
    "resolve_with",
]

_chunk_decoder = msgspec.json.Decoder(Chunk)


PROBE_ATTEMPTS = 3


class _NothingCame(Exception):
    """A 200 whose stream ended with no event at all: the server hid an error."""


# -- the executor ------------------------------------------------------------------------------


class OpenAICompatBackend(msgspec.Struct):
    """One model on an OpenAI-compatible server. The HTTP client belongs to the caller."""

    client: httpx.AsyncClient
    dialect: Dialect
    server: Server
    model_id: str
    """The server's id for it, sent as ``model``."""
    key: ApiKey | None
    default_think: bool | None = None
    """``<scheme>.models.<name>.think``, then ``<scheme>.think``: used when a request names none."""
    window: int | None = None
    """The window settled at resolution, if known: a blank reply to a prompt that filled it is
    an overflow."""

    def body_for(self, request: ChatRequest) -> ChatBody:
        body = ChatBody(model=self.model_id, messages=wire_messages(request.messages))
        if request.tools:
            body.tools = [wire_tool(tool) for tool in request.tools]
        if request.temperature is not None:
            body.temperature = request.temperature
        if request.max_tokens is not None:
            body.max_tokens = request.max_tokens
        think = request.think if request.think is not None else self.default_think
        if think is not None and self.dialect.has_think_switch:
            body.chat_template_kwargs = TemplateKwargs(thinking_switch(think))
        if request.schema is not None:
            body.response_format = response_format(self.dialect, request.schema)
        return body

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        url = self.server.url("/v1/chat/completions")
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            **auth_headers(self.key),
        }
        body = self.body_for(request)
        content = msgspec.json.encode(body, order="sorted")
        logger.debug("POST %s model=%s", url, self.model_id)  # never the headers: the key
        try:
            with transport_errors(self.server):
                async with self.client.stream(
                    "POST", url, content=content, headers=headers, timeout=self.server.timeout
                ) as response:
                    if response.status_code != 200:
                        error = server_error(await read_error_body(response))
                        raise refusal(
                            self.dialect, self.server, response.status_code, error, bool(self.key)
                        )
                    async for event in self._events(response, request):
                        yield event
        except _NothingCame:
            await self._why_nothing_came(body)

    async def _why_nothing_came(self, body: ChatBody) -> None:
        """Ask once more, unstreamed and for one token, to hear the error a stream hid.

        llama-cpp-python's server answers a prompt longer than its window with 200 and an empty
        stream (it checks the length only once the stream has begun); asked without streaming,
        it says the overflow and both counts. Raises what it hears.
        """
        probe = msgspec.structs.replace(
            body, stream=False, stream_options=msgspec.UNSET, max_tokens=1
        )
        headers = {"Content-Type": "application/json", **auth_headers(self.key)}
        with transport_errors(self.server):
            response = await self._post_anew(probe, headers)
        if response.status_code != 200:
            error = server_error(response.content[:ERROR_BODY_LIMIT])
            raise refusal(self.dialect, self.server, response.status_code, error, bool(self.key))
        raise stopped_early(
            self.server, "the stream ended before any event, though the request fits its window"
        )

    async def _events(
        self, response: httpx.Response, request: ChatRequest
    ) -> AsyncIterator[StreamEvent]:
        reply, calls = ReplyAssembly(request.known_tools), CallGatherer()
        usage: WireUsage | None = None
        finish_reason: str | None = None
        is_done, is_empty, shown = False, True, False
        async for payload in sse_payloads(response):
            is_empty = False
            if payload == "[DONE]":
                is_done = True
                break
            chunk = self._decode(payload)
            if chunk.error:
                self._refuse_midstream(ServerError.of(chunk.error))
            usage = chunk.usage or usage  # the last report wins
            for choice in chunk.choices:
                delta = choice.delta
                for event in reply.thinking(delta.reasoning_text):
                    shown = True
                    yield event
                for event in reply.text(delta.content or ""):
                    shown = True
                    yield event
                for fragment in delta.tool_calls or []:
                    calls.add(fragment)
                finish_reason = choice.finish_reason or finish_reason
        if is_empty:
            raise _NothingCame
        self._check_ending(finish_reason, is_done, request, usage)
        if not shown and not calls.calls:
            self._check_blank(usage)
        for call in calls.calls:
            reply.call(*parse_call(call, self.dialect.runtime))
        for event in reply.finish():
            yield event
        if usage is not None:
            yield UsageReport(usage_from(usage, reply.thinking_chunks))

    async def _post_anew(self, body: ChatBody, headers: dict[str, str]) -> httpx.Response:
        """POST ``body``; again on a connection the server dropped before answering.

        The server closes the connection after such a stream, and the pool may hand that one
        (or another it dropped) out first; a later attempt gets a new one.
        """
        for _ in range(PROBE_ATTEMPTS - 1):
            try:
                return await self._post(body, headers)
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
                logger.debug("asking again: the connection was dropped (%s)", exc)
        return await self._post(body, headers)

    async def _post(self, body: ChatBody, headers: dict[str, str]) -> httpx.Response:
        return await self.client.post(
            self.server.url("/v1/chat/completions"),
            content=msgspec.json.encode(body, order="sorted"),
            headers=headers,
            timeout=self.server.timeout,
        )

    def _decode(self, payload: str) -> Chunk:
        try:
            return _chunk_decoder.decode(payload)
        except msgspec.DecodeError as exc:
            raise ModelError(
                f"{self.dialect.runtime} sent an event wisp cannot read ({exc}): {payload[:200]}"
            ) from exc

    def _refuse_midstream(self, error: ServerError) -> None:
        if is_overflow_message(error.message, error.type):
            raise overflow(self.dialect, error.message)
        raise stopped_early(self.server, error.message[:200])

    def _check_ending(
        self,
        finish_reason: str | None,
        is_done: bool,
        request: ChatRequest,
        usage: WireUsage | None,
    ) -> None:
        if finish_reason == "length" and request.max_tokens is None:
            # Cut off with no limit asked: the window itself ran out, prompt and reply together.
            error = overflow(self.dialect, "the reply was cut off at the window's end")
            if usage is not None and usage.prompt_tokens:
                error.tokens = usage.prompt_tokens + usage.completion_tokens
            raise error
        if finish_reason is None and not is_done:
            raise stopped_early(self.server, "the stream ended without finish_reason or [DONE]")

    def _check_blank(self, usage: WireUsage | None) -> None:
        """A reply of nothing to a prompt that filled the window is the overflow a server did
        not report (LM Studio's llama.cpp engine answers so), not a model with nothing to say."""
        if usage is None or self.window is None or usage.prompt_tokens < self.window:
            return
        raise ContextOverflow(
            f"the conversation no longer fits {self.dialect.runtime}'s window: it sent an empty "
            f"reply to {usage.prompt_tokens:,} prompt tokens, a window of {self.window:,}",
            tokens=usage.prompt_tokens,
            window=self.window,
        )

    async def aclose(self) -> None:
        """Nothing to release: the client is the caller's, and each request closes its stream."""


# -- resolution --------------------------------------------------------------------------------


async def resolve_with(
    dialect: Dialect,
    name: str,
    section: OpenAICompatible,
    environ: Mapping[str, str],
    client: httpx.AsyncClient,
) -> ResolvedModel:
    """``<scheme>:NAME`` checked against the server at ``<scheme>.baseURL``."""
    server = server_for(dialect, section)
    key = api_key(dialect.scheme, section.api_key, environ)
    if dialect is LMSTUDIO and section.models.stored is not None:
        logger.warning(
            "lmstudio.models in %s is ignored: LM Studio reports its models", section.models.path
        )
    served = await served_by(Listing(client, dialect, server, key), name)
    canonical = canonical_name(dialect.scheme, served.id)
    window, note = settle_window(dialect, section, canonical, served)
    capabilities, source = settle_capabilities(dialect, section, canonical, served)
    backend = OpenAICompatBackend(
        client=client,
        dialect=dialect,
        server=server,
        model_id=served.id,
        key=key,
        default_think=default_think(dialect, section, canonical),
        window=window,
    )
    return ResolvedModel(
        selection=f"{dialect.scheme}:{canonical}",
        backend_name=dialect.scheme,
        backend=backend,
        capabilities=capabilities,
        capability_source=source,
        asset=f"{server.base_url} {served.id}",
        context_size=window,
        context_note=note,
    )


async def resolve_llamacpp(
    name: str, section: LlamaCpp, environ: Mapping[str, str], client: httpx.AsyncClient
) -> ResolvedModel:
    """``llamacpp:NAME``: a model llama.cpp's llama-server serves at ``llamacpp.baseURL``."""
    return await resolve_with(LLAMACPP, name, section, environ, client)


async def resolve_lmstudio(
    name: str, section: LMStudio, environ: Mapping[str, str], client: httpx.AsyncClient
) -> ResolvedModel:
    """``lmstudio:NAME``: a model LM Studio's server has, at ``lmstudio.baseURL``."""
    return await resolve_with(LMSTUDIO, name, section, environ, client)


async def resolve_openai(
    name: str, section: OpenAI, environ: Mapping[str, str], client: httpx.AsyncClient
) -> ResolvedModel:
    """``openai:NAME``: a model an OpenAI-compatible server serves at ``openai.baseURL``."""
    return await resolve_with(OPENAI, name, section, environ, client)
