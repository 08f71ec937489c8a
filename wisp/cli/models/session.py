"""How a ``wisp models`` command that changes something records and speaks.

Each runs as an audited session (``entryPoint: models``); its steps take a ``Record`` and a
``Say`` rather than the log and the terminal, so chat's ``/models`` can lend its own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from wisp.audit import AuditLog, open_sink
from wisp.audit.kinds import SessionStart
from wisp.cli.context import Context, audit_settings

Record = Callable[[Any], Any]
"""Records one audit event (a ``wisp.audit`` Details)."""
Say = Callable[[str], None]


@contextlib.contextmanager
def audited_session(context: Context, model: str) -> Iterator[Record]:
    """An audited ``models`` session: ``session.start`` now, the log closed at the end."""
    config = context.load_config()
    log = AuditLog(open_sink(audit_settings(config), context.home.audit_file))
    try:
        log.record(SessionStart(entry_point="models", tools=[], model=model))
        yield log.record
    finally:
        log.close()


def say_on(context: Context) -> Say:
    def say(text: str) -> None:
        print(text, file=context.stdout, flush=True)

    return say


def say_all(context: Context, notes: Iterable[str]) -> None:
    for note in notes:
        say_on(context)(note)
