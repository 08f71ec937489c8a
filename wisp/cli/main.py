"""``wisp``: the command line. ``main(argv)`` parses, runs one command and returns its exit code."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from wisp import __version__, diagnostics
from wisp.cli import config as config_command
from wisp.cli import logs as logs_command
from wisp.cli.context import Context
from wisp.diagnostics import logger
from wisp.errors import WispError
from wisp.home import Home

DESCRIPTION = """\
wisp is a local AI agent for the terminal: every action it takes is checked, confined,
recorded in an audit log you own, and shown to you."""

EPILOG = """\
examples:
  wisp config set audit.keepFiles 3     change a setting (recorded in the audit log)
  wisp logs --last 20                   the newest audit events, one line each
  wisp logs --kind config.change --json the stored lines themselves

environment:
  WISP_HOME   where wisp keeps config.json and logs/ (default ~/.wisp)
  WISP_LOG    debug, info or error: mirror wisp's diagnostic log to stderr"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wisp",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"wisp {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", dest="command")
    config_command.add_parser(commands)
    logs_command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None, context: Context | None = None) -> int:
    """Run one command; return its exit code (0 ok, 1 failed, 2 usage)."""
    context = context or Context(Home.from_environ(), os.environ)
    warning = diagnostics.configure(context.environ)
    if warning:
        context.warn(warning)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error argparse has printed
        return exc.code if isinstance(exc.code, int) else 2
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
