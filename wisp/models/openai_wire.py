"""What OpenAI-compatible runtimes speak: the dialects, the request, the streamed reply.

A dialect value says what sets ``llamacpp:``, ``lmstudio:`` and ``openai:`` apart;
the rest is the wire format all three share: ``POST /v1/chat/completions``'s body, with call ids
by position, and the server-sent events of its reply.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import msgspec

from wisp.agent.types import ContextOverflow, Message, ModelError, Usage
from wisp.models.http import ErrorDetail, Server, ServerError, WireTool
from wisp.models.parsing import is_overflow_message, overflow_error


class Dialect(msgspec.Struct, frozen=True):
    """What sets one OpenAI-compatible runtime apart (names, hints, thinking, listing)."""

    scheme: str
    runtime: str
    start_hint: str
    has_think_switch: bool
    """Sends ``chat_template_kwargs.enable_thinking`` when a thinking switch is set."""
    declares_by_config: bool
    """Capabilities come from ``<scheme>.models.<name>.capabilities`` (and the check)."""
    is_always_guided: bool
    """Enforces ``response_format`` with a grammar, so ``guidedGeneration`` always holds."""
    schema_format: Literal["json_object", "json_schema"]
    """How ``response_format`` carries a schema: ``json_object`` with a ``schema`` beside it
    (llama.cpp's server takes it, llama-cpp-python's takes only it) or OpenAI's
    ``json_schema`` (LM Studio, vLLM)."""

    @property
    def key_variable(self) -> str:
        return f"WISP_{self.scheme.upper()}_API_KEY"


LLAMACPP = Dialect(
    scheme="llamacpp",
    runtime="llama.cpp",
    start_hint="start one with llama-server -m <model.gguf>, or set llamacpp.baseURL",
    has_think_switch=True,
    declares_by_config=True,
    is_always_guided=True,
    schema_format="json_object",
)
LMSTUDIO = Dialect(
    scheme="lmstudio",
    runtime="LM Studio",
    start_hint=(
        "start it from LM Studio's Developer tab or with lms server start, or set lmstudio.baseURL"
    ),
    has_think_switch=False,
    declares_by_config=False,
    is_always_guided=True,
    schema_format="json_schema",
)
OPENAI = Dialect(
    scheme="openai",
    runtime="OpenAI-compatible server",
    start_hint="set openai.baseURL to the server's address",
    has_think_switch=True,
    declares_by_config=True,
    is_always_guided=False,
    schema_format="json_schema",
)


def response_format(dialect: Dialect, schema: dict[str, Any]) -> dict[str, Any]:
    """``response_format`` holding the reply to ``schema``, as ``dialect``'s runtime takes it."""
    if dialect.schema_format == "json_object":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}


DIALECTS = {dialect.scheme: dialect for dialect in (LLAMACPP, LMSTUDIO, OPENAI)}

# -- the request -------------------------------------------------------------------------------


class WireFunction(msgspec.Struct):
    name: str
    arguments: str
    """JSON text, as OpenAI's API has it."""


class WireCall(msgspec.Struct):
    id: str
    function: WireFunction
    type: str = "function"


class WireMessage(msgspec.Struct):
    role: str
    content: str | None
    """None (written as null) for an assistant turn that is only calls."""
    tool_calls: list[WireCall] | msgspec.UnsetType = msgspec.UNSET
    tool_call_id: str | msgspec.UnsetType = msgspec.UNSET


class StreamOptions(msgspec.Struct):
    include_usage: bool = True


class TemplateKwargs(msgspec.Struct):
    enable_thinking: bool


class ChatBody(msgspec.Struct):
    """``POST /v1/chat/completions``; encoded with sorted keys."""

    model: str
    messages: list[WireMessage]
    stream: bool = True
    stream_options: StreamOptions | msgspec.UnsetType = msgspec.field(default_factory=StreamOptions)
    tools: list[WireTool] | msgspec.UnsetType = msgspec.UNSET
    temperature: float | msgspec.UnsetType = msgspec.UNSET
    max_tokens: int | msgspec.UnsetType = msgspec.UNSET
    chat_template_kwargs: TemplateKwargs | msgspec.UnsetType = msgspec.UNSET
    response_format: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET
    """The schema the reply is held to, in the dialect's ``schema_format``."""


def call_id(position: int) -> str:
    """``call00001``: positional, 9 alphanumerics, as Mistral templates require."""
    return f"call{position:05d}"


def wire_messages(messages: list[Message]) -> list[WireMessage]:
    """The transcript in OpenAI's shape, with call ids by position (stable per transcript)."""
    wired: list[WireMessage] = []
    unanswered: list[tuple[str, str, str]] = []  # (wisp's id, tool name, positional id)
    issued = 0
    for message in messages:
        if message.role == "assistant" and message.tool_calls:
            calls = []
            for call in message.tool_calls:
                issued += 1
                unanswered.append((call.id, call.name, call_id(issued)))
                calls.append(
                    WireCall(call_id(issued), WireFunction(call.name, _json(call.arguments)))
                )
            wired.append(WireMessage("assistant", message.content or None, tool_calls=calls))
        elif message.role == "tool":
            answered = _answer(unanswered, message)
            wired.append(WireMessage("tool", message.content, tool_call_id=answered))
        else:
            wired.append(WireMessage(message.role, message.content))
    return wired


def _answer(unanswered: list[tuple[str, str, str]], message: Message) -> str:
    """The call a result answers: by wisp's id, else the first of its tool, else the first."""
    for matches in (
        lambda entry: entry[0] == message.tool_call_id,
        lambda entry: entry[1] == message.tool_name,
        lambda entry: True,
    ):
        for entry in unanswered:
            if matches(entry):
                unanswered.remove(entry)
                return entry[2]
    return call_id(0)  # a result with no call before it: nothing to match, keep it well-formed


