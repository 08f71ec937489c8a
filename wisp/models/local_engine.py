"""The one seam to llama-cpp-python: load a GGUF, render a chat, generate token by token.

Everything here is synchronous and runs on worker threads; ``wisp.models.local`` owns the
threads and the event loop side. llama-cpp-python is imported only inside these functions, so
wisp imports without the ``local`` extra.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from wisp.agent.types import Message, ModelError, ModelUnavailable, ToolSpec
from wisp.models.local_tools import (
    call_grammar,
    calls_only,
    schema_grammar,
    template_places_tools,
    with_tools,
)

NEEDS_EXTRA = "the local model needs the local extra: pip install 'wisp[local]'"

# For a GGUF without a chat template: ChatML, the most common format among small models.
_CHATML = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + "
    "message['content'] + '<|im_end|>\\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


class Prompt(msgspec.Struct):
    """A request rendered by the model's chat template and tokenized."""

    tokens: list[int]
    stop: list[str]
    starts_thinking: bool
    """The template's generation prompt opened ``<think>``: the reply starts as thinking."""
    grammar: str | None = None
    """GBNF the reply is held to: ``call | text``, for tools wisp wrote into the prompt, or a
    request's schema."""
    held: bool = False
    """The grammar is a schema's: it holds every token, never only the first."""


class Sampling(msgspec.Struct, frozen=True):
    temperature: float
    max_tokens: int | None


class Generated(msgspec.Struct, frozen=True):
    """How a generation ended."""

    reason: str | None
    """``stop`` (end of turn), ``length`` (max_tokens or the window), None if interrupted."""
    cached: int
    """Prompt tokens reused from the previous request's cache."""


Emit = Callable[[str], None]


