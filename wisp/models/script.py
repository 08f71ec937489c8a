"""The replay backend, ``script:PATH``: a JSON file of responses, in order.

A real backend, for demos, reproducible bug reports and every test that needs no model. The
file is read and checked when the model is resolved, so a mistake in it shows before the first
prompt, with its line and column. See docs/models.md, "The replay backend".
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Annotated, Any

import msgspec

from wisp.agent.types import (
    ChatRequest,
    ContextOverflow,
    ModelError,
    ModelUnavailable,
    ResolvedModel,
    StreamEvent,
    ToolCallRequested,
    Usage,
    UsageReport,
)
from wisp.models.parsing import complete_call, is_overflow_message, overflow_error
from wisp.models.reply.stream import ReplyParser
from wisp.models.selection import canonical_name

CHUNK_CHARACTERS = 4
"""Text and thinking stream in pieces this long, so a replay looks like a model typing."""

_NonNegative = Annotated[int, msgspec.Meta(ge=0)]


class ScriptCall(msgspec.Struct, frozen=True):
    name: str
    arguments: dict[str, Any] = msgspec.field(default_factory=dict)


class ScriptUsage(msgspec.Struct, frozen=True):
    input: _NonNegative = 0
    output: _NonNegative = 0


class ScriptResponse(msgspec.Struct, frozen=True):
    """One reply; every field optional. ``error`` makes the request fail with that message."""

    text: str = ""
    thinking: str = ""
    tool_calls: list[ScriptCall] = msgspec.field(default_factory=list)
    delay_ms: _NonNegative = 0
    usage: ScriptUsage | None = None
    error: str | None = None
    wait_for_file: str | None = None
    """After the first chunk, the rest waits until this file exists: a face's test sees the
    reply part-way, whatever the machine's pace."""


class ScriptFile(msgspec.Struct, frozen=True):
    responses: list[ScriptResponse] = msgspec.field(default_factory=list)
    routed: dict[str, list[ScriptResponse]] = msgspec.field(default_factory=dict)
    """The replies to requests wisp makes of its own accord, per routed task (``assess``), in
    order. A script without them fails such a request, as a model that cannot answer it would:
    the conversation's replies are never spent on it."""
    context_size: Annotated[int, msgspec.Meta(ge=1)] | None = msgspec.field(
        default=None, name="contextSize"
    )


async def _until_exists(path: str) -> None:
    """Returns once ``path`` exists, looking every 10 ms (an interrupt lands in between)."""
    while not os.path.exists(path):
        await asyncio.sleep(0.01)


class ScriptBackend(msgspec.Struct):
    """Streams the file's responses, one per request, whatever the request asks."""

    path: str
    script: ScriptFile
    requests: int = 0
    """Requests made so far; the next one gets ``responses[requests]``."""
    routed_requests: dict[str, int] = msgspec.field(default_factory=dict)
    """Routed requests made so far, per task."""

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        prompt_tokens = self._fitted(request)
        response = self._next_response(request.task)
        if response.error is not None:
            if is_overflow_message(response.error):
                raise overflow_error(response.error)  # with the counts it says, as a server's
            raise ModelError(response.error)
        pause = response.delay_ms / 1000
        first = True
        # The text goes through the parser every backend's does: a call written in it is a call.
        parser = ReplyParser(request.known_tools)
        for kind, text in (("thinking", response.thinking), ("text", response.text)):
            for at in range(0, len(text), CHUNK_CHARACTERS):
                # Every chunk yields to the loop, so an interrupt lands between chunks.
                await asyncio.sleep(0 if first else pause)
                first = False
                chunk = text[at : at + CHUNK_CHARACTERS]
                for event in parser.thinking(chunk) if kind == "thinking" else parser.text(chunk):
                    yield event
                if at == 0 and response.wait_for_file is not None:
                    await _until_exists(response.wait_for_file)
        for event in parser.finish():
            yield event
        for call in response.tool_calls:
            yield complete_call(ToolCallRequested(call.name, dict(call.arguments)), request.tools)
        if response.usage is not None:
            yield UsageReport(Usage(response.usage.input, response.usage.output, 0, 0))
        elif prompt_tokens is not None:
            yield UsageReport(Usage(prompt_tokens, _written_tokens(response), 0, 0))

    def _fitted(self, request: ChatRequest) -> int | None:
        """With a window declared, the request's prompt tokens (its bytes ÷ 4), refused as a
        server refuses a prompt over its window; without one, None (nothing is counted)."""
        window = self.script.context_size
        if window is None:
            return None
        tokens = request.estimated_tokens()
        if tokens > window:
            raise ContextOverflow(
                f"script {self.path}: the request takes {tokens:,} tokens, more than the "
                f"{window:,}-token window",
                tokens=tokens,
                window=window,
            )
        return tokens

    def _next_response(self, task: str | None) -> ScriptResponse:
        if task is None:
            self.requests += 1
            return self._nth(self.script.responses, self.requests, "")
        made = self.routed_requests[task] = self.routed_requests.get(task, 0) + 1
        return self._nth(self.script.routed.get(task, []), made, f" of the routed task {task!r}")

    def _nth(self, held: list[ScriptResponse], number: int, what: str) -> ScriptResponse:
        if number > len(held):
            raise ModelError(
                f"script {self.path}: no response left for request {number}{what} "
                f"(it holds {len(held)})"
            )
        return held[number - 1]

    async def aclose(self) -> None:
        return None


