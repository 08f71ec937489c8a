"""The turn's calls as the audit trail recorded them, each with whether it was done.

Never from the model's word: the calls are the trail's ``tool.call`` events, their outcomes as
``checks.call_outcomes`` reads them. What counts as done: a command ran when the gate let it
through, whatever its exit status (a failed ``pytest`` still ran the tests); a denied or
declined one did not run. An ``edit_file`` or ``read_file`` is done when it succeeded: a failed
edit changed nothing, a failed read read nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from wisp.agent.checks import TrailEvent, call_outcomes
from wisp.audit.kinds import ToolCall as ToolCallEvent


class Call(msgspec.Struct, frozen=True):
    """One of the model's calls this turn."""

    tool: str
    arguments: Any
    outcome: str
    """``succeeded``, ``failed``, ``denied`` or ``declined``."""

    @property
    def done(self) -> bool:
        if self.tool == "run_command":
            return self.outcome in ("succeeded", "failed")
        return self.outcome == "succeeded"

    @property
    def command(self) -> str | None:
        """The command line of a ``run_command``."""
        return self._argument("command") if self.tool == "run_command" else None

    @property
    def path(self) -> str | None:
        """The path of an ``edit_file`` or ``read_file``."""
        return self._argument("path") if self.tool in ("edit_file", "read_file") else None

    def _argument(self, name: str) -> str | None:
        value = self.arguments.get(name) if isinstance(self.arguments, dict) else None
        return value if isinstance(value, str) else None


def turn_calls(events: Sequence[TrailEvent]) -> list[Call]:
    """The model's calls in the turn's trail, in order, with their outcomes."""
    # call_outcomes reads the same calls in the same order (a command the person typed has no
    # tool.call, and its verdict and outcome are never matched to the model's).
    made = [event.details for event in events if isinstance(event.details, ToolCallEvent)]
    return [
        Call(details.tool, details.arguments, outcome)
        for details, (_, outcome) in zip(made, call_outcomes(events), strict=True)
    ]
