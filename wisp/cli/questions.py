"""``wisp questions``: answer the questions a ``wisp mcp`` server's model waits on (docs/policy.md,
"Questions out of band").

Only a person at a terminal answers: every verb refuses unless stdin is one. Each run is its own
audited session (``entryPoint: questions``) that records each answer as ``inquiry.answered``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from wisp.audit.kinds import InquiryAnswered
from wisp.cli.answering import age, answering_session
from wisp.cli.context import Context
from wisp.errors import WispError
from wisp.policy.approvers import escape_controls
from wisp.policy.asking import pick_option
from wisp.policy.question_channel import (
    ChannelError,
    PendingQuestion,
    list_questions,
    write_reply,
)

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
    parser = commands.add_parser(
        "questions",
        help="Answer the questions a wisp mcp server's model waits on.",
        description="List and answer the questions wisp mcp servers wait on "
        "(WISP_HOME/pending). Needs a terminal on stdin.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verbs = parser.add_subparsers(title="verbs", metavar="VERB", dest="verb", required=True)
    verbs.add_parser("pending", help="list the questions waiting: id, question, options, age")
    answer = verbs.add_parser("answer", help="answer a waiting question")
    answer.add_argument("id", metavar="ID", help="the question's id (from wisp questions pending)")
    answer.add_argument(
        "text", metavar="TEXT", nargs="+", help="the answer (with options: one, or its number)"
    )
    decline = verbs.add_parser("decline", help="refuse to answer a waiting question")
    decline.add_argument("id", metavar="ID", help="the question's id (from wisp questions pending)")
    parser.set_defaults(handler=run_questions)


def run_questions(args: argparse.Namespace, context: Context) -> int:
    with answering_session(context, "questions", "answer") as record:
        if args.verb == "pending":
            return _show_pending(context, record)
        text = " ".join(args.text) if args.verb == "answer" else None
        return _answer(context, record, args.id, text)


def _show_pending(context: Context, record: Callable[[Any], Any]) -> int:
    waiting = list_questions(context.home.root, record)
    if not waiting:
        print("no questions are waiting", file=context.stdout)
        return 0
    now = int(time.time())
    for question in waiting:
        print(_entry(question, now), file=context.stdout)
    return 0


def _entry(question: PendingQuestion, now: int) -> str:
    """``ID  THREAD  AGE`` then the question, then its options numbered, each indented."""
    thread = escape_controls(question.thread or "-")
    if question.client:
        thread += f" of {escape_controls(question.client)}"
    lines = [f"{question.id}  thread {thread}  {age(now - question.created)}"]
    lines.append(f"  {escape_controls(question.question)}")
    lines += [
        f"    {number}. {escape_controls(option)}"
        for number, option in enumerate(question.options, start=1)
    ]
    if not question.options:
        lines.append("    (free text)")
    return "\n".join(lines)


def _answer(
    context: Context, record: Callable[[Any], Any], question_id: str, text: str | None
) -> int:
    """Write the reply: ``text``, or declined when None."""
    waiting = list_questions(context.home.root, record)
    question = next((q for q in waiting if q.id == question_id), None)
    try:
        if question is None:
            raise ChannelError(f"no question {question_id} is waiting (wisp questions pending)")
        text = _fitting(question, text)
        write_reply(context.home.root, question, text=text, declined=text is None, via="cli")
    except ChannelError as exc:
        record(
            InquiryAnswered(
                inquiry=escape_controls(question_id),
                via="cli",
                delivery="refused",
                reason=str(exc),
            )
        )
        raise AnswerNotWritten(escape_controls(str(exc))) from None
    record(InquiryAnswered(inquiry=question.id, via="cli", delivery="written"))
    print(_confirmation(question, text), file=context.stdout)
    return 0


def _fitting(question: PendingQuestion, text: str | None) -> str | None:
    """The answer as the model will read it: with options, the option picked (by its text or
    number); ``ChannelError`` when it picks none, so the question keeps waiting."""
    if text is None or not question.options:
        return text
    option = pick_option(text, question.options)
    if option is None:
        numbered = ", ".join(f"{n}. {o}" for n, o in enumerate(question.options, start=1))
        raise ChannelError(f"{text!r} is not one of the options ({numbered})")
    return question.options[option - 1]


class AnswerNotWritten(WispError):
    """The answer was refused: no such question waits, it was answered already, or the text is
    not one of its options."""


def _confirmation(question: PendingQuestion, text: str | None) -> str:
    where = f"thread {escape_controls(question.thread or '-')}"
    if question.client:
        where += f" of {escape_controls(question.client)}"
    if text is None:
        return f"declined: {escape_controls(question.question)} ({where})"
    return f"answered: {escape_controls(text)} ({where})"
