"""The scanner a ``wisp scan`` or ``wisp redact`` session runs: the rules alone, or with
``--thorough`` the rules and then a model routed for the task (``routing.tasks.scan`` or
``.redact``, else wisp's measured default for structured replies, else ``local``), each call
recorded on the session's log (docs/scan.md, "The thorough pass")."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable

from wisp.audit import AuditLog
from wisp.cli.context import Context
from wisp.scan.job import Scanner


@contextlib.asynccontextmanager
async def session_scanner(
    context: Context, log: AuditLog, task: str, *, thorough: bool
) -> AsyncIterator[Scanner]:
    """The session's scanner; with ``thorough``, the models it loaded are closed after."""
    if not thorough:
        yield Scanner()
        return
    # Imported here: a scan by the rules alone never pays for the model machinery.
    from wisp.agent.side_calls import SideCalls
    from wisp.cli.building.model_choice import ModelChoice
    from wisp.cli.building.session import NamedModel
    from wisp.models.selection import LOCAL
    from wisp.routing.router import Router
    from wisp.scan.thorough import Thorough

    config = context.load_config()
    choice = ModelChoice(context, NamedModel(LOCAL, task), lambda: config, log.record)
    router = Router(lambda: config, choice.resolve)
    progress = _progress(context) if context.stderr.isatty() else None
    try:
        yield Scanner(Thorough(SideCalls(log, router, lambda: None), task, progress))
    finally:
        if progress is not None:
            print(file=context.stderr)
        await router.aclose()
        await choice.aclose()


def _progress(context: Context) -> Callable[[int, int], None]:
    """The chunk being read, on one line of the terminal rewritten in place."""

    def told(number: int, chunks: int) -> None:
        line = f"\rwisp: thorough pass, chunk {number} of {chunks}"
        print(line, end="", file=context.stderr, flush=True)

    return told
