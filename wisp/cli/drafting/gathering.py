"""What a draft task gathers, as ``wisp draft`` reads it: a command's output, run confined as a
typed ``!`` command is (the lists and the sandbox, no approval: naming it was the approval); a
file's text; stdin. Each is read to ``MOST_READ_BYTES`` at most; the prompt cuts it further to
fit the model's window (docs/draft.md, "Inputs")."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wisp.cli.context import Context
from wisp.draft.prompts import Gathered
from wisp.draft.tasks import DraftError, Gather

if TYPE_CHECKING:
    from wisp.sandbox.process import ProcessResult
    from wisp.tools.command_runner import CommandRunner

MOST_READ_BYTES = 4 << 20
"""An input is read this far at most, whatever the window: the prompt keeps far less."""


class Gatherer:
    """Reads a task's inputs in the working folder, its commands on one runner made when the
    first is run."""

    def __init__(self, context: Context, record: Callable[[Any], Any]) -> None:
        self.context = context
        self.record = record
        self.directory = Path.cwd()
        self._runner: CommandRunner | None = None

    async def gather(self, gathers: Sequence[Gather]) -> list[Gathered]:
        pieces: list[Gathered] = []
        for gather in gathers:
            match gather.kind:
                case "command":
                    text = await self._command(gather)
                case "file":
                    text = await asyncio.to_thread(_file_text, Path(gather.value))
                case "stdin":
                    text = await asyncio.to_thread(_stdin_text)
            if gather.if_empty is not None and not text.strip():
                raise DraftError(gather.if_empty)
            pieces.append(Gathered(gather.label, text))
        return pieces

    async def _command(self, gather: Gather) -> str:
        """The command's stdout; a command that is refused or fails stops the draft, naming
        it, unless it is ``optional``."""
        # Imported here: the runner brings in the tools, the policy and the sandbox, which a
        # summary of stdin never needs.
        from wisp.cli.building.runner import typed_runner
        from wisp.tools.command_runner import Ran

        if self._runner is None:
            self._runner = typed_runner(self.context, self.directory, self.record)
        line = gather.value
        outcome = await self._runner.run_typed(line, self.directory, record=self.record)
        if not isinstance(outcome, Ran):
            failure = f"{line}: {outcome.reason}"
        elif outcome.result.exit_status != 0:
            failure = _failed(line, outcome.result)
        else:
            return _bounded(outcome.result.stdout)
        if gather.optional:
            return ""
        raise DraftError(failure)


def _failed(line: str, result: ProcessResult) -> str:
    """``LINE failed (exit N): the first line it wrote to stderr``."""
    said = next((text.strip() for text in result.stderr.splitlines() if text.strip()), None)
    failed = f"{line} failed (exit {result.exit_status})"
    return f"{failed}: {said}" if said else failed


def _file_text(path: Path) -> str:
    try:
        with path.open("rb") as file:
            data = file.read(MOST_READ_BYTES)
    except OSError as exc:
        raise DraftError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return _text(data, str(path))


def _stdin_text() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        raise DraftError(
            "the text is read from stdin, which is a terminal: pipe it in, or name files"
        )
    return _text(sys.stdin.buffer.read(MOST_READ_BYTES), "stdin")


def _text(data: bytes, name: str) -> str:
    if b"\0" in data[:8192]:
        raise DraftError(f"{name} is not text")
    return data.decode("utf-8", "replace")


def _bounded(text: str) -> str:
    data = text.encode()
    return text if len(data) <= MOST_READ_BYTES else data[:MOST_READ_BYTES].decode(errors="ignore")
