"""``wisp-tui``: the console script for the full-screen front end."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.metadata import version


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="wisp-tui",
        description="The full-screen terminal front end for wisp. It runs `wisp chat --json` "
        "and shows each turn: the streamed reply, the tools it ran, approvals and questions.",
    )
    parser.add_argument("--version", action="version", version=f"wisp-tui {version('wisp')}")
    parser.parse_args(argv)
    # The screen itself comes with the headless chat it talks to; until then say so plainly.
    print("wisp-tui: the full-screen front end is not part of this build yet", file=sys.stderr)
    return 1


def run() -> None:
    sys.exit(main(sys.argv[1:]))


if __name__ == "__main__":
    run()
