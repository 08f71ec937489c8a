"""``wisp [-m MODEL] [--no-tools] PROMPT…``: one turn; the reply on stdout, its lines on stderr."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import TYPE_CHECKING

from wisp.cli.building.switches import add_command_switches
from wisp.cli.context import Context

if TYPE_CHECKING:
    from wisp.cli.chat.faces import Face
    from wisp.cli.chat.session import ConversationOptions

DESCRIPTION = """\
Run one turn: send PROMPT to the model, let it use its tools, and print the reply on stdout.
Under the reply, on stderr: ran: (the tools that really ran), cited entries that do not exist,
and how long the model thought. Exit 0 on a reply, 1 when the turn failed, 2 on bad usage."""

EPILOG = """\
examples:
  wisp "what is the date today?"
  wisp -m ollama:qwen3 "which ports are listening?"
  wisp -m local --no-tools "What is the capital of France? One word."
  wisp --save notes "summarise README.md"      then: wisp --resume notes "and the docs?"
  wisp -m script:demo.json "check the config"  replay a recorded model, for demos and tests
  wisp -- models                               a prompt that would read as a command"""


MODEL_OPTION_DEFAULTS: dict[str, object] = {
    "model": None,
    "no_tools": False,
    "yes": False,
    "yes_network": False,
    "unsafe": False,
    "save": None,
    "resume": None,
}
"""What the options ``add_model_options`` adds are when not given."""


def add_model_options(parser: argparse._ActionsContainer) -> None:
    """The options of a prompt and of ``wisp chat``. Their defaults are left to the parser
    the command line starts in (``MODEL_OPTION_DEFAULTS``): argparse copies a command's own
    defaults over what was read before the command's name, so ``wisp -m X chat`` would lose X."""
    parser.add_argument(
        "-m", "--model", metavar="MODEL", default=argparse.SUPPRESS,
        help="local, local:PATH.gguf, ollama:NAME, llamacpp:NAME, lmstudio:NAME, openai:NAME "
        "or script:PATH (default: config's model)",
    )  # fmt: skip
    parser.add_argument(
        "--no-tools", action="store_true", default=argparse.SUPPRESS,
        help="offer the model no tools",
    )  # fmt: skip
    add_command_switches(parser, yes_help="approve every command the model asks to run, once")
    parser.add_argument(
        "--save", metavar="NAME", default=argparse.SUPPRESS,
        help="save the conversation as NAME after every turn; one wisp at a time may hold NAME",
    )  # fmt: skip
    parser.add_argument(
        "--resume", "-r", metavar="NAME", default=argparse.SUPPRESS,
        help="continue the conversation saved as NAME",
    )  # fmt: skip


def takes_model_options(parser: argparse.ArgumentParser) -> bool:
    """Whether ``add_model_options`` gave ``parser`` its options."""
    return any("--model" in action.option_strings for action in parser._actions)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wisp",
        usage="wisp [-m MODEL] [--no-tools] [--save NAME] [--resume NAME] PROMPT...",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_model_options(parser)
    parser.set_defaults(**MODEL_OPTION_DEFAULTS)
    parser.add_argument("prompt", nargs="+", metavar="PROMPT", help="what to ask")
    return parser


def run_prompt(args: argparse.Namespace, context: Context) -> int:
    # Imported here: `wisp logs` and `wisp config` need none of the agent, httpx, models or
    # asyncio (asyncio alone is a quarter of `wisp logs`'s startup; see docs/performance.md).
    import asyncio

    from wisp.cli.building.runner import CommandOptions
    from wisp.cli.chat.session import ConversationOptions

    options = ConversationOptions(
        entry_point="respond",
        model=args.model,
        no_tools=args.no_tools,
        resume=args.resume,
        save=args.save,
        commands=CommandOptions(yes=args.yes, yes_network=args.yes_network, unsafe=args.unsafe),
    )
    prompt = " ".join(args.prompt)
    return asyncio.run(_run(context, options, prompt))


async def _run(context: Context, options: ConversationOptions, prompt: str) -> int:
    import asyncio

    from wisp.chat.oneshot import OneShotFace
    from wisp.cli.chat.session import ChatSession, save_if_asked
    from wisp.store.transcripts import TranscriptError

    face = OneShotFace(context.stdout, context.stderr)
    async with ChatSession.open(context, options, _person(context)) as session:
        for note in session.notes:
            face.note(note)
        conversation = session.conversation
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, conversation.stop)  # Ctrl-C stops the turn
        try:
            with session.subscribe(face.emit):
                result = await conversation.run_turn(prompt)
        finally:
            loop.remove_signal_handler(signal.SIGINT)
        try:
            saved, failed = save_if_asked(session), None
        except TranscriptError as exc:
            saved, failed = None, exc
    code = face.finish(result)
    if saved is not None:
        face.note(saved)  # under the reply's own lines: where it went, and how to go on
    if failed is not None:
        # The reply printed stands; one line says what was not saved, and the status fails.
        face.note(f"wisp: {failed}")
        return code or 1
    return code


def _person(context: Context) -> Face:
    """Someone to ask (an approval, a question) only when stdin is a terminal."""
    from wisp.chat.plain import LineReader
    from wisp.cli.chat.faces import Face

    if not sys.stdin.isatty():
        return Face()
    reader = LineReader(sys.stdin)
    return Face(
        readline=reader.readline,
        is_terminal=True,
        write=lambda text: print(text, file=context.stderr, flush=True),
    )
