"""``wisp``: the command line. ``main(argv)`` parses, runs one command and returns its exit code."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from wisp import __version__, diagnostics
from wisp.cli import chat as chat_command
from wisp.cli import config as config_command
from wisp.cli import logs as logs_command
from wisp.cli import models as models_command
from wisp.cli import prompt as prompt_command
from wisp.cli.context import Context
from wisp.diagnostics import logger
from wisp.errors import WispError
from wisp.home import Home

DESCRIPTION = """\
wisp is a local AI agent for the terminal: every action it takes is checked, confined,
recorded in an audit log you own, and shown to you."""

EPILOG = """\
examples:
  wisp "what is the date today?"        one turn: the reply on stdout (see wisp PROMPT --help)
  wisp chat                             a conversation at the terminal
  wisp config set audit.keepFiles 3     change a setting (recorded in the audit log)
  wisp logs --last 20                   the newest audit events, one line each
  wisp logs --kind config.change --json the stored lines themselves

environment:
  WISP_HOME   where wisp keeps config.json and logs/ (default ~/.wisp)
  WISP_LOG    debug, info or error: mirror wisp's diagnostic log to stderr"""


COMMANDS = frozenset({"config", "logs", "chat", "models"})
_OPTIONS_WITH_VALUES = frozenset({"-m", "--model", "--save", "--resume", "-r"})
# (--yes, --unsafe and --no-tools take no value, so they need no entry here.)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wisp",
        usage="wisp [-m MODEL] PROMPT... | wisp COMMAND [options]",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"wisp {__version__}")
    commands = parser.add_subparsers(
        title="commands", metavar="COMMAND", dest="command", prog="wisp"
    )
    chat_command.add_parser(commands)
    config_command.add_parser(commands)
    logs_command.add_parser(commands)
    models_command.add_parser(commands)
    return parser


def is_prompt(argv: Sequence[str]) -> bool:
    """Whether the command line is ``wisp [options] PROMPT…`` rather than ``wisp COMMAND``."""
    expecting_value = False
    for word in argv:
        if expecting_value:
            expecting_value = False
        elif word == "--":
            return True
        elif word in _OPTIONS_WITH_VALUES:
            expecting_value = True
        elif not word.startswith("-"):
            return word not in COMMANDS
    return False


def main(argv: Sequence[str] | None = None, context: Context | None = None) -> int:
    """Run one command; return its exit code (0 ok, 1 failed, 2 usage)."""
    context = context or Context(Home.from_environ(), os.environ)
    warning = diagnostics.configure(context.environ)
    if warning:
        context.warn(warning)
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = prompt_command.build_parser() if is_prompt(argv) else build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error argparse has printed
        return exc.code if isinstance(exc.code, int) else 2
    args.argv = argv  # as typed: `wisp chat` hands its words on to a front end (tui.md §1)
    if getattr(args, "prompt", None):
        args.command, args.handler = "prompt", prompt_command.run_prompt
    if args.command is None:
        parser.print_help(context.stderr)
        return 2
    logger.debug("wisp %s: %s, home %s", __version__, args.command, context.home.root)
    try:
        return args.handler(args, context)
    except WispError as exc:
        context.warn(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        return 130


def run() -> None:
    """The console script: exit with ``main``'s code, quietly when stdout's reader went away."""
    try:
        code = main(sys.argv[1:])
        sys.stdout.flush()
    except BrokenPipeError:
        # `wisp logs | head`: the reader has all it wanted. Point stdout at /dev/null so the
        # interpreter's final flush does not complain.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)
