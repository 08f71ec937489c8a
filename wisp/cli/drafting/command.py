"""``wisp draft TASK [INPUT…|-]``: a text for the person to use (a commit message, a summary, a
reply, a task of theirs) on stdout and nothing else, written by the model routed for the task
``draft`` in an audited session of its own (entry point ``draft``). Streamed to a terminal as
it comes, printed whole to a pipe; ``--edit`` opens the person's editor on it first. Every
error exits 2, naming what failed (docs/draft.md)."""

from __future__ import annotations

import argparse
import asyncio

from wisp.cli.context import Context, command_session
from wisp.cli.drafting.gathering import Gatherer
from wisp.config.draft_tasks import configured_drafts
from wisp.draft.tasks import DraftTask, draft_task, gathered_for

ERROR_EXIT = 2

DESCRIPTION = """\
Write a text for you to use, with the model routed for drafts: a commit message for the staged
changes, a summary, a reply, or a task of your own. The text alone goes to stdout."""

EPILOG = """\
tasks:
  commit    a commit message for the staged changes (git diff --cached), in the style of the
            repository's last commit subjects (git log); both run confined
  summary   a summary of the files named, or of stdin
  reply     an answer to the text on stdin (or the files named)
  NAME      a task of your own: draft.tasks.NAME in config.json, its instructions and the
            inputs it gathers (commands run confined, files read); INPUTs are read too

examples:
  git commit -F <(wisp draft commit)      commit with a message for the staged changes
  wisp draft commit --edit > message.txt  the message, edited in $EDITOR before it is printed
  git log -p -5 | wisp draft summary      a summary of stdin
  wisp draft summary notes.md todo.txt    a summary of files
  wisp draft reply < mail.txt             an answer to a message
  wisp draft standup                      your own task, as config.json defines it:
      {"draft": {"tasks": {"standup": {"instructions": "Write my stand-up note.",
        "inputs": [{"command": "git log --since=yesterday --format=%s"}, {"file": "todo.txt"}]}}}}

The model is routing.tasks.draft, else the smallest enabled model whose check passed a plain
reply, else local (wisp models shows which, and why). Notes (the model, an input cut to fit
its window) go to stderr. exit status: 0 the text was written; 2 an error, named (nothing
staged, an input that failed, no model)."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    summary = "Write a text for you to use: a commit message, a summary, a reply."
    parser = commands.add_parser(
        "draft",
        help=summary,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "task", metavar="TASK", help="commit, summary, reply, or a task of yours (draft.tasks)"
    )
    parser.add_argument("inputs", nargs="*", metavar="INPUT", help="files to read; - for stdin")
    parser.add_argument(
        "--edit", action="store_true", help="open $EDITOR on the draft; what you save is printed"
    )
    parser.set_defaults(handler=run_draft, error_exit=ERROR_EXIT)


def run_draft(args: argparse.Namespace, context: Context) -> int:
    task = draft_task(args.task, configured_drafts(context.load_config()))
    streaming = not args.edit and context.stdout.isatty()
    text = asyncio.run(_drafted(task, args.inputs, context, streaming=streaming))
    if args.edit:
        from wisp.cli.drafting.editing import edited

        text = edited(text, task.name, context.environ, context.stderr)
    if not streaming:
        print(text, end="", file=context.stdout, flush=True)
    return 0


async def _drafted(task: DraftTask, inputs: list[str], context: Context, *, streaming: bool) -> str:
    """The draft, in the session's own audited session: its inputs gathered, then written."""
    from wisp.cli.drafting.writing import write

    with command_session(context, "draft") as log:
        pieces = await Gatherer(context, log.record).gather(gathered_for(task, inputs))
        return await write(task, pieces, context, log, streaming=streaming)