class Engine:
    """A loaded model. One generation at a time: the model has one context and one cache."""

    def __init__(
        self,
        path: Path,
        *,
        window: int,
        threads: int | None,
        shown: Path | None = None,
        batch_threads: int | None = None,
    ) -> None:
        """Load ``path`` (``shown`` is the name to give it in errors, when ``path`` is an open
        file's ``/proc/self/fd`` entry). ``threads`` generate, ``batch_threads`` read the
        prompt; None is llama-cpp-python's default for each (half the CPUs; all of them)."""
        try:
            from llama_cpp import Llama
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter
        except ImportError as exc:
            raise ModelUnavailable(NEEDS_EXTRA) from exc
        try:
            # verbose=False keeps llama.cpp's own log off stderr; stdout is the protocol's.
            self._llm = Llama(
                str(path),
                n_ctx=window,
                n_threads=threads,
                n_threads_batch=batch_threads,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelUnavailable(f"local: cannot load {shown or path}: {exc}") from exc
        eos = self._llm.token_eos()
        template = self._llm.metadata.get("tokenizer.chat_template") or _CHATML
        self.places_tools = template_places_tools(template)
        """The template writes the request's tools; else wisp writes them into the prompt."""
        self._formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=self._token_text(eos),
            bos_token=self._token_text(self._llm.token_bos()),
            stop_token_ids=[eos],
        )
        self._busy = threading.Lock()

    def render(
        self,
        messages: list[Message],
        tools: list[ToolSpec],
        template_options: dict[str, Any],
        *,
        grammar: bool = True,
        schema: dict[str, Any] | None = None,
    ) -> Prompt:
        """The chat as the model's own template writes it, tools passed to it as ``tools``;
        to a template that cannot place them, written into the system message instead, the
        reply held to a call or text by a grammar unless ``grammar`` is off. A ``schema``
        holds the whole reply to one JSON value fitting it (such a request offers no tools)."""
        rules = schema_grammar(schema) if schema is not None else None
        if tools and not self.places_tools:
            messages = with_tools(messages, tools)
            if rules is None and grammar:
                rules = call_grammar(tools)
            tools = []
        try:
            rendered = self._formatter(
                messages=[_template_message(m) for m in messages],
                tools=[_template_tool(tool) for tool in tools] or None,
                **template_options,
            )
        except Exception as exc:  # a template's raise_exception, or jinja2's own errors
            raise ModelError(f"local: the model's chat template failed: {exc}") from exc
        tokens = self._llm.tokenize(
            rendered.prompt.encode(), add_bos=not rendered.added_special, special=True
        )
        stop = [rendered.stop] if isinstance(rendered.stop, str) else list(rendered.stop or [])
        starts_thinking = rendered.prompt.rstrip().endswith("<think>")
        return Prompt(tokens, stop, starts_thinking, rules, held=schema is not None)

    def _cached_prefix(self, tokens: list[int]) -> int:
        """Prompt tokens the last request left in the cache, which llama-cpp-python reuses."""
        held = self._llm.input_ids[: self._llm.n_tokens]
        count = 0
        for old, new in zip(held, tokens, strict=False):
            if old != new:
                break
            count += 1
        return count

    def generate(
        self, prompt: Prompt, sampling: Sampling, emit: Emit, stop: threading.Event
    ) -> Generated:
        """Stream text pieces to ``emit``; say how it ended.

        ``stop`` is checked before every token, inside llama-cpp-python's loop (a stopping
        criterion) and again between pieces, so an interrupt ends it within a token.
        """
        from llama_cpp import LlamaGrammar, StoppingCriteriaList

        greedy = sampling.temperature == 0
        with self._busy:
            cached = self._cached_prefix(prompt.tokens)
            tokens, grammar, first = self._opening(prompt, sampling)
            max_tokens = sampling.max_tokens
            if first:
                emit(first)
                if max_tokens is not None:
                    max_tokens -= 1
                    if max_tokens <= 0:
                        return Generated("length", cached)
            chunks = self._llm.create_completion(
                prompt=tokens,
                max_tokens=max_tokens,
                temperature=sampling.temperature,
                seed=0 if greedy else None,
                stop=prompt.stop,
                stream=True,
                repeat_penalty=1.0,
                grammar=LlamaGrammar.from_string(grammar) if grammar else None,
                stopping_criteria=StoppingCriteriaList([lambda _ids, _logits: stop.is_set()]),
            )
            reason = None
            with contextlib.closing(chunks):
                for chunk in chunks:
                    if stop.is_set():
                        return Generated(None, cached)
                    choice = chunk["choices"][0]
                    if choice["text"]:
                        emit(choice["text"])
                    reason = choice.get("finish_reason") or reason
            return Generated(reason, cached)

    def _opening(self, prompt: Prompt, sampling: Sampling) -> tuple[list[int], str | None, str]:
        """(tokens to go on from, the grammar to go on under, text already written).

        The ``call | text`` grammar decides at the first token, and checking every token of the
        vocabulary against it at every step costs about a third of the generation rate. So the
        first token alone is sampled under it: a ``{`` starts a call, generated again from the
        start under the call's grammar alone (greedy picks the same token: it was the best the
        wider grammar allowed); text goes on free, which the ``text`` rule allowed anyway."""
        if not prompt.grammar or prompt.held:
            return prompt.tokens, prompt.grammar, ""
        from llama_cpp import LlamaGrammar

        tokens = self._llm.generate(
            prompt.tokens,
            temp=sampling.temperature,
            repeat_penalty=1.0,
            grammar=LlamaGrammar.from_string(prompt.grammar),
        )
        with contextlib.closing(tokens):
            token = next(tokens)
        piece = self._llm.detokenize([token])
        if piece.startswith(b"{"):
            return prompt.tokens, calls_only(prompt.grammar), ""
        try:
            return [*prompt.tokens, token], None, piece.decode()
        except UnicodeDecodeError:  # part of a character: let the grammar run it whole
            return prompt.tokens, prompt.grammar, ""

    def count(self, text: str) -> int:
        """Tokens ``text`` takes, by the model's own tokenizer."""
        if not text:
            return 0
        return len(self._llm.tokenize(text.encode(), add_bos=False, special=True))

    def close(self) -> None:
        with self._busy:  # never under a running generation
            self._llm.close()

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        return self._llm.detokenize([token], special=True).decode(errors="replace")


def _template_message(message: Message) -> dict[str, Any]:
    """A message in the Hugging Face shape chat templates expect."""
    entry: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        entry["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in message.tool_calls
        ]
    if message.role == "tool":
        entry["tool_call_id"] = message.tool_call_id
        entry["name"] = message.tool_name
    return entry


def _template_tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }
