"""Ollama's API as msgspec Structs: ``/api/tags``, ``/api/show``, ``/api/ps``, ``/api/chat``.

Only the fields wisp reads are declared; others are skipped on decoding. ``model_info`` stays an
open mapping: its keys are prefixed by each model's architecture.
"""

from __future__ import annotations

from typing import Any

import msgspec

from wisp.models.http import WireTool


class TagDetails(msgspec.Struct):
    parameter_size: str = ""
    family: str = ""
    quantization_level: str = ""


class Tag(msgspec.Struct):
    name: str
    size: int = 0
    details: TagDetails = msgspec.field(default_factory=TagDetails)


class Tags(msgspec.Struct):
    """``GET /api/tags``."""

    models: list[Tag] = msgspec.field(default_factory=list)


class Show(msgspec.Struct):
    """``POST /api/show``; ``capabilities`` is None from an Ollama too old to report them."""

    capabilities: list[str] | None = None
    model_info: dict[str, Any] = msgspec.field(default_factory=dict)  # architecture-prefixed
    modelfile: str = ""


class Loaded(msgspec.Struct):
    name: str
    size: int = 0
    size_vram: int = 0


class Running(msgspec.Struct):
    """``GET /api/ps``."""

    models: list[Loaded] = msgspec.field(default_factory=list)


class WireFunction(msgspec.Struct):
    name: str
    arguments: dict[str, Any] = msgspec.field(default_factory=dict)


class WireCall(msgspec.Struct):
    function: WireFunction


class WireMessage(msgspec.Struct):
    role: str
    content: str = ""
    tool_calls: list[WireCall] | msgspec.UnsetType = msgspec.UNSET
    tool_name: str | msgspec.UnsetType = msgspec.UNSET


class Options(msgspec.Struct):
    num_ctx: int
    temperature: float | msgspec.UnsetType = msgspec.UNSET
    num_predict: int | msgspec.UnsetType = msgspec.UNSET


class ChatBody(msgspec.Struct):
    """``POST /api/chat``."""

    model: str
    messages: list[WireMessage]
    options: Options
    stream: bool = True
    truncate: bool = False
    """Refuse a prompt longer than ``num_ctx`` (HTTP 400, with both counts) rather than drop
    its front without a word, as Ollama does by default; an Ollama too old to know the field
    ignores it."""
    tools: list[WireTool] | msgspec.UnsetType = msgspec.UNSET
    think: bool | str | msgspec.UnsetType = msgspec.UNSET
    format: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET
    """The JSON Schema Ollama holds the reply to (a request's ``schema``)."""


class ChunkMessage(msgspec.Struct):
    content: str = ""
    thinking: str = ""
    """Ollama's name for the reasoning it splits out (``think`` on)."""
    reasoning: str = ""
    """The name servers that mimic Ollama's API may use instead."""
    tool_calls: list[WireCall] = msgspec.field(default_factory=list)


class Chunk(msgspec.Struct):
    """One NDJSON line of a chat reply."""

    message: ChunkMessage | None = None
    done: bool = False
    error: str | None = None
    prompt_eval_count: int = 0
    eval_count: int = 0
