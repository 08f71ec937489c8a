"""``wisp approvals``: answer the commands a ``wisp mcp`` server waits on (docs/policy.md,
"Approvals out of band").

Only a person at a terminal answers: every verb refuses unless stdin is one. Each run is its own
audited session (``entryPoint: approvals``) that records each answer as ``approval.answered``.
"""

from __future__ import annotations

import argparse

from wisp.cli.answering.terminal import add_answering_parser, run_answering
from wisp.cli.context import Context
from wisp.desk.approval import APPROVAL

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
    approve = add_answering_parser(
        commands,
        APPROVAL,
        help="Answer the commands a wisp mcp server waits to run.",
        description="List and answer the approvals wisp mcp servers wait for "
        "(WISP_HOME/pending). Needs a terminal on stdin.",
        epilog=EPILOG,
        verbs=(
            ("pending", "list the requests waiting: id, level, command, where, age"),
            ("approve", "approve a waiting request"),
            ("deny", "refuse a waiting request"),
        ),
        handler=run_approvals,
    )
    approve.add_argument(
        "--scope",
        choices=SCOPES,
        default="once",
        help="how long the approval lasts (default once)",
    )


def run_approvals(args: argparse.Namespace, context: Context) -> int:
    request_id = None if args.verb == "pending" else args.id
    decision = args.scope if args.verb == "approve" else "deny"
    return run_answering(context, APPROVAL, "approve", request_id, decision)
