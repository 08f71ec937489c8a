"""The agent's vocabulary: messages, tool calls, stream events, and the contracts it relies on.

The agent loop is handed a model backend, tools, a store and an audit log; it never imports
them. This module is the one they share: ``Backend`` (a model that streams one request),
``Tool`` (one callable tool) and the values that pass between them. Everything here is data or
a ``Protocol``; nothing does I/O.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Literal, Protocol

import msgspec

from wisp.errors import WispError
from wisp.tool_call import ToolCall as ToolCall  # re-exported: the store shares it

# -- messages ------------------------------------------------------------------------------

Role = Literal["system", "user", "assistant", "tool"]


class Message(msgspec.Struct, kw_only=True):
    """One chat message as every backend takes it; each backend maps it to its wire format."""

    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = msgspec.field(default_factory=list)
    """An assistant message's calls."""
    tool_call_id: str | None = None
    """A tool message: the call it answers."""
    tool_name: str | None = None
    """A tool message: the tool that produced it (Ollama wants it)."""


class ToolSpec(msgspec.Struct, frozen=True):
    """A tool as offered to a model: its name, what it does, and its JSON Schema."""

    name: str
    description: str
    parameters: dict[str, Any]


class Usage(msgspec.Struct, frozen=True):
    """Tokens one request (or a turn's requests, summed) used, as the runtime reported them."""

    input: int = 0
    output: int = 0
    cached: int = 0
    reasoning: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input,
            self.output + other.output,
            self.cached + other.cached,
            self.reasoning + other.reasoning,
        )


class ChatRequest(msgspec.Struct, frozen=True):
    """Everything one model request carries: the whole composition (backends are stateless)."""

    messages: list[Message]
    tools: list[ToolSpec] = msgspec.field(default_factory=list)
    think: bool | str | None = None
    """The thinking switch to send, or None to send nothing."""
    temperature: float | None = None
    max_tokens: int | None = None
    withheld: list[ToolSpec] = msgspec.field(default_factory=list)
    """The conversation's tools that this request does not offer (after a loop, or when an
    empty reply is asked again). A call to one written in the reply's text is still read as a
    call, which the agent refuses, never shown as the answer."""
    schema: dict[str, Any] | None = None
    """The JSON Schema the reply must match, for a backend that can hold the reply to it (a
    model with ``guidedGeneration``); the agent still validates the reply. Sent only on a
    request that offers no tools: a reply held to a schema could not call one."""
    task: str | None = None
    """The task wisp asks this of a model for, of its own accord (``assess``: docs/models.md,
    "Routed tasks"); None for the conversation's own requests."""
    kept_in_prompt: list[ToolSpec] = msgspec.field(default_factory=list)
    """On a request that offers no tools, the tools the turn's earlier requests offered: a
    backend whose prompt would otherwise start differently may write them as before, so its
    cache keeps the prompt, and bar calls instead (the local one does)."""

    @property
    def known_tools(self) -> list[ToolSpec]:
        """The tools whose calls written in the text are read as calls."""
        return [*self.tools, *self.withheld]

    def estimated_tokens(self) -> int:
        """The request's size at four UTF-8 bytes a token: what wisp counts when a runtime
        reports nothing, and what the ``script:`` backend reports (docs/turn.md)."""
        size = sum(message_bytes(message) for message in self.messages)
        size += sum(len(_JSON.encode(spec)) for spec in self.tools)
        return -(-size // BYTES_PER_TOKEN)


BYTES_PER_TOKEN = 4
MESSAGE_BYTES = 16
"""What a message costs besides its text: its role and the template's markers around it."""
_JSON = msgspec.json.Encoder()


def message_bytes(message: Message) -> int:
    """A message's UTF-8 bytes as a request carries it: its text, its calls, its framing."""
    size = MESSAGE_BYTES + len(message.content.encode())
    for call in message.tool_calls:
        size += MESSAGE_BYTES + len(call.name.encode()) + len(_JSON.encode(call.arguments))
    return size


# -- what a request streams back -------------------------------------------------------------


class ThinkingDelta(msgspec.Struct, frozen=True):
    """A fragment of the model's thinking (never sent back to it)."""

    text: str


class TextDelta(msgspec.Struct, frozen=True):
    """A fragment of the reply."""

    text: str


class ToolCallRequested(msgspec.Struct, frozen=True):
    """A whole tool call, once the model has finished writing it. The agent gives it its id."""

    name: str
    arguments: dict[str, Any]
    unparsed: str | None = None
    """A call written as text whose arguments did not parse, as written: it is not run, and
    its result says why (docs/models.md, "The reply parser")."""


class UsageReport(msgspec.Struct, frozen=True):
    """The request's token counts, when the runtime reports them."""

    usage: Usage


class HeldText(msgspec.Struct, frozen=True):
    """Reply text written but not shown yet, since it may still become a call: how much is held,
    and its end. A reply runs away inside a call as easily as outside one, so the turn's
    runaway guard counts this too. Sent again whenever the held text changes; ``size`` 0 once
    the text is shown or taken as a call."""

    size: int
    tail: str


StreamEvent = ThinkingDelta | TextDelta | HeldText | ToolCallRequested | UsageReport


# -- models -------------------------------------------------------------------------------

Capability = Literal["toolCalling", "guidedGeneration", "reasoning", "vision"]
"""What a model can do, as config.json, the audit log and the protocol spell it."""
CapabilitySource = Literal["runtime", "configuration", "undeclared"]

CAPABILITY_WORDS: dict[Capability, str] = {
    "toolCalling": "tool calling",
    "guidedGeneration": "structured replies",
    "reasoning": "thinking",
    "vision": "vision",
}
"""Each capability as people read it, everywhere they read one: ``wisp models``, its check,
chat's ``/model`` and the picker. The ids above stay in files and on the wire."""

TEXT_ONLY = "text only"
"""What is said first of a model that cannot call tools."""


def capability_words(capabilities: Iterable[str]) -> list[str]:
    """``["text only", "structured replies"]``: in the usual order, led by ``text only`` when
    tool calling is not among them."""
    names = set(capabilities)
    words = [word for name, word in CAPABILITY_WORDS.items() if name in names]
    return words if "toolCalling" in names else [TEXT_ONLY, *words]


class Backend(Protocol):
    """One resolved model that can answer requests.

    ``stream`` yields events until the reply is complete and returns; it raises ``ModelError``
    (or ``ContextOverflow``) on failure. Cancelling the task that iterates it stops the request
    (docs/turn.md, "Stopping a turn"): an HTTP stream is closed, the local model stops between
    tokens, a script between chunks.
    """

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]: ...

    async def aclose(self) -> None: ...


