"""``!cmd`` in chat: a command the person typed (docs/turn.md, "The person's own commands").

It goes through the deny and allow lists and the sandbox, with no classifier and no approval
(typing it was the approval) and no time limit; Ctrl-C stops it. Recorded as
``policy.decision`` and ``command.outcome`` with ``origin: person``, then ``command.typed``;
the model learns of it on its next request, as the person's action.
"""

from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from wisp.agent.compose import command_notice
from wisp.agent.loop import Conversation, output_budget
from wisp.agent.text import COMMAND_HINT, hold_back, utf8_len
from wisp.audit.kinds import CommandTyped
from wisp.tools.command_events import outcome_event
from wisp.tools.command_runner import CommandRunner, Ran


class TypedCommand(msgspec.Struct, frozen=True):
    """What chat shows of a typed command."""

    output: str
    exit_status: int | None
    stopped: bool
    refused: str | None
    """The policy's reason when the command did not run."""
    seconds: float


async def run_typed_command(
    runner: CommandRunner,
    line: str,
    conversation: Conversation,
    *,
    record: Any,
    stored_dir: Path,
) -> TypedCommand:
    directory = conversation.working_directory
    started = time.monotonic()
    conversation.stop_requested.clear()
    conversation.kill_requested.clear()
    with conversation.running_command():
        outcome = await runner.run_typed(
            line,
            directory,
            record=record,
            stop=conversation.stop_requested,
            kill_now=conversation.kill_requested,
        )
    seconds = time.monotonic() - started
    if not isinstance(outcome, Ran):
        record(_typed(line, directory, "denied", seconds, reason=outcome.reason))
        return TypedCommand("", None, False, outcome.reason, seconds)
    return _ran(line, directory, outcome, conversation, record, stored_dir, seconds)


def _ran(
    line: str,
    directory: Path,
    ran: Ran,
    conversation: Conversation,
    record: Any,
    stored_dir: Path,
    seconds: float,
) -> TypedCommand:
    result = ran.result
    whole = result.stdout + result.stderr
    budget = output_budget(conversation.resolved.context_size)
    call_id = os.urandom(4).hex()
    shown = hold_back(whole, budget, output_id=call_id, hint=COMMAND_HINT)
    truncated = shown != whole or result.stdout_cut or result.stderr_cut
    record(
        outcome_event(
            line, ran, stdout=result.stdout, stderr=result.stderr, truncated=truncated,
            origin="person",
        )
    )  # fmt: skip
    typed = _typed(line, directory, "allowed", seconds, output=shown)
    typed.exit_status = result.exit_status
    typed.timed_out = False
    typed.truncated = truncated
    if result.stopped:
        typed.stopped = True
    if ran.refusal is not None:
        typed.sandbox_refused = ran.refusal.verdict.value in ("refused", "guess")
        typed.sandbox_refusal = ran.refusal.verdict.value
        typed.sandbox_paths = list(ran.refusal.paths)
    if shown != whole:
        typed.stored = _keep(stored_dir, call_id, whole)
    event_id = record(typed)
    notice = command_notice(
        line=line,
        directory=str(directory),
        clock=datetime.now().strftime("%H:%M:%S"),
        exit_status=result.exit_status,
        timed_out=False,
        stopped=result.stopped,
        output=whole.rstrip("\n"),
        entry_id=conversation.store.last_id + 1,
        memory=conversation.memory,
    )
    conversation.add_typed_command(notice, event_id)
    return TypedCommand(shown, result.exit_status, result.stopped, None, seconds)


def _typed(
    line: str,
    directory: Path,
    verdict: str,
    seconds: float,
    *,
    output: str = "",
    reason: str | None = None,
) -> CommandTyped:
    typed = CommandTyped(
        command=line,
        working_directory=str(directory),
        verdict=verdict,
        output=output,
        bytes=utf8_len(output),
        seconds=round(seconds, 3),
    )
    if reason is not None:
        typed.reason = reason
    return typed


def _keep(folder: Path, call_id: str, text: str) -> str:
    """The whole output in the output store, 0600, as a model's large output is kept."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(folder / call_id, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
    return call_id
