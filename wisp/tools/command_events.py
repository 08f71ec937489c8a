"""What a command's path records (docs/logging.md): ``policy.decision``, the verdict and how the
command is confined, and ``command.outcome``, how it ran and what the model saw of it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from wisp.audit.kinds import CommandOutcome, PolicyDecision
from wisp.sandbox.plan import SandboxState

if TYPE_CHECKING:
    from wisp.tools.command_runner import Ran


class TimeLimit(msgspec.Struct, frozen=True):
    """The time limit a model's command runs under, as ``command.outcome`` records it."""

    source: str
    """``timeoutSource``: ``call`` (the call's own ``timeoutSeconds``), else where the default
    came from: ``default`` or ``thread``."""
    seconds: float | None
    """The limit applied, after the cap; None when there is none."""
    clamped: bool = False
    """The call asked for more than the maximum and was cut to it."""


def decision_event(
    line: str, directory: Path, verdict: str, reason: str, state: SandboxState
) -> PolicyDecision:
    """``policy.decision`` for ``line``: the verdict, and how the command is (or would be)
    confined: the network as really cut, the namespaces, Landlock ABI and devpts applied."""
    decision = PolicyDecision(
        command=line,
        working_directory=str(directory),
        verdict=verdict,
        reason=reason,
        sandbox=state.sandbox,
        network=state.network,
        nested=False,
    )
    if state.network_cut is not None:
        decision.network_cut = state.network_cut
    if state.sandbox and state.landlock_abi is not None:
        decision.namespaces = list(state.namespaces)
        decision.landlock_abi = state.landlock_abi
        if state.devpts is not None:
            decision.devpts = state.devpts
    return decision


def outcome_event(
    line: str,
    ran: Ran,
    *,
    stdout: str,
    stderr: str,
    truncated: bool,
    origin: str | None = None,
    timeout: TimeLimit | None = None,
) -> CommandOutcome:
    """``command.outcome`` for a command that ran; ``stdout``/``stderr`` as the model saw them."""
    result = ran.result
    event = CommandOutcome(
        command=line,
        exit_status=result.exit_status,
        timed_out=result.timed_out,
        truncated=truncated,
        stdout=stdout,
        stderr=stderr,
        seconds=round(result.seconds, 3),
    )
    if origin:
        event.origin = origin
    if result.stopped:
        event.stopped = True
    if timeout is not None:
        event.timeout_source = timeout.source
        if timeout.seconds is not None:
            event.timeout_seconds = int(timeout.seconds)
        if timeout.clamped:
            event.timeout_clamped = True
    if ran.refusal is not None:
        event.sandbox_refusal = ran.refusal.verdict.value
        event.sandbox_paths = list(ran.refusal.paths)
    return event
