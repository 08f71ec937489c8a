"""``wisp models pull ollama:NAME``: Ollama's progress on stderr, ``model.pull`` at the end.

The progress line is shared with ``hf:`` pulls (``wisp.cli.models.pull_hf``), whose one layer
is named by its file.

On a terminal the progress is one line rewritten in place, with a bar, the bytes, the rate and
the time left; piped, it is a plain line per step and one every few seconds in between.
Ctrl-C cancels the task, which closes the stream (Ollama keeps what arrived); the outcome is
recorded as ``cancelled`` and the exit is 130, as for any interrupt.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TextIO

from wisp.agent.types import ModelError
from wisp.audit.kinds import ModelPull
from wisp.cli.context import Context
from wisp.cli.models.session import CLI, Origin, Record
from wisp.config import Config
from wisp.models.catalog import human_bytes
from wisp.models.ollama_pull import PullProgress, new_progress, pull
from wisp.models.selection import canonical_selection

BAR_CELLS = 20
REDRAW_SECONDS = 0.1
PLAIN_EVERY_SECONDS = 5.0


class PullView:
    """Renders a pull's progress on ``stream``."""

    def __init__(
        self,
        stream: TextIO,
        *,
        is_terminal: bool,
        width: int = 80,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.is_terminal = is_terminal
        self.width = width
        self.clock = clock
        self._shown_at = float("-inf")
        self._step = ("", "")
        self._open = False

    def update(self, progress: PullProgress) -> None:
        now = self.clock()
        step = (progress.status, progress.current)
        is_new_step = step != self._step
        self._step = step
        if self.is_terminal:
            if is_new_step or now - self._shown_at >= REDRAW_SECONDS:
                line = progress_line(progress, now, bar=True)[: self.width - 1]
                self.stream.write(f"\r{line}\x1b[K")
                self.stream.flush()
                self._shown_at, self._open = now, True
        elif is_new_step or now - self._shown_at >= PLAIN_EVERY_SECONDS:
            self.stream.write(progress_line(progress, now, bar=False) + "\n")
            self.stream.flush()
            self._shown_at = now

    def finish(self) -> None:
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False


def progress_line(progress: PullProgress, now: float, *, bar: bool) -> str:
    """``[2/5] sha256:3f2a9c1e… [####----] 412 MB of 938 MB (44%) · 12 MB/s · 41 s left``."""
    layer = progress.layers.get(progress.current)
    if layer is None:
        return progress.status or "starting"
    index, count = progress.position()
    percent = layer.completed * 100 // layer.total if layer.total else 0
    parts = [f"[{index}/{count}] {_short(layer.digest)}"]
    if bar:
        filled = percent * BAR_CELLS // 100
        parts.append("[" + "#" * filled + "-" * (BAR_CELLS - filled) + "]")
    parts.append(f"{human_bytes(layer.completed)} of {human_bytes(layer.total)} ({percent}%)")
    line = " ".join(parts)
    elapsed = now - progress.started
    rate = progress.fetched / elapsed if elapsed > 0 else 0
    if rate > 0:
        left = max(0, progress.total - progress.completed) / rate
        line += f" · {human_bytes(int(rate))}/s · {_duration(left)} left"
    return line


def summary_line(selection: str, progress: PullProgress, seconds: float) -> str:
    """``pulled ollama:NAME: 3 layers fetched (4.9 GB), 2 already here, in 93.1 s``."""
    fetched = progress.fetched_files
    layers = "layer" if fetched == 1 else "layers"
    return (
        f"pulled {selection}: {fetched} {layers} fetched ({human_bytes(progress.fetched)}), "
        f"{progress.reused} already here, in {seconds:.1f} s"
    )


async def pull_model(context: Context, config: Config, name: str, *, record: Record) -> int:
    """Pull ``name`` (the part after ``ollama:``), its progress on stderr; ``model.pull``
    records how it ended."""
    view = new_view(context)
    is_cancelled = False
    try:
        summary = await pull_recorded(
            config, name, record=record, origin=CLI, on_update=view.update,
            cancelled="interrupted (Ctrl-C)",
        )  # fmt: skip
    except asyncio.CancelledError:
        is_cancelled = True
        raise
    finally:
        view.finish()
        if is_cancelled:
            context.warn("pull cancelled: Ollama keeps what arrived and resumes from it next time")
    print(summary, file=context.stdout, flush=True)
    return 0


async def pull_recorded(
    config: Config,
    name: str,
    *,
    record: Record,
    origin: Origin,
    on_update: Callable[[PullProgress], None],
    cancelled: str,
) -> str:
    """Have Ollama pull ``name``; ``model.pull`` records how it ended, as asked by ``origin``
    (``cancelled``: why, should the task be cancelled); the summary line."""
    import httpx

    selection = canonical_selection(f"ollama:{name}")
    progress = new_progress(name)
    outcome, reason = "failed", None
    try:
        async with httpx.AsyncClient() as client:
            await pull(client, config.settings.ollama, progress, on_update=on_update)
        outcome = progress.outcome()
    except asyncio.CancelledError:
        outcome, reason = "cancelled", cancelled
        raise
    except ModelError as exc:
        reason = str(exc)
        raise
    finally:
        seconds = round(time.monotonic() - progress.started, 3)
        record(ollama_pull_event(selection, name, progress, outcome, reason, seconds, origin))
    return summary_line(selection, progress, seconds)


def ollama_pull_event(
    selection: str,
    name: str,
    progress: PullProgress,
    outcome: str,
    reason: str | None,
    seconds: float,
    origin: Origin,
) -> ModelPull:
    """``model.pull`` for an Ollama pull of ``name`` that ended so."""
    event = ModelPull(
        model=selection,
        source=origin.source,
        repository=name,
        # Null for an Ollama pull: the kind has these fields for pulls that name a directory
        # and a cache, and Ollama keeps both to itself.
        directory=None,
        cache=None,
        files=len(progress.layers),
        bytes=progress.total,
        reused=progress.reused,
        seeded=0,
        fetched_files=progress.fetched_files,
        fetched=progress.fetched,
        link=None,
        outcome=outcome,
        seconds=seconds,
    )
    return origin.ended(event, reason)


def _short(digest: str) -> str:
    """``sha256:3f2a9c1e…``; a file's name (an ``hf:`` pull's layer) as it is, or its end."""
    algorithm, colon, value = digest.partition(":")
    if not colon:
        return digest if len(digest) <= 40 else "…" + digest[-39:]
    return f"{algorithm}:{value[:8]}…" if value else digest[:16]


def _duration(seconds: float) -> str:
    whole = int(seconds + 0.5)
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def new_view(context: Context) -> PullView:
    """The progress view on stderr: one line rewritten in place on a terminal."""
    return PullView(
        context.stderr, is_terminal=context.stderr.isatty(), width=terminal_width(context)
    )


def terminal_width(context: Context) -> int:
    import os

    try:
        return os.get_terminal_size(context.stderr.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 80
