"""The one seam to llama-cpp-python: load a GGUF, render a chat, generate token by token.

Everything here is synchronous and runs on worker threads; ``wisp.models.local`` owns the
threads and the event loop side. llama-cpp-python is imported only inside these functions, so
wisp imports without the ``local`` extra.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from wisp.agent.types import Message, ModelError, ModelUnavailable, ToolSpec
from wisp.models.local_calls import CallForm, Watch, form_grammar, forms_for
from wisp.models.local_tools import schema_grammar, template_places_tools, with_tools

NEEDS_EXTRA = "the local model needs the local extra: pip install 'wisp[local]'"

# For a GGUF without a chat template: ChatML, the most common format among small models.
_CHATML = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + "
    "message['content'] + '<|im_end|>\\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


class CallHold(msgspec.Struct, frozen=True):
    """What holds a reply's calls to their form: the forms watched for, the offered tools."""

    forms: tuple[CallForm, ...]
    tools: list[ToolSpec]


class Prompt(msgspec.Struct):
    """A request rendered by the model's chat template and tokenized."""

    tokens: list[int]
    stop: list[str]
    starts_thinking: bool
    """The template's generation prompt opened ``<think>``: the reply starts as thinking."""
    grammar: str | None = None
    """GBNF every token of the reply is held to: a request's schema."""
    calls: CallHold | None = None
    """Tools were offered: once the reply opens a call, the rest is held to the call's form."""
    barred: tuple[int, ...] = ()
    """Tokens the reply may not hold: the call openers of a request whose tools are in the
    prompt but not offered (``Engine.render``'s ``barred``)."""


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
        self.call_forms = forms_for(template if self.places_tools else None)
        """The forms this model's calls are watched for (docs/models.md, "The embedded
        model's tools")."""
        self.opener_tokens = self._opener_tokens()
        """The forms' openers that are one token each (Qwen's ``<tool_call>``): what a request
        that bars calls keeps the reply from writing."""
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
        barred: bool = False,
    ) -> Prompt:
        """The chat as the model's own template writes it, tools passed to it as ``tools``;
        to a template that cannot place them, written into the system message instead. Unless
        ``grammar`` is off, a call the reply opens is held to its form. A ``schema`` holds the
        whole reply to one JSON value fitting it (such a request offers no tools). ``barred``:
        the tools are written as ever, so the prompt starts as the turn's other requests did
        and the cache keeps it, but the reply may not open a call with a one-token opener."""
        rules = schema_grammar(schema) if schema is not None else None
        holds = tools and grammar and rules is None and not barred
        calls = CallHold(self.call_forms, tools) if holds else None
        if tools and not self.places_tools:
            messages = with_tools(messages, tools)
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
        bar = self.opener_tokens if barred else ()
        return Prompt(tokens, stop, starts_thinking, rules, calls, bar)

    def _opener_tokens(self) -> tuple[int, ...]:
        """The family's own call tags that are one token each (Qwen's ``<tool_call>``); a
        text opener (``{``, a fence) is never barred: an answer may hold it."""
        tokens = []
        for form in self.call_forms:
            if not form.marker or len(form.opener) > 1 or len(form.opener[0]) > 1:
                continue
            one = self._llm.tokenize(form.opener[0][0].encode(), add_bos=False, special=True)
            if len(one) == 1:
                tokens.append(one[0])
        return tuple(sorted(tokens))

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

        With tools offered the reply runs free, watched (``Watch``): text before a call costs
        nothing. Once it opens a call, generation goes back to where the opener began and
        writes the rest under the form's grammar: the opener again, then only well-formed
        calls of the offered tools, then the end. Greedy picks the opener's tokens again (they
        were the best; the grammar allows them), so only those few tokens are written twice.
        """
        with self._busy:
            cached = self._cached_prefix(prompt.tokens)
            if prompt.calls is None:
                reason = self._complete(prompt, prompt.tokens, prompt.grammar, sampling, emit, stop)
                return Generated(reason, cached)
            watch = Watch(prompt.calls.forms, thinking=prompt.starts_thinking)

            def watched(piece: str) -> bool:
                if shown := watch.feed(piece):
                    emit(shown)
                return watch.opened is None

            reason = self._complete(prompt, prompt.tokens, None, sampling, watched, stop)
            if watch.opened is None:
                if rest := watch.finish():
                    emit(rest)
                return Generated(reason, cached)
            if stop.is_set():
                return Generated(None, cached)
            return Generated(self._held_call(prompt, watch, sampling, emit, stop), cached)

    def _held_call(
        self, prompt: Prompt, watch: Watch, sampling: Sampling, emit: Emit, stop: threading.Event
    ) -> str | None:
        """The rest of a reply that opened a call, from the opener on, under its form's
        grammar; how it ended."""
        assert prompt.calls is not None and watch.opened is not None
        before = self._llm.tokenize(watch.before.encode(), add_bos=False, special=True)
        left = sampling.max_tokens
        if left is not None:
            left -= len(before)
            if left <= 0:
                return "length"
        grammar = form_grammar(watch.opened.form, prompt.calls.tools)
        held = msgspec.structs.replace(sampling, max_tokens=left)
        return self._complete(prompt, [*prompt.tokens, *before], grammar, held, emit, stop)

    def _complete(
        self,
        prompt: Prompt,
        tokens: list[int],
        grammar: str | None,
        sampling: Sampling,
        take: Callable[[str], bool | None],
        stop: threading.Event,
    ) -> str | None:
        """Generate from ``tokens`` (``prompt``'s, perhaps with more), each text piece to
        ``take`` (which returns False to end it there); how it ended: ``stop``, ``length``, or
        None (interrupted, or ended by ``take``)."""
        from llama_cpp import LlamaGrammar, StoppingCriteriaList

        chunks = self._llm.create_completion(
            prompt=tokens,
            max_tokens=sampling.max_tokens,
            temperature=sampling.temperature,
            seed=0 if sampling.temperature == 0 else None,
            stop=prompt.stop,
            stream=True,
            repeat_penalty=1.0,
            grammar=LlamaGrammar.from_string(grammar) if grammar else None,
            logit_bias=dict.fromkeys(prompt.barred, -math.inf) if prompt.barred else None,
            stopping_criteria=StoppingCriteriaList([lambda _ids, _logits: stop.is_set()]),
        )
        reason = None
        with contextlib.closing(chunks):
            for chunk in chunks:
                if stop.is_set():
                    return None
                choice = chunk["choices"][0]
                if choice["text"] and take(choice["text"]) is False:
                    return None
                reason = choice.get("finish_reason") or reason
        return reason

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
