"""``wisp approvals``: answer the commands a ``wisp mcp`` server waits on (docs/policy.md,
"Approvals out of band").

Only a person at a terminal answers: every verb refuses unless stdin is one. Each run is its own
audited session (``entryPoint: approvals``) that records each answer as ``approval.answered``.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wisp.audit.kinds import ApprovalAnswered
from wisp.cli.answering import age, answering_session
from wisp.cli.context import Context
from wisp.errors import WispError
from wisp.policy.approvers import escape_controls
from wisp.policy.pending_channel import ChannelError, PendingRequest, list_pending, write_answer
from wisp.policy.types import Answer

SCOPES = ("once", "session", "project", "always")
EPILOG = """\
A wisp mcp server asks the person before it runs a command at or above approval.threshold.
The calling agent is a model, so it cannot answer: the request waits in WISP_HOME/pending
until you answer it here (or in wisp-tui, or in the client's own dialog when it has one).

  wisp approvals pending                    the requests waiting, oldest first
  wisp approvals approve 3f9a1c2e           run it, this once
  wisp approvals approve 3f9a1c2e --scope session
                                            and the same pattern again in that server's session
  wisp approvals deny 3f9a1c2e              refuse it

Scopes: once (that command, this turn), session (until that server exits), project (that
directory, approval.persistDays days), always (anywhere, the same). A dangerous command is
never remembered past the session. Every verb needs a terminal on stdin; each answer is
recorded in the audit log (approval.answered). See docs/policy.md, "Approvals out of band"."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "approvals",
        help="Answer the commands a wisp mcp server waits to run.",
        description="List and answer the approvals wisp mcp servers wait for "
        "(WISP_HOME/pending). Needs a terminal on stdin.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verbs = parser.add_subparsers(title="verbs", metavar="VERB", dest="verb", required=True)
    verbs.add_parser("pending", help="list the requests waiting: id, level, command, where, age")
    approve = verbs.add_parser("approve", help="approve a waiting request")
    approve.add_argument("id", metavar="ID", help="the request's id (from wisp approvals pending)")
    approve.add_argument(
        "--scope",
        choices=SCOPES,
        default="once",
        help="how long the approval lasts (default once)",
    )
    deny = verbs.add_parser("deny", help="refuse a waiting request")
    deny.add_argument("id", metavar="ID", help="the request's id (from wisp approvals pending)")
    parser.set_defaults(handler=run_approvals)


def run_approvals(args: argparse.Namespace, context: Context) -> int:
    with answering_session(context, "approvals", "approve") as record:
        if args.verb == "pending":
            return _show_pending(context, record)
        decision: Answer = args.scope if args.verb == "approve" else "deny"
        return _answer(context, record, args.id, decision)


def _show_pending(context: Context, record: Callable[[Any], Any]) -> int:
    waiting = list_pending(context.home.root, record)
    if not waiting:
        print("no approvals are waiting", file=context.stdout)
        return 0
    rows = [("ID", "LEVEL", "COMMAND", "DIRECTORY", "THREAD", "CLIENT", "AGE")]
    now = int(time.time())
    rows += [_row(request, now) for request in waiting]
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=True)]
        print("  ".join(cells).rstrip(), file=context.stdout)
    return 0


def _row(request: PendingRequest, now: int) -> tuple[str, ...]:
    command = escape_controls(request.command)
    if len(command) > 60:
        command = command[:59] + "…"
    return (
        request.id,
        request.level,
        command,
        escape_controls(_home_short(request.directory)),
        escape_controls(request.thread or "-"),
        escape_controls(request.client or "-"),
        age(now - request.created),
    )


def _home_short(directory: str) -> str:
    home = str(Path.home())
    if directory == home or directory.startswith(home + os.sep):
        return "~" + directory[len(home) :]
    return directory


def _answer(
    context: Context, record: Callable[[Any], Any], request_id: str, decision: Answer
) -> int:
    waiting = list_pending(context.home.root, record)
    request = next((r for r in waiting if r.id == request_id), None)
    try:
        if request is None:
            raise ChannelError(f"no request {request_id} is waiting (wisp approvals pending)")
        write_answer(context.home.root, request, decision, "cli")
    except ChannelError as exc:
        shown = escape_controls(request_id)
        record(
            ApprovalAnswered(
                request=shown, decision=decision, via="cli", delivery="refused", reason=str(exc)
            )
        )
        raise AnswerNotWritten(escape_controls(str(exc))) from None
    record(ApprovalAnswered(request=request.id, decision=decision, via="cli", delivery="written"))
    print(_confirmation(request, decision), file=context.stdout)
    return 0


class AnswerNotWritten(WispError):
    """The answer was refused: no such request waits, or it was answered already."""


def _confirmation(request: PendingRequest, decision: Answer) -> str:
    command = escape_controls(request.command)
    where = f"thread {escape_controls(request.thread or '-')}"
    if request.client:
        where += f" of {escape_controls(request.client)}"
    if decision == "deny":
        return f"refused: {command} ({where})"
    return f"approved ({decision}): {command} ({where})"
