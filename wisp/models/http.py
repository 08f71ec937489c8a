"""What the HTTP backends share: who a request goes to, API keys, failures, stream lines, config.

Foreign errors are translated in one place, ``transport_errors``, into one message naming
the server and what to do. A key lives in an ``ApiKey``, whose repr redacts it; it goes into a
request header and nowhere else (not an exception, a log line or an asset).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import httpx
import msgspec

from wisp.agent.types import (
    Capability,
    ModelError,
    ModelUnavailable,
    StreamEvent,
    ThinkingDelta,
    ToolCallRequested,
    ToolSpec,
)
from wisp.config.model_entry import as_stored
from wisp.config.paths import model_path
from wisp.errors import ConfigValueError
from wisp.models.parsing import complete_call, overflow_counts
from wisp.models.reply.stream import ReplyParser

if TYPE_CHECKING:
    from pathlib import Path

    from wisp.config.model_entry import ModelEntries
    from wisp.config.sections import Secret

RESOLVE_TIMEOUT = 5.0
"""Seconds for each listing or model-information call."""

ERROR_BODY_LIMIT = 4096
"""Bytes of a non-200 body that are read for its message."""

CAPABILITIES: tuple[Capability, ...] = ("toolCalling", "guidedGeneration", "reasoning", "vision")


# -- who a request goes to ---------------------------------------------------------------------


class Server(msgspec.Struct, frozen=True):
    """A runtime at a base URL, as its messages name it."""

    runtime: str
    """As people know it: ``Ollama``, ``llama.cpp``."""
    scheme: str
    """Its config section and selection prefix: ``ollama``, ``llamacpp``."""
    base_url: str
    """Without a trailing slash."""
    start_hint: str
    """How to get a server there: ``start it with ollama serve, or set ollama.baseURL``."""
    idle_seconds: float
    """``<scheme>.timeoutSeconds``: the longest wait for a byte while a reply streams."""

    def url(self, path: str) -> str:
        return self.base_url + path

    @property
    def timeout(self) -> httpx.Timeout:
        """The chat request's limits; httpx's read timeout is per read, so every byte resets it."""
        return httpx.Timeout(self.idle_seconds, connect=min(self.idle_seconds, RESOLVE_TIMEOUT))


class ApiKey:
    """A bearer token that never shows itself: not in a repr, an f-string or a traceback."""

    __slots__ = ("_secret", "source")

    def __init__(self, secret: str, source: str) -> None:
        self._secret = secret
        self.source = source
        """Where it came from, safe to print: ``WISP_LLAMACPP_API_KEY`` or ``config.json``."""

    def __repr__(self) -> str:
        return f"ApiKey(<redacted>, source={self.source!r})"

    __str__ = __repr__

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._secret}"}


def api_key(scheme: str, stored: Secret | None, environ: Mapping[str, str]) -> ApiKey | None:
    """A runtime's key: ``WISP_<SCHEME>_API_KEY`` wins over ``<scheme>.apiKey`` (``stored``);
    an empty variable is unset."""
    variable = f"WISP_{scheme.upper()}_API_KEY"
    if secret := environ.get(variable, ""):
        return ApiKey(secret, variable)
    if stored is not None:
        return ApiKey(stored.reveal(), "config.json")
    return None


def auth_headers(key: ApiKey | None) -> dict[str, str]:
    return key.headers() if key else {}


# -- config ------------------------------------------------------------------------------------


def context_length_in(path: Path, where: str, value: Any) -> int:
    """A per-model ``contextLength``, checked as the known ones are."""
    if type(value) is int and 512 <= value <= 4_194_304:
        return value
    shown = msgspec.json.encode(value).decode()
    raise ConfigValueError(
        f"{path}: {where}: expected an integer from 512 to 4194304 (tokens), got {shown}"
    )


def declared_capabilities(models: ModelEntries, scheme: str, name: str) -> list[Capability] | None:
    """``<scheme>.models.<name>.capabilities``, or None when the config declares none."""
    declared = as_stored(models.entry(name).capabilities)
    if declared is None:
        return None
    where = model_path(scheme, name, "capabilities")
    if not isinstance(declared, list):
        raise ConfigValueError(f"{models.path}: {where}: expected a list of capability names")
    for capability in declared:
        if capability not in CAPABILITIES:
            raise ModelUnavailable(f"unknown capability {capability!r} ({where} in config.json)")
    return list(dict.fromkeys(declared))


def failed_capabilities(models: ModelEntries, name: str) -> set[str]:
    """What a recorded capability check found missing (``verified.failed``)."""
    return models.entry(name).failed_checks()


# -- failures ----------------------------------------------------------------------------------


def _reason(exc: BaseException) -> str:
    """The deepest cause's words: ``All connection attempts failed`` → ``connection refused``."""
    text = re.sub(r"^\[Errno -?\d+\]\s*", "", str(exc).strip()) or type(exc).__name__
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, OSError) and cause.errno:
            text = os.strerror(cause.errno)  # the system's words, not asyncio's
        cause = cause.__cause__ or cause.__context__
    return text[0].lower() + text[1:]


def stopped_early(server: Server, why: str) -> ModelError:
    return ModelError(
        f"{server.runtime} stopped before the reply was done ({why}); nothing of it was kept"
    )


