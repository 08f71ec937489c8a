"""How a ``wisp models`` command that changes something records and speaks.

Each runs as an audited session (``entryPoint: models``); its steps take a ``Record`` and a
``Say`` rather than the log and the terminal, so chat's ``/models`` can lend its own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import msgspec

from wisp.audit.kinds import ModelPull
from wisp.cli.context import Context, command_session

Record = Callable[[Any], Any]
"""Records one audit event (a ``wisp.audit`` Details)."""
Say = Callable[[str], None]


class Origin(msgspec.Struct, frozen=True):
    """Who asked for a change, as each event it records says: ``source`` (``cli``, ``chat``,
    or ``tool`` for the model's ``models`` tool) and ``approval``, the id of the approval the
    person gave the tool's request (``approval.decided``'s ``approvalID``); None otherwise."""

    source: str
    approval: str | None = None

    def ended(self, pull: ModelPull, reason: str | None) -> ModelPull:
        """``pull`` (a ``model.pull`` made with this ``source``) with this approval, and
        ``reason`` where there is one (why it failed, was cancelled or was declined)."""
        pull.approval = self.approval
        if reason is not None:
            pull.reason = reason
        return pull


CLI = Origin("cli")
CHAT = Origin("chat")


@contextlib.contextmanager
def audited_session(context: Context, model: str) -> Iterator[Record]:
    """An audited ``models`` session: ``session.start`` now, the log closed at the end."""
    with command_session(context, "models", model=model) as log:
        yield log.record


def say_on(context: Context) -> Say:
    def say(text: str) -> None:
        print(text, file=context.stdout, flush=True)

    return say


def say_all(context: Context, notes: Iterable[str]) -> None:
    for note in notes:
        say_on(context)(note)
