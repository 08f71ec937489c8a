"""What the commands that serve wisp on stdio to another program (``wisp mcp``, ``wisp acp``)
share on the command line: the model to start on, and how commands are approved and confined;
and the optional SDK each one needs, asked for before anything starts."""

from __future__ import annotations

import argparse
import importlib

from wisp.cli.building.switches import add_command_switches
from wisp.cli.context import Context


def add_server_parser(
    commands: argparse._SubParsersAction,
    name: str,
    summary: str,
    description: str,
    epilog: str,
    model_help: str,
) -> argparse.ArgumentParser:
    """The server command's parser, with the options every server takes; ``model_help`` says
    what its ``-m`` chooses."""
    parser = commands.add_parser(
        name,
        help=summary,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_serving_options(parser, model_help=model_help)
    return parser


def has_sdk(name: str, sdk: str, module: str, pin: str, context: Context) -> bool:
    """Whether ``wisp NAME``'s optional SDK (``module``, installed as ``pin``) imports; when it
    does not, the person is told how to install it."""
    try:
        importlib.import_module(module)
    except ImportError:
        context.warn(
            f"wisp {name} needs {sdk}, an optional extra: pip install 'wisp[{name}]' "
            f"(or pip install '{pin}')"
        )
        return False
    return True


def add_serving_options(parser: argparse.ArgumentParser, *, model_help: str) -> None:
    """``-m``, ``--yes``, ``--yes-network`` and ``--unsafe``. SUPPRESS: the top-level parser
    holds the defaults, so ``wisp -m X mcp`` keeps X."""
    parser.add_argument(
        "-m", "--model", metavar="MODEL", default=argparse.SUPPRESS, help=model_help
    )
    add_command_switches(parser, yes_help="approve every command once, as in chat")
