"""The pulls the model's ``models`` tool started: each runs in the background as a task owned
here, until it ends or the face closes (docs/models.md, "The models tool").

A pull records its own ``model.pull`` in the asking conversation's log when it ends; what is
kept here is what the tool says of it afterwards (``list``): running, or how it ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine
from typing import Any

import msgspec

log = logging.getLogger(__name__)


class Pull(msgspec.Struct):
    """One pull a conversation asked for."""

    command: str
    """As the person approved it: ``models pull hf:OWNER/REPO/FILE.gguf``."""
    session: str
    """The asking conversation's audit session."""
    started: float
    task: asyncio.Task[str]
    """Ends with what the model is told of the pull."""


class BackgroundPulls:
    """The pulls the face's conversations started, each an owned task; ``aclose`` cancels the
    ones still running (each records itself as cancelled) and waits for them."""

    def __init__(self) -> None:
        self._pulls: list[Pull] = []

    def start(self, command: str, session: str, pulling: Coroutine[Any, Any, str]) -> None:
        """Run ``pulling`` in the background for the conversation ``session``."""
        task = asyncio.create_task(pulling, name=command)
        self._pulls.append(Pull(command, session, time.monotonic(), task))

    def running(self, command: str, session: str) -> Pull | None:
        """The conversation's pull of ``command`` still running, if there is one."""
        for pull in self._pulls:
            if (pull.command, pull.session) == (command, session) and not pull.task.done():
                return pull
        return None

    def said(self, session: str) -> list[str]:
        """A line for each pull the conversation ``session`` started: running, or its end."""
        return [_line(pull) for pull in self._pulls if pull.session == session]

    async def aclose(self) -> None:
        running = [pull.task for pull in self._pulls if not pull.task.done()]
        for task in running:
            task.cancel()
        for task in running:
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _line(pull: Pull) -> str:
    task = pull.task
    if not task.done():
        return f"{pull.command}: running for {round(time.monotonic() - pull.started)} s"
    if task.cancelled():
        return f"{pull.command}: cancelled; what arrived is kept, and a pull again resumes it"
    failure = task.exception()
    if failure is not None:
        log.warning("%s failed: %r", pull.command, failure)
        return f"{pull.command}: failed: {failure}"
    return f"{pull.command}: {task.result()}"