def _written_tokens(response: ScriptResponse) -> int:
    written = response.thinking + response.text
    written += "".join(call.name + json.dumps(call.arguments) for call in response.tool_calls)
    return -(-len(written.encode()) // 4)


async def resolve(
    name: str, config: Any = None, environ: Mapping[str, str] | None = None, client: Any = None
) -> ResolvedModel:
    """Read and check the file now; ``config``, ``environ`` and ``client`` are not needed."""
    path = canonical_name("script", name)
    script = await asyncio.to_thread(load_script, Path(path))
    return ResolvedModel(
        selection=f"script:{path}",
        backend_name="script",
        backend=ScriptBackend(path, script),
        capabilities=["toolCalling", "guidedGeneration", "reasoning"],
        capability_source="runtime",
        asset=path,
        context_size=script.context_size,
        context_note=None,
    )


def load_script(path: Path) -> ScriptFile:
    """The parsed file; any problem is ``ModelUnavailable`` naming file, line and column."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ModelUnavailable(f"script {path}: cannot read it: {exc.strerror}") from exc
    try:
        return msgspec.json.decode(raw, type=ScriptFile)
    except msgspec.ValidationError as exc:
        reason, where = _split_validation_error(str(exc))
        line, column = _line_column(raw, _value_offset(raw, where))
        shown = reason[:1].lower() + reason[1:]
        raise ModelUnavailable(f"{path}:{line}:{column}: {shown} at {where}") from exc
    except msgspec.DecodeError as exc:
        characters = len(raw[: _byte_offset(raw, str(exc))].decode(errors="replace"))
        line, column = _line_column(raw, characters)
        reason = str(exc).removeprefix("JSON is malformed: ").split(" (byte ")[0]
        raise ModelUnavailable(f"{path}:{line}:{column}: not valid JSON ({reason})") from exc


# -- where in the file an error is ------------------------------------------------------------

_AT = re.compile(r"^(.*) - at `(\$[^`]*)`$", re.DOTALL)
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


def _split_validation_error(message: str) -> tuple[str, str]:
    """``Expected `int`, got `str` - at `$.x``` → (``Expected int, got str``, ``$.x``)."""
    match = _AT.match(message)
    reason, where = (match.group(1), match.group(2)) if match else (message, "$")
    return reason.replace("`", ""), where


def _value_offset(raw: bytes, where: str) -> int:
    """Character offset of the value at a msgspec path such as ``$.responses[2].delay_ms``.

    msgspec names the path but not the place, and a person wants the line. Walks the JSON with
    the stdlib decoder, skipping values whole; anything odd falls back to the start.
    """
    text = raw.decode(errors="replace")
    steps = [key or int(index) for key, index in _STEP.findall(where)]
    try:
        return _walk(text, steps)
    except (ValueError, IndexError):
        return 0


def _walk(text: str, steps: list[str | int]) -> int:
    decoder = json.JSONDecoder()
    at = _skip_space(text, 0)
    for step in steps:
        at = _skip_space(text, at + 1)  # past "{" or "["
        if isinstance(step, int):
            for _ in range(step):
                at = _past_value(decoder, text, at)
            continue
        while True:
            key, at = json.decoder.scanstring(text, at + 1)
            at = _skip_space(text, _skip_space(text, at) + 1)  # past ":"
            if key == step:
                break
            at = _past_value(decoder, text, at)
    return at


def _past_value(decoder: json.JSONDecoder, text: str, at: int) -> int:
    """Index of the next item after the value at ``at`` (past its comma)."""
    _, end = decoder.raw_decode(text, at)
    return _skip_space(text, _skip_space(text, end) + 1)


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _byte_offset(raw: bytes, message: str) -> int:
    marker = "(byte "
    if marker in message:
        return int(message.rsplit(marker, 1)[1].rstrip(")"))
    return len(raw.rstrip()) if "truncated" in message else 0


def _line_column(raw: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset, as editors count them."""
    before = raw.decode(errors="replace")[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1