class ResolvedModel(msgspec.Struct):
    """A model chosen and checked, ready for a conversation (docs/models.md, "Selections")."""

    selection: str
    """The canonical selection: ``local``, ``ollama:qwen3:latest``, ``script:/abs/path.json``."""
    backend_name: str
    """``local`` or the scheme, for ``model.resolved``'s ``backend``."""
    backend: Backend
    capabilities: list[Capability]
    capability_source: CapabilitySource
    asset: str | None
    """What backs it, for the audit: a real path, or ``<baseURL> <server id>``; never a key."""
    context_size: int | None
    context_note: str | None

    @property
    def can_call_tools(self) -> bool:
        return "toolCalling" in self.capabilities


class ModelError(WispError):
    """A model request failed; the message says why, in the runtime's terms."""


class ContextOverflow(ModelError):
    """The prompt (or the prompt and the reply) did not fit the model's window.

    ``tokens`` is what the runtime counted for the request and ``window`` the window it has,
    when its message says them: the agent learns the window for the session from it, and
    condenses from the runtime's own count before it asks once more (docs/turn.md)."""

    def __init__(
        self, message: str, *, tokens: int | None = None, window: int | None = None
    ) -> None:
        super().__init__(message)
        self.tokens = tokens
        self.window = window


class ModelUnavailable(ModelError):
    """The model cannot be used: no server, no such model, a missing extra, bad selection."""


# -- tools --------------------------------------------------------------------------------


class ConversationView(Protocol):
    """What a tool may read of the conversation it runs in (inspect, memory, edit_file)."""

    session: str
    turn: int
    model: str
    tool_names: list[str]
    store: Any
    """The ``wisp.store.ConversationStore``."""
    home: Path
    """``WISP_HOME``."""
    config: Any
    """The ``wisp.config.Config`` in force."""
    audit_file: Path | None
    """The audit file, None when the audit log is off."""
    stop_requested: Any
    """An ``asyncio.Event`` set when the person stops the turn."""
    kill_requested: Any
    """An ``asyncio.Event`` set by a second stop: kill what still runs at once."""
    facts: Any
    """The conversation's facts (``wisp.agent.facts.ConversationFacts``), where ``memory
    note`` holds what the model notes; None when the conversation keeps none."""
    side_calls: Any
    """Calls to a routed model outside the conversation (``wisp.agent.side_calls.SideCalls``),
    for ``memory``'s ``summarise`` and ``condense``; None when no model is attached."""
    summary: Any
    """The running summary (``wisp.agent.distilling.RunningSummary``), for ``recall summary``;
    None when the conversation keeps none."""

    def running_command(self) -> AbstractContextManager[None]:
        """Held while a command runs: a stop lets it end (SIGTERM, then SIGKILL) before the
        turn does."""
        ...


class KeepOutput(Protocol):
    """Keeps a call's whole output in the output store (``output/<session>/<call>``, recorded
    as ``output.kept``), once per call, so that a held-back marker may name it by the call's
    id. ``cut``: ``text`` is already only the start of the output. Returns True when the output
    is kept there, False when it is not (a marker must not name the id then)."""

    def __call__(self, text: str, *, cut: bool = False) -> bool: ...


def keeps_nothing(text: str, *, cut: bool = False) -> bool:
    """Where no output store is at hand (the person's ``/inspect``, a test): nothing is kept."""
    return False


class ToolContext(msgspec.Struct):
    """What a tool may use while it runs. Passed in per call; tools keep no global state."""

    working_directory: Path
    call_id: str
    output_budget: int
    """B: the bytes of output a result may carry (docs/turn.md, "Output budget")."""
    record: Callable[[Any], Any]
    """Records an audit event (a ``wisp.audit`` Details) under this call's id; returns it."""
    conversation: ConversationView
    keep_output: KeepOutput = keeps_nothing
    """Keeps a tool's whole output under this call's id, for a tool that fits its own output
    to the budget; the audited layer provides it. Without it nothing is kept."""
    notes: list[str] = msgspec.field(default_factory=list)
    """One-line notes the audited layer puts at the end of the result (arguments ignored)."""


class Tool(Protocol):
    """One tool the model can call. Ordinary failures are results starting ``error:``.

    A tool may also have ``extra_parameters``: the names of optional parameters a small window
    is not offered (``wisp.agent.prompt.small_window_schema``); it must still take them."""

    name: str
    description: str
    parameters: dict[str, Any]
    read_only: bool

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str: ...


class LateTools(Protocol):
    """Tools that join a conversation at its first turn, once what offers them has started
    (the configured MCP servers, started beside the model)."""

    async def arrived(self) -> list[Tool]: ...
