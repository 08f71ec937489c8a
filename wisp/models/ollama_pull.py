"""``wisp models pull ollama:NAME``: Ollama fetches a model itself, and wisp follows its progress.

One ``POST /api/pull`` whose NDJSON lines say what Ollama is doing:
``pulling manifest``; per layer ``pulling <digest>`` with ``total`` and ``completed`` bytes;
``verifying sha256 digest``, ``writing manifest``, ``success``. An ``error`` line aborts.
``total`` is per layer, so the whole is summed by digest. Cancelling the task closes the stream;
Ollama keeps what arrived and resumes from there next time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

import httpx
import msgspec

from wisp.agent.types import ModelError
from wisp.models.http import (
    Server,
    ndjson_lines,
    read_error_body,
    server_error,
    transport_errors,
)
from wisp.models.ollama import RUNTIME, server_for

if TYPE_CHECKING:
    from wisp.config.sections import Ollama

PullOutcome = Literal["fetched", "linked", "failed", "cancelled"]


class PullLine(msgspec.Struct):
    """One NDJSON line of ``/api/pull``'s reply."""

    status: str = ""
    digest: str = ""
    total: int | None = None
    completed: int | None = None
    error: str | None = None


_line_decoder = msgspec.json.Decoder(PullLine)


class Layer(msgspec.Struct):
    """One blob of the model, as its progress lines report it."""

    digest: str
    total: int
    first_completed: int
    """Bytes already here at its first report: Ollama resumes, it does not fetch them again."""
    completed: int

    @property
    def fetched(self) -> int:
        return max(0, self.completed - self.first_completed)

    @property
    def was_here(self) -> bool:
        """Complete at its first report: nothing of it was fetched."""
        return self.total > 0 and self.first_completed >= self.total


class PullProgress(msgspec.Struct):
    """What a pull has done so far; the caller renders it and records ``model.pull`` from it."""

    name: str
    """The Ollama name as asked for: ``qwen3:8b``."""
    started: float
    status: str = ""
    layers: dict[str, Layer] = msgspec.field(default_factory=dict)
    current: str = ""
    """The digest of the layer last reported; empty between layers."""
    succeeded: bool = False

    @property
    def total(self) -> int:
        return sum(layer.total for layer in self.layers.values())

    @property
    def completed(self) -> int:
        return sum(layer.completed for layer in self.layers.values())

    @property
    def fetched(self) -> int:
        """Bytes downloaded by this run."""
        return sum(layer.fetched for layer in self.layers.values())

    @property
    def reused(self) -> int:
        return sum(1 for layer in self.layers.values() if layer.was_here)

    @property
    def fetched_files(self) -> int:
        return sum(1 for layer in self.layers.values() if layer.fetched > 0)

    def position(self) -> tuple[int, int]:
        """(1-based index of the current layer, layers seen so far)."""
        digests = list(self.layers)
        index = digests.index(self.current) + 1 if self.current in self.layers else 0
        return index, len(digests)

    def outcome(self) -> PullOutcome:
        """A finished pull: ``fetched``, or ``linked`` when nothing needed downloading."""
        return "fetched" if self.fetched > 0 else "linked"

    def take(self, line: PullLine) -> None:
        self.status = line.status or self.status
        if line.status == "success":
            self.succeeded = True
        self.current = line.digest  # empty for the steps between layers
        if not line.digest or line.total is None:
            return
        completed = line.completed or 0
        layer = self.layers.get(line.digest)
        if layer is None:
            self.layers[line.digest] = Layer(line.digest, line.total, completed, completed)
        else:
            layer.total, layer.completed = line.total, max(layer.completed, completed)


async def pull(
    client: httpx.AsyncClient,
    section: Ollama,
    progress: PullProgress,
    *,
    on_update: Callable[[PullProgress], None],
) -> None:
    """Pull ``progress.name``, updating ``progress`` and calling ``on_update`` per line.

    A failure is ``ModelError`` (``ModelUnavailable`` when no server answers); ``progress``
    then holds what arrived before it.
    """
    server = server_for(section)
    with transport_errors(server):
        async with client.stream(
            "POST",
            server.url("/api/pull"),
            json={"model": progress.name, "stream": True},
            timeout=server.timeout,  # the read limit is ollama.timeoutSeconds, reset per byte
        ) as response:
            if response.status_code != 200:
                message = server_error(await read_error_body(response)).message
                raise ModelError(f"{RUNTIME} returned HTTP {response.status_code}: {message[:200]}")
            try:
                async for text in ndjson_lines(response):
                    line = _decode(text)
                    if line.error is not None:
                        raise ModelError(f"{RUNTIME} could not pull {progress.name}: {line.error}")
                    progress.take(line)
                    on_update(progress)
            except httpx.TransportError as exc:
                # Unlike a chat reply, a pull keeps what arrived: Ollama resumes from it.
                raise _unfinished(progress, _lost(exc, server)) from exc
    if not progress.succeeded:
        raise _unfinished(progress, "it ended without saying success")


def _unfinished(progress: PullProgress, why: str) -> ModelError:
    return ModelError(
        f"{RUNTIME} stopped pulling {progress.name} before it was done ({why}); what arrived "
        "is kept, and pulling again resumes from it"
    )


def _lost(exc: httpx.TransportError, server: Server) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return f"nothing for {server.idle_seconds:g} s, {server.scheme}.timeoutSeconds"
    return str(exc) or "the connection was lost"


def new_progress(name: str, clock: Callable[[], float] = time.monotonic) -> PullProgress:
    return PullProgress(name=name, started=clock())


def _decode(text: str) -> PullLine:
    try:
        return _line_decoder.decode(text)
    except msgspec.DecodeError as exc:
        raise ModelError(f"{RUNTIME} sent a line wisp cannot read ({exc}): {text[:200]}") from exc
