"""The command line's switches for how commands are approved and confined (``--yes``,
``--yes-network``, ``--unsafe``), defined once for every face that opens a conversation; they
become ``runner.CommandOptions``. Only argparse here: the parsers are built before anything
heavy is imported."""

from __future__ import annotations

import argparse


def add_command_switches(parser: argparse._ActionsContainer, *, yes_help: str) -> None:
    """``--yes`` (said in the face's own words), ``--yes-network`` and ``--unsafe``. SUPPRESS:
    the parser the command line starts in holds the defaults, so ``wisp -y chat`` keeps -y."""
    parser.add_argument(
        "--yes", "-y", action="store_true", default=argparse.SUPPRESS,
        help=f"{yes_help} (the deny list and the sandbox still apply; the network stays off "
        "to it: see --yes-network)",
    )  # fmt: skip
    parser.add_argument(
        "--yes-network", action="store_true", default=argparse.SUPPRESS,
        help="as --yes, and also approve the commands that need the network (curl, pip "
        "install, git fetch …), which then run with it; --yes alone never opens it",
    )  # fmt: skip
    parser.add_argument(
        "--unsafe", action="store_true", default=argparse.SUPPRESS,
        help="run commands without the sandbox and the deny and allow lists (still recorded)",
    )  # fmt: skip
