"""``wisp``: the command line. ``main(argv)`` parses, runs one command and returns its exit code."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable, Sequence

from wisp import __version__, diagnostics
from wisp.cli.chat import prompt as prompt_command
from wisp.cli.command_line import WordReader, near_command
from wisp.cli.context import Context
from wisp.diagnostics import logger
from wisp.errors import UsageError, WispError
from wisp.home import Home

DESCRIPTION = """\
wisp is a local AI agent for the terminal: every action it takes is checked, confined,
recorded in an audit log you own, and shown to you."""

EPILOG = """\
examples:
  wisp "what is the date today?"        one turn: the reply on stdout (see wisp PROMPT --help)
  wisp -- modles                        a prompt, even a lone word one slip from a command's
                                        name (without --, that is refused as a typo)
  wisp chat                             a conversation at the terminal
  wisp models pull hf:lmstudio-community/Qwen2.5-1.5B-Instruct-GGUF
                                        a small model that can use tools (local cannot)
  git commit -F <(wisp draft commit)    a commit message for the staged changes
  wisp config set audit.keepFiles 3     change a setting (recorded in the audit log)
  wisp logs --last 20                   the newest audit events, one line each
  wisp logs --kind config.change --json the stored lines themselves
  wisp notify "tests done" "exit 0"     a desktop notification

environment:
  WISP_HOME   where wisp keeps config.json and logs/ (default ~/.wisp)
  WISP_LOG    debug, info or error: mirror wisp's diagnostic log to stderr"""


AddParser = Callable[[argparse._SubParsersAction], None]
"""A command's ``add_parser``: it adds the command's parser, which names the command's handler."""


# Each command's module is imported only when its parser is wanted, so that running one command
# imports no other's (``wisp chat --json`` starts sooner); each loader names its module outright.


def _acp() -> AddParser:
    from wisp.cli.servers.acp import add_parser

    return add_parser


def _approvals() -> AddParser:
    from wisp.cli.answering.approvals import add_parser

    return add_parser


def _chat() -> AddParser:
    from wisp.cli.chat.command import add_parser

    return add_parser


def _classifier() -> AddParser:
    from wisp.cli.classifier import add_parser

    return add_parser


def _config() -> AddParser:
    from wisp.cli.config import add_parser

    return add_parser


def _draft() -> AddParser:
    from wisp.cli.drafting.command import add_parser

    return add_parser


def _facts() -> AddParser:
    from wisp.cli.facts import add_parser

    return add_parser


def _logs() -> AddParser:
    from wisp.cli.logs import add_parser

    return add_parser


def _mcp() -> AddParser:
    from wisp.cli.servers.mcp import add_parser

    return add_parser


def _mcp_servers() -> AddParser:
    from wisp.cli.mcp_servers import add_parser

    return add_parser


def _models() -> AddParser:
    from wisp.cli.models.command import add_parser

    return add_parser


def _notify() -> AddParser:
    from wisp.cli.notify import add_parser

    return add_parser


def _redact() -> AddParser:
    from wisp.cli.scanning.command import add_redact_parser

    return add_redact_parser


def _scan() -> AddParser:
    from wisp.cli.scanning.command import add_scan_parser

    return add_scan_parser


def _questions() -> AddParser:
    from wisp.cli.answering.questions import add_parser

    return add_parser


def _watch() -> AddParser:
    from wisp.cli.watching.command import add_parser

    return add_parser


COMMANDS: dict[str, Callable[[], AddParser]] = {
    "acp": _acp,
    "approvals": _approvals,
    "chat": _chat,
    "classifier": _classifier,
    "config": _config,
    "draft": _draft,
    "facts": _facts,
    "logs": _logs,
    "mcp": _mcp,
    "mcp-servers": _mcp_servers,
    "models": _models,
    "notify": _notify,
    "questions": _questions,
    "redact": _redact,
    "scan": _scan,
    "watch": _watch,
}
"""Each command's name, and the loader of the function that adds its parser."""


def build_parser() -> argparse.ArgumentParser:
    return _build_parsers()[0]


