"""A draft written: one side call routed for the task ``draft`` (``routing.tasks.draft``, else
wisp's measured default for a plain reply, else ``local``; ``model.routed`` recorded), its
request fitted to the routed model's window, its reply cleaned as it streams (docs/draft.md,
"The model")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wisp.agent.side_calls import SideCalls
from wisp.agent.types import ChatRequest
from wisp.audit import AuditLog
from wisp.audit.kinds import ModelRouted
from wisp.cli.building.model_choice import ModelChoice
from wisp.cli.building.session import NamedModel
from wisp.cli.context import Context
from wisp.draft.cleaning import Cleaner
from wisp.draft.prompts import DEFAULT_WINDOW, DraftPrompt, Gathered
from wisp.draft.tasks import DraftError, DraftTask
from wisp.models.selection import LOCAL
from wisp.routing.router import Router

TASK = "draft"
"""The routed task every draft runs as."""


class _Told:
    """The session's log, and the person told on stderr which model writes the draft."""

    def __init__(self, log: AuditLog, context: Context) -> None:
        self.log = log
        self.context = context

    def record(self, details: Any) -> Any:
        if isinstance(details, ModelRouted):
            self.context.warn(f"draft: written by {details.model} ({details.reason})")
        return self.log.record(details)


class _Shown:
    """The reply cleaned as it streams, and on a terminal written to stdout as it comes."""

    def __init__(self, task: DraftTask, context: Context, *, streaming: bool) -> None:
        self.cleaner = Cleaner(task.shape)
        self.stdout = context.stdout if streaming else None
        self.written: list[str] = []

    def piece(self, text: str) -> None:
        self._show(self.cleaner.feed(text))

    def end(self) -> str:
        """The whole draft, cleaned."""
        self._show(self.cleaner.finish())
        return "".join(self.written)

    def _show(self, cleaned: str) -> None:
        self.written.append(cleaned)
        if self.stdout is not None and cleaned:
            self.stdout.write(cleaned)
            self.stdout.flush()


async def write(
    task: DraftTask,
    pieces: Sequence[Gathered],
    context: Context,
    log: AuditLog,
    *,
    streaming: bool,
) -> str:
    """The cleaned draft; with ``streaming``, also written to stdout as it comes."""
    config = context.load_config()
    choice = ModelChoice(context, NamedModel(LOCAL, TASK), lambda: config, log.record)
    router = Router(lambda: config, choice.resolve)
    prompt = DraftPrompt(task, pieces)
    shown = _Shown(task, context, streaming=streaming)

    def fitted(window: int | None) -> ChatRequest:
        request = prompt.request(window)
        size = f"{window:,} tokens" if window else f"unknown, taken as {DEFAULT_WINDOW:,} tokens"
        for cut in prompt.cuts:
            context.warn(
                f"draft: {cut.label} cut to {cut.kept:,} of {cut.whole:,} bytes to fit the "
                f"model's window ({size})"
            )
        return request

    try:
        calls = SideCalls(_Told(log, context), router, lambda: None)
        answer = await calls.ask(TASK, fitted, shown=shown.piece)
    finally:
        await router.aclose()
        await choice.aclose()
    text = shown.end()
    if answer.failure is not None:
        model = answer.model or "none"
        raise DraftError(f"the model ({model}) could not write it: {answer.failure}")
    if not text.strip():
        raise DraftError(f"{answer.model} wrote nothing to use (its reply: {answer.text[:80]!r})")
    return text
