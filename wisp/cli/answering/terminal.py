"""What ``wisp approvals`` and ``wisp questions`` share, for any kind of request on the desk:
they answer for the person, so they answer only at a terminal, each run as an audited session
of its own, on the desk's one answering path (docs/policy.md, "Approvals out of band")."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from wisp.cli.context import Context, command_session
from wisp.desk.answering import deliver, find_waiting
from wisp.desk.channel import list_waiting
from wisp.desk.kind import ChannelError, Kind
from wisp.errors import UsageError, WispError
from wisp.policy.approvers import escape_controls

Record = Callable[[Any], Any]


class AnswerNotWritten(WispError):
    """The answer was refused: no such request waits, it was answered already, or it does not
    fit (an option that is none of the question's)."""


def add_answering_parser(
    commands: argparse._SubParsersAction,
    kind: Kind[Any, Any, Any],
    *,
    help: str,
    description: str,
    epilog: str,
    verbs: tuple[tuple[str, str], tuple[str, str], tuple[str, str]],
    handler: Callable[[argparse.Namespace, Context], int],
) -> argparse.ArgumentParser:
    """``wisp <kind.command>`` with its three verbs, each given as ``(name, help)``: ``pending``,
    the one that answers and the one that refuses, both taking the request's ``ID``. The parser
    of the answering verb, for the arguments of its own."""
    parser = commands.add_parser(
        kind.command,
        help=help,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(title="verbs", metavar="VERB", dest="verb", required=True)
    (pending, pending_help), *answering = verbs
    subparsers.add_parser(pending, help=pending_help)
    id_help = f"the {kind.noun}'s id (from wisp {kind.command} pending)"
    parsers = [subparsers.add_parser(name, help=text) for name, text in answering]
    for verb in parsers:
        verb.add_argument("id", metavar="ID", help=id_help)
    parser.set_defaults(handler=handler)
    return parsers[0]


Then = Callable[[Any, Any, Record], "str | None"]
"""What follows a written answer, given the request, the answer as filed and the session's
``record``: a line more to print, or None."""


def run_answering(
    context: Context,
    kind: Kind[Any, Any, Any],
    verb: str,
    request_id: str | None,
    given: Any,
    *,
    then: Then | None = None,
) -> int:
    """List what waits (``request_id`` None), or answer ``request_id`` with ``given``, in a
    session of its own once stdin is known to be a terminal; ``verb`` names what a non-terminal
    cannot do. ``then`` follows a written answer (a fact's kept by this process when its server
    has stopped)."""
    with answering_session(context, kind.command, verb) as record:
        if request_id is None:
            return _show_pending(context, kind, record)
        return _answer(context, kind, record, request_id, given, then)


def _show_pending(context: Context, kind: Kind[Any, Any, Any], record: Record) -> int:
    waiting = list_waiting(context.home.root, kind, record)
    if not waiting:
        print(f"no {kind.command} are waiting", file=context.stdout)
        return 0
    for line in kind.listing(waiting, int(time.time())):
        print(line, file=context.stdout)
    return 0


def _answer(
    context: Context,
    kind: Kind[Any, Any, Any],
    record: Record,
    request_id: str,
    given: Any,
    then: Then | None,
) -> int:
    home = context.home.root
    request = find_waiting(home, kind, request_id, record)
    try:
        answer = deliver(home, kind, request, given, asked=request_id, via="cli", record=record)
    except ChannelError as exc:
        raise AnswerNotWritten(escape_controls(str(exc))) from None
    print(kind.confirmation(request, answer), file=context.stdout)
    if then is not None and (more := then(request, answer, record)) is not None:
        print(more, file=context.stdout)
    return 0


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
    context.home.ensure()
    with command_session(context, command) as log:
        yield log.record


def stdin_is_terminal() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (AttributeError, ValueError, OSError):
        return False