def _build_parsers(
    only: str | None = None,
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """wisp's parser, and each command's by its name; with ``only``, that command's alone, so
    that running it imports no other command's module (``wisp chat --json`` starts sooner)."""
    parser = argparse.ArgumentParser(
        prog="wisp",
        usage="wisp [options] PROMPT... | wisp [options] chat ... | wisp COMMAND ...",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"wisp {__version__}")
    # The options a prompt and chat take may come first (`wisp -m local chat`), so this parser
    # knows them too: otherwise `wisp -m local --help` reads `local` as the command's name.
    prompt_command.add_model_options(
        parser.add_argument_group("options of a prompt and of chat (see wisp chat --help)")
    )
    parser.set_defaults(**prompt_command.MODEL_OPTION_DEFAULTS)
    commands = parser.add_subparsers(
        title="commands", metavar="COMMAND", dest="command", prog="wisp"
    )
    for name in COMMANDS if only is None else (only,):
        COMMANDS[name]()(commands)
    return parser, dict(commands.choices)


def parse(argv: list[str]) -> argparse.Namespace:
    """Read the command line as a command (its name is the first word) or else as a prompt.

    Raises SystemExit as argparse does (help, version, usage errors), and UsageError for a
    lone word one slip from a command's name, which goes to no model."""
    words = WordReader(prompt_command.add_model_options).read(argv)
    if words is None or not words.words:
        return build_parser().parse_args(argv)  # no command and no prompt: help, or an error
    if words.dashed:
        return prompt_command.build_parser().parse_args(argv)
    assert words.first is not None
    name = words.words[0]
    if name in COMMANDS:
        parser, commands = _build_parsers(only=name)
        return _parse_command(parser, argv, words.first, commands[name])
    if len(words.words) == 1 and (meant := near_command(name, COMMANDS)):
        rest = [word for word in argv if word != "--"]  # a trailing one: nothing follows it
        del rest[words.first]
        asked = shlex.join(["wisp", *rest, "--", name])
        raise UsageError(f'did you mean "wisp {meant}"? To ask the model: {asked}')
    return prompt_command.build_parser().parse_args(argv)


def _parse_command(
    parser: argparse.ArgumentParser, argv: list[str], at: int, command: argparse.ArgumentParser
) -> argparse.Namespace:
    """Parse ``wisp [options] COMMAND ...``, the command's name standing at ``at``."""
    before, name = argv[:at], argv[at]
    if before and not prompt_command.takes_model_options(command):
        # Said, not ignored: `wisp -m X models check` is not a check of X.
        raise UsageError(
            f"{shlex.join(before)}: options of a prompt and of wisp chat, not of wisp {name}"
        )
    args = parser.parse_args(argv)
    # `wisp chat` hands its words on to a front end: its name first, then every other word as
    # typed, those before it too.
    args.argv = [name, *before, *argv[at + 1 :]]
    return args


def main(argv: Sequence[str] | None = None, context: Context | None = None) -> int:
    """Run one command; return its exit code (0 ok, 1 failed, 2 usage)."""
    context = context or Context(Home.from_environ(), os.environ)
    warning = diagnostics.configure(context.environ)
    if warning:
        context.warn(warning)
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parse(argv)
    except SystemExit as exc:  # --help, --version, or a usage error argparse has printed
        return exc.code if isinstance(exc.code, int) else 2
    except UsageError as exc:
        context.warn(str(exc))
        return exc.exit_code
    args.argv = getattr(args, "argv", argv)
    if getattr(args, "prompt", None):
        args.command, args.handler = "prompt", prompt_command.run_prompt
    if args.command is None:
        build_parser().print_help(context.stderr)
        return 2
    logger.debug("wisp %s: %s, home %s", __version__, args.command, context.home.root)
    # A command may map every error to one code (`wisp scan`: 2, so that 1 means findings).
    error_exit: int | None = getattr(args, "error_exit", None)
    try:
        return args.handler(args, context)
    except WispError as exc:
        context.warn(str(exc))
        return error_exit or exc.exit_code
    except OSError as exc:
        # A file wisp could not use (WISP_HOME a file, a full disk, a folder it may not
        # read): one line naming the file and the cause, never a traceback.
        context.warn(os_error_line(exc))
        return error_exit or 1
    except KeyboardInterrupt:
        return 130


def os_error_line(exc: OSError) -> str:
    """``cannot use PATH: CAUSE``, in the words of the system's own message."""
    cause = exc.strerror or str(exc)
    if exc.filename is None:
        return cause
    return f"cannot use {exc.filename}: {cause}"


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
