"""What ``wisp approvals`` and ``wisp questions`` share: they answer for the person, so they
answer only at a terminal, each run as an audited session of its own (docs/policy.md,
"Approvals out of band")."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

from wisp.audit import AuditLog, open_sink
from wisp.audit.kinds import SessionStart
from wisp.cli.context import Context, audit_settings
from wisp.errors import UsageError

Record = Callable[[Any], Any]


def not_a_terminal(command: str, verb: str) -> str:
    return (
        f"wisp {command} answers only at a terminal, and stdin is not one: run it yourself in "
        f"a terminal (a pipe, a script or a command the model runs cannot {verb})"
    )


@contextlib.contextmanager
def answering_session(context: Context, command: str, verb: str) -> Iterator[Record]:
    """The session's ``record``, once stdin is known to be a terminal; ``UsageError`` when it
    is not. ``session.start`` names ``command`` as the entry point."""
    if not stdin_is_terminal():
        raise UsageError(not_a_terminal(command, verb))
    config = context.load_config()
    context.home.ensure()
    log = AuditLog(open_sink(audit_settings(config), context.home.audit_file))
    try:
        log.record(SessionStart(entry_point=command, tools=[], model=""))
        yield log.record
    finally:
        log.close()


def stdin_is_terminal() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (AttributeError, ValueError, OSError):
        return False


def age(seconds: int) -> str:
    """``42s``, ``3m``, ``2h``, ``1d``."""
    seconds = max(0, seconds)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"