@contextlib.contextmanager
def transport_errors(server: Server, *, waiting: str | None = None) -> Iterator[None]:
    """httpx's failures as messages naming the server and what to do; cancellation passes
    through untouched.

    ``waiting`` names a short call (``GET /api/tags``) whose timeout is the 5 s of resolution,
    not the idle limit.
    """
    try:
        yield
    except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
        raise ModelUnavailable(
            f"no {server.runtime} server at {server.base_url}: {_reason(exc)}; {server.start_hint}"
        ) from exc
    except httpx.TimeoutException as exc:
        if waiting:
            raise ModelUnavailable(
                f"{server.runtime} at {server.base_url} did not answer {waiting} "
                f"within {RESOLVE_TIMEOUT:g} s"
            ) from exc
        raise ModelError(
            f"{server.runtime} sent nothing for {server.idle_seconds:g} s "
            f"({server.scheme}.timeoutSeconds); the request was abandoned"
        ) from exc
    except httpx.HTTPError as exc:
        # The connection dropped, or the server broke HTTP mid-reply.
        raise stopped_early(server, _reason(exc)) from exc


class ErrorDetail(msgspec.Struct):
    """OpenAI's error object; llama.cpp adds the window and the prompt's size to an overflow."""

    message: str = ""
    type: str = ""
    n_ctx: int | None = None
    n_prompt_tokens: int | None = None


class _ErrorBody(msgspec.Struct):
    """The error shapes servers send: OpenAI's, Ollama's, FastAPI's."""

    error: ErrorDetail | str | None = None
    message: str | None = None
    detail: str | None = None


class ServerError(msgspec.Struct, frozen=True):
    """What a server said went wrong: its message and, where it gives one, its error type."""

    message: str
    type: str = ""

    @classmethod
    def of(cls, error: ErrorDetail | str) -> ServerError:
        if isinstance(error, str):
            return cls(error)
        message = error.message or error.type or "no message"
        if error.n_prompt_tokens and error.n_ctx and None in overflow_counts(message):
            message += f" ({error.n_prompt_tokens:,} prompt tokens, a window of {error.n_ctx:,})"
        return cls(message, error.type)


def server_error(body: bytes) -> ServerError:
    """The message in an error body; the body's text when it holds none."""
    text = body.decode(errors="replace").strip()
    try:
        decoded = msgspec.json.decode(body, type=_ErrorBody)
    except msgspec.MsgspecError:
        return ServerError(text)
    if isinstance(decoded.error, str) and decoded.error.startswith("{"):
        # Ollama passes its runner's JSON error on as a string (an overflow with truncate off).
        inner = server_error(decoded.error.encode())
        if inner.message != decoded.error:
            return inner
    if decoded.error:
        return ServerError.of(decoded.error)
    return ServerError(decoded.message or decoded.detail or text)


async def read_error_body(response: httpx.Response) -> bytes:
    """Up to ``ERROR_BODY_LIMIT`` bytes of a streamed response's body."""
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) >= ERROR_BODY_LIMIT:
            break
    return bytes(body[:ERROR_BODY_LIMIT])


# -- stream lines ------------------------------------------------------------------------------


async def ndjson_lines(response: httpx.Response) -> AsyncIterator[str]:
    """Each non-blank line of a newline-delimited JSON stream (Ollama)."""
    async for line in response.aiter_lines():
        if line.strip():
            yield line


async def sse_payloads(response: httpx.Response) -> AsyncIterator[str]:
    """The text of each ``data:`` line; a bare line starting ``{`` counts too."""
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            yield line[5:].strip()
        elif line.startswith("{"):
            yield line


# -- a reply being assembled -------------------------------------------------------------------


class ReplyAssembly:
    """Turns a runtime's fragments into events: text, thinking, and calls held to the end.

    Calls wait for the stream's proper end, so a call from a reply that broke off is never run.
    Reply text goes through the reply parser, which splits out thinking and calls written as
    text (docs/models.md, "The reply parser").
    """

    def __init__(self, tools: list[ToolSpec]) -> None:
        self.tools = tools
        self.parser = ReplyParser(tools)
        self.calls: list[ToolCallRequested] = []
        self.thinking_chunks = 0

    def thinking(self, text: str) -> list[StreamEvent]:
        """Reasoning the server sent apart from the text."""
        return self._counted(self.parser.thinking(text))

    def text(self, text: str) -> list[StreamEvent]:
        return self._counted(self.parser.text(text))

    def call(self, name: str, arguments: dict[str, Any]) -> None:
        self.calls.append(ToolCallRequested(name, arguments))

    def finish(self) -> list[StreamEvent]:
        """Held text, then the calls: those written as text first, in written order."""
        events = self._counted(self.parser.finish())
        return events + [complete_call(call, self.tools) for call in self.calls]

    def _counted(self, events: list[StreamEvent]) -> list[StreamEvent]:
        self.thinking_chunks += sum(isinstance(event, ThinkingDelta) for event in events)
        return events


class WireToolFunction(msgspec.Struct):
    name: str
    description: str
    parameters: dict[str, Any]


class WireTool(msgspec.Struct):
    """A tool as both Ollama and OpenAI-compatible servers take it."""

    function: WireToolFunction
    type: str = "function"


def wire_tool(tool: ToolSpec) -> WireTool:
    return WireTool(WireToolFunction(tool.name, tool.description, tool.parameters))
