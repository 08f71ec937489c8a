"""``wisp chat``: a conversation at the terminal, or ``--json`` for a front end."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from wisp.cli.chat.prompt import add_model_options
from wisp.cli.context import Context

if TYPE_CHECKING:
    from wisp.cli.chat.session import ConversationOptions

EPILOG = """\
In the chat:
  /help            the commands          /tools         the tools the model may use
  /show N          entry N (or an event id's first characters) whole
  /inspect context what the next request will carry
  /new             start afresh          /model [NAME]  show or change the model
  /save NAME       save the conversation now (and again after every turn)
  /quit            leave (Ctrl-D too)    Ctrl-C         stop the running turn
  !COMMAND         run a command yourself: the deny list and the sandbox apply, no approval

When the model asks to run a command rated at or above approval.threshold (default
moderate), you are asked: y (once), s (this session), p (this project, 30 days),
a (always, 30 days), n (no). Dangerous commands are never remembered past the session.

On a terminal, wisp chat hands over to wisp-tui, the full-screen front end, when it is
installed beside wisp (WISP_TUI names another program to run instead); --plain keeps this
line chat. Piped input or output always gets the line chat.

--json speaks the wisp chat protocol on stdin and stdout instead (docs/protocol.md): the
same chat, for a front end such as wisp-tui.

examples:
  wisp chat
  wisp chat --plain                          the line chat even when wisp-tui is installed
  wisp chat -m ollama:qwen3 --save work      then later: wisp chat --resume work
  wisp chat --json -m script:demo.json"""


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
    parser.add_argument(
        "--json", action="store_true", help="speak the JSON Lines protocol on stdin and stdout"
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="keep the line chat on a terminal instead of handing over to wisp-tui",
    )
    parser.set_defaults(handler=run_chat)


def run_chat(args: argparse.Namespace, context: Context) -> int:
    if not (args.json or args.plain):
        _hand_over_on_a_terminal(args.argv, context)
    import gc

    # Importing wisp and opening the session make objects by the hundred thousand and free
    # almost none: the cyclic collector's passes over them are wasted (`_collect_from_now`).
    gc.disable()
    from wisp.sandbox.plan import probe_in_background

    probe_in_background()  # it runs while the rest of wisp is imported
    # Imported here: the other commands need none of the agent, httpx or models.
    from wisp.cli.building.runner import CommandOptions
    from wisp.cli.chat.session import ConversationOptions

    options = ConversationOptions(
        entry_point="chat",
        model=args.model,
        no_tools=args.no_tools,
        resume=args.resume,
        save=args.save,
        commands=CommandOptions(yes=args.yes, yes_network=args.yes_network, unsafe=args.unsafe),
    )
    import asyncio  # here: `wisp logs` and `wisp config` start without it

    run = _headless if args.json else _plain
    return asyncio.run(run(context, options))


def _hand_over_on_a_terminal(argv: list[str], context: Context) -> None:
    """Run the full-screen front end in this process's place when there is one.

    Returns only when the line chat should run: not on a terminal, no front end, or it failed.
    """
    import os

    from wisp.cli.chat import handover
    from wisp.sandbox.writable import WritableSet

    if not handover.on_a_terminal():
        return
    script = handover.own_script()
    # The sandbox's default roots (config.json's writableRoots are not read this early), the
    # working folder among them even when it is the home folder: allowHome may be on.
    writable = WritableSet.build(
        working_directory=os.getcwd(),
        home=context.home.root,
        environ=context.environ,
        allow_home=True,
    )
    front_end = handover.find_front_end(context.environ, script, writable)
    if front_end is None:
        if named := context.environ.get("WISP_TUI"):
            where = "" if os.sep in named else " on PATH outside the folders commands may write to"
            context.warn(f"WISP_TUI names {named}, which is not a program{where}")
        return
    words = argv[argv.index("chat") + 1 :]  # the command comes first: nothing before takes a value
    try:
        handover.hand_over(front_end, words, context.environ, script)
    except OSError as exc:
        context.warn(f"cannot run {front_end} ({exc.strerror or exc}), so the line chat runs")


async def _headless(context: Context, options: ConversationOptions) -> int:
    import asyncio
    import signal

    from wisp import __version__
    from wisp.chat.headless import feed, stdout_writer
    from wisp.chat.loop import ChatLoop
    from wisp.cli.chat.faces import Face
    from wisp.cli.chat.session import ChatSession

    write = stdout_writer()
    async with ChatSession.open(context, options, Face(protocol=True)) as session:
        _collect_from_now()
        chat = ChatLoop(session, write, version=__version__, notifier=session.notifier)
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, chat.terminate)  # ends like /quit
        loop.add_signal_handler(signal.SIGINT, chat.interrupt)
        reader = asyncio.create_task(feed(chat, sys.stdin.fileno()))
        # Approvals and questions pass the loop's notices too.
        try:
            with session.subscribe(chat.on_agent_event, lines=chat.write):
                return await chat.run()
        finally:
            reader.cancel()
            loop.remove_signal_handler(signal.SIGTERM)
            loop.remove_signal_handler(signal.SIGINT)


async def _plain(context: Context, options: ConversationOptions) -> int:
    import asyncio
    import signal

    from wisp import __version__
    from wisp.chat.loop import ChatLoop
    from wisp.chat.plain import LineReader, PlainFace, feed_lines
    from wisp.cli.chat.faces import Face
    from wisp.cli.chat.session import ChatSession

    face = PlainFace(context.stdout, context.stderr)
    async with ChatSession.open(
        context, options, Face(protocol=True, asks_via="terminal")
    ) as session:
        _collect_from_now()
        reader = LineReader(sys.stdin)
        # A person at the terminal is asked about guidance files at once; from a pipe, they
        # are left out and said on stderr.
        chat = ChatLoop(
            session,
            face.write,
            version=__version__,
            has_picker=False,
            asks_guidance=reader.is_terminal,
        )

        def ctrl_c() -> None:
            # Ctrl-C stops what runs (a second kills); at the prompt it leaves.
            if chat.running:
                chat.interrupt()
            else:
                chat.terminate()

        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, ctrl_c)
        reader = asyncio.create_task(feed_lines(face, reader, chat.receive, chat.end_of_input))
        try:
            with session.subscribe(chat.on_agent_event, lines=face.write):
                return await chat.run()
        finally:
            reader.cancel()
            loop.remove_signal_handler(signal.SIGINT)


def _collect_from_now() -> None:
    """The session is open: what wisp built to get here lives as long as the process, so it is
    set aside where the collector never walks it, and collecting starts again."""
    import gc

    gc.freeze()
    gc.enable()
