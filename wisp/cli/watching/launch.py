"""The watch's command as a typed ``!`` command runs in chat (docs/watch.md, "Runs"): through
the deny and allow lists and the sandbox on the session's runner, no approval asked (typing it
was the approval), no time limit unless ``--timeout`` sets one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wisp.errors import WispError
from wisp.tools.command_runner import CommandRunner, Ran
from wisp.watch.types import Finished


class CommandRefused(WispError):
    """The command to watch did not run: the lists refused it, or its folder is gone."""

    exit_code = 2


class TypedLaunch:
    """Each run of the watch's command, on the session's runner."""

    def __init__(
        self,
        runner: CommandRunner,
        line: str,
        directory: Path,
        *,
        record: Callable[[Any], Any],
        timeout: float | None,
    ) -> None:
        self.runner = runner
        self.line = line
        self.directory = directory
        self.record = record
        self.timeout = timeout

    async def __call__(self, *, stop: asyncio.Event, kill_now: asyncio.Event) -> Finished:
        outcome = await self.runner.run_typed(
            self.line,
            self.directory,
            record=self.record,
            stop=stop,
            kill_now=kill_now,
            timeout=self.timeout,
        )
        if not isinstance(outcome, Ran):
            raise CommandRefused(f"{self.line}: {outcome.message.removeprefix('error: ')}")
        result = outcome.result
        output = result.stdout + result.stderr
        if outcome.refusal is not None:  # what the sandbox refused, as run_command says it
            output = "".join(
                f"{line}\n" for line in (output.rstrip("\n"), outcome.refusal.line) if line
            )
        return Finished(
            exit_status=result.exit_status,
            timed_out=result.timed_out,
            stopped=result.stopped,
            output=output,
            seconds=result.seconds,
        )