def _json(arguments: dict[str, Any]) -> str:
    return msgspec.json.encode(arguments, order="sorted").decode()


def thinking_switch(think: bool | str) -> bool:
    """A level (``high``) turns thinking on; llama.cpp's switch has no levels."""
    return think if isinstance(think, bool) else think.lower() not in ("false", "off", "none")


# -- the reply ---------------------------------------------------------------------------------


class FunctionFragment(msgspec.Struct):
    name: str | None = None
    arguments: str | None = None


class CallFragment(msgspec.Struct):
    index: int | None = None
    id: str | None = None
    function: FunctionFragment | None = None


class Delta(msgspec.Struct):
    content: str | None = None
    reasoning_content: str | None = None
    """llama.cpp, DeepSeek, vLLM before 0.10."""
    reasoning: str | None = None
    """LM Studio, OpenRouter, vLLM from 0.10, Ollama's /v1."""
    thinking: str | None = None
    """Some proxies pass Ollama's and Anthropic's name through."""
    tool_calls: list[CallFragment] | None = None

    @property
    def reasoning_text(self) -> str:
        """Whichever of the three fields the server filled."""
        return self.reasoning_content or self.reasoning or self.thinking or ""


class Choice(msgspec.Struct):
    delta: Delta = msgspec.field(default_factory=Delta)
    finish_reason: str | None = None


class TokenDetails(msgspec.Struct):
    cached_tokens: int | None = None
    reasoning_tokens: int | None = None


class WireUsage(msgspec.Struct):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_tokens_details: TokenDetails | None = None
    completion_tokens_details: TokenDetails | None = None


class Chunk(msgspec.Struct):
    """One server-sent event of a streamed chat completion."""

    choices: list[Choice] = msgspec.field(default_factory=list)
    usage: WireUsage | None = None
    error: ErrorDetail | str | None = None


class _GatheredCall(msgspec.Struct):
    id: str | None = None
    name: str = ""
    arguments: list[str] = msgspec.field(default_factory=list)


class CallGatherer(msgspec.Struct):
    """Tool-call fragments joined into calls, by ``index``."""

    calls: list[_GatheredCall] = msgspec.field(default_factory=list)
    by_index: dict[int, _GatheredCall] = msgspec.field(default_factory=dict)

    def add(self, fragment: CallFragment) -> None:
        function = fragment.function or FunctionFragment()
        call = self._call_for(fragment, function)
        if fragment.id and not call.id:
            call.id = fragment.id
        if function.name and not call.name:
            call.name = function.name  # set once: old LM Studio sent an empty name afterwards
        if function.arguments:
            call.arguments.append(function.arguments)

    def _call_for(self, fragment: CallFragment, function: FunctionFragment) -> _GatheredCall:
        if fragment.index is not None:
            if fragment.index not in self.by_index:
                self.by_index[fragment.index] = self._new()
            return self.by_index[fragment.index]
        last = self.calls[-1] if self.calls else None
        if (
            last is None
            or (fragment.id and last.id and fragment.id != last.id)
            or (function.name and last.name)
        ):
            return self._new()
        return last

    def _new(self) -> _GatheredCall:
        self.calls.append(_GatheredCall())
        return self.calls[-1]


def parse_call(call: _GatheredCall, runtime: str) -> tuple[str, dict[str, Any]]:
    """A gathered call's name and arguments; empty arguments are ``{}``."""
    text = "".join(call.arguments).strip()
    if not call.name:
        raise ModelError(f"{runtime} sent a tool call with no name; nothing of it was kept")
    try:
        arguments = json.loads(text) if text else {}
    except json.JSONDecodeError as exc:
        raise ModelError(
            f"{runtime} sent a call to {call.name} whose arguments are not JSON ({exc.msg}): "
            f"{text[:200]}"
        ) from exc
    if not isinstance(arguments, dict):
        raise ModelError(f"{runtime} sent a call to {call.name} whose arguments are not an object")
    return call.name, arguments


def usage_from(usage: WireUsage, thinking_chunks: int) -> Usage:
    """Reasoning tokens as reported, else one per thinking chunk."""
    prompt = usage.prompt_tokens_details
    completion = usage.completion_tokens_details
    reasoning = (completion.reasoning_tokens if completion else None) or thinking_chunks
    return Usage(
        input=usage.prompt_tokens,
        output=max(usage.completion_tokens, reasoning),
        cached=(prompt.cached_tokens if prompt else None) or 0,
        reasoning=reasoning,
    )


def refusal(
    dialect: Dialect, server: Server, status: int, error: ServerError, key_sent: bool
) -> ModelError:
    """A non-200 answer as a message naming the server and what to do."""
    if status in (401, 403):
        why = "the API key wisp sent is not one it accepts" if key_sent else "it wants an API key"
        return ModelError(
            f"{dialect.runtime} at {server.base_url} refused the request (HTTP {status}): {why}; "
            f"set {dialect.key_variable}, or {dialect.scheme}.apiKey in config.json"
        )
    if is_overflow_message(error.message, error.type):
        return overflow(dialect, error.message)
    return ModelError(f"{dialect.runtime} returned HTTP {status}: {error.message[:200]}")


def overflow(dialect: Dialect, why: str) -> ContextOverflow:
    """With the counts the server's words give, for the agent to condense from."""
    return overflow_error(f"the conversation no longer fits {dialect.runtime}'s window: {why}")
