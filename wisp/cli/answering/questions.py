"""``wisp questions``: answer the questions a ``wisp mcp`` server's model waits on (docs/policy.md,
"Questions out of band").

Only a person at a terminal answers: every verb refuses unless stdin is one. Each run is its own
audited session (``entryPoint: questions``) that records each answer as ``inquiry.answered``.
"""

from __future__ import annotations

import argparse

from wisp.cli.answering.terminal import add_answering_parser, run_answering
from wisp.cli.context import Context
from wisp.desk.question import QUESTION

EPILOG = """\
Under wisp mcp the model may ask the person a question (its ask tool). The calling agent is a
model, so it cannot answer: the question waits in WISP_HOME/pending until you answer it here
(or in the client's own form when it has one), at most approval.timeoutSeconds.

  wisp questions pending                    the questions waiting, oldest first
  wisp questions answer 3f9a1c2e staging    answer it (with options: one of them, or its number)
  wisp questions decline 3f9a1c2e           refuse to answer it

Every verb needs a terminal on stdin; each answer is recorded in the audit log
(inquiry.answered). See docs/policy.md, "Questions out of band"."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    answer = add_answering_parser(
        commands,
        QUESTION,
        help="Answer the questions a wisp mcp server's model waits on.",
        description="List and answer the questions wisp mcp servers wait on "
        "(WISP_HOME/pending). Needs a terminal on stdin.",
        epilog=EPILOG,
        verbs=(
            ("pending", "list the questions waiting: id, question, options, age"),
            ("answer", "answer a waiting question"),
            ("decline", "refuse to answer a waiting question"),
        ),
        handler=run_questions,
    )
    answer.add_argument(
        "text", metavar="TEXT", nargs="+", help="the answer (with options: one, or its number)"
    )


def run_questions(args: argparse.Namespace, context: Context) -> int:
    """Answer with the text given, or decline (None)."""
    question_id = None if args.verb == "pending" else args.id
    text = " ".join(args.text) if args.verb == "answer" else None
    return run_answering(context, QUESTION, "answer", question_id, text)
