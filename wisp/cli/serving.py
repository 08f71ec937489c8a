"""What the commands that serve wisp on stdio to another program (``wisp mcp``, ``wisp acp``)
share on the command line: the model to start on, and how commands are approved and confined."""

from __future__ import annotations

import argparse


def add_serving_options(parser: argparse.ArgumentParser, *, model_help: str) -> None:
    """``-m``, ``--yes`` and ``--unsafe``. SUPPRESS: the top-level parser holds the defaults,
    so ``wisp -m X mcp`` keeps X."""
    parser.add_argument(
        "-m", "--model", metavar="MODEL", default=argparse.SUPPRESS, help=model_help
    )
    parser.add_argument(
        "--yes", "-y", action="store_true", default=argparse.SUPPRESS,
        help="approve every command once, as in chat (the deny list and the sandbox still "
        "apply)",
    )  # fmt: skip
    parser.add_argument(
        "--unsafe", action="store_true", default=argparse.SUPPRESS,
        help="run commands without the sandbox and the deny and allow lists (still recorded)",
    )  # fmt: skip
