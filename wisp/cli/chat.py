"""``wisp chat``: a conversation at the terminal (the plain line chat)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from wisp.cli.context import Context
from wisp.cli.prompt import add_model_options

if TYPE_CHECKING:
    from wisp.cli.conversation import ConversationOptions

EPILOG = """\
In the chat:
  /help            the commands          /tools         the tools the model may use
  /show N          entry N (or an event id's first characters) whole
  /inspect context what the next request will carry
  /new             start afresh          /model [NAME]  show or change the model
  /save NAME       save the conversation (and again on quitting)
  /quit            leave (Ctrl-D too)    Ctrl-C         stop the running turn
  !COMMAND         run a command yourself: the deny list and the sandbox apply, no approval

When the model asks to run a command rated at or above approval.threshold (default
moderate), you are asked: y (once), s (this session), p (this project, 30 days),
a (always, 30 days), n (no). Dangerous commands are never remembered past the session.

examples:
  wisp chat
  wisp chat -m ollama:qwen3 --save work      then later: wisp chat --resume work"""


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "chat",
        help="Talk with the model at the terminal, turn after turn.",
        description="Talk with the model at the terminal, turn after turn. Replies stream as "
        "they come; under each, ran: names the tools that really ran.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_model_options(parser)
    parser.set_defaults(handler=run_chat)


def run_chat(args: argparse.Namespace, context: Context) -> int:
    # Imported here: the other commands need none of the agent, httpx, models or asyncio
    # (asyncio alone is a quarter of `wisp logs`'s startup; see docs/performance.md).
    import asyncio

    from wisp.cli.commands import CommandOptions
    from wisp.cli.conversation import ConversationOptions

    options = ConversationOptions(
        entry_point="chat",
        model=args.model,
        no_tools=args.no_tools,
        resume=args.resume,
        save=args.save,
        commands=CommandOptions(yes=args.yes, unsafe=args.unsafe),
    )
    return asyncio.run(_chat(context, options))


async def _chat(context: Context, options: ConversationOptions) -> int:
    from wisp.chat.plain import LineReader, PlainChat
    from wisp.cli.conversation import ChatSession, Face

    reader = LineReader(sys.stdin)
    face = Face(
        readline=reader.readline,
        is_terminal=sys.stdin.isatty(),
        write=lambda text: print(text, file=context.stdout, flush=True),
    )
    async with ChatSession.open(context, options, face) as session:
        for note in session.notes:
            print(note, file=context.stdout)
        chat = PlainChat(session, context.stdout, context.stderr, reader)
        if options.save:
            chat.save_name = options.save
        elif options.resume:
            chat.save_name = options.resume
        return await chat.run()
