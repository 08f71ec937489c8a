"""``wisp-tui``: the console script for the full-screen front end."""

from __future__ import annotations

import gc
import sys

from .keys import keys_text

TYPE_CHECKING = False  # nothing is imported before wisp is spawned that need not be
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TextIO

    from .app import WispApp

USAGE = f"""\
usage: wisp-tui [wisp chat arguments]

The full-screen terminal front end for wisp. It runs `wisp chat --json` with the
arguments given and shows each turn: the streamed reply, the tools it ran,
approvals and questions.

  -V, --version   print the version and exit (only as the sole argument)
  -h, --help      print this help and exit (only as the sole argument)

Keys:
{keys_text("  ")}

Examples:
  wisp-tui
  wisp-tui -m ollama:qwen3
  WISP_BIN=./venv/bin/wisp wisp-tui --resume notes
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    # These words are ours only as the sole argument; anywhere else they are wisp's.
    if args in (["--version"], ["-V"]):
        from wisp import __version__

        print(f"wisp-tui {__version__}")
        return 0
    if args in (["--help"], ["-h"]):
        print(USAGE, end="")
        return 0
    # wisp first, before Textual is imported: its start and imports then run on the other
    # core while Textual's run here, and its hello is waiting when the first frame is drawn.
    from .spawn import close_unadopted, start_early

    started = start_early(args)
    # Importing Textual and building the first frame make objects by the hundred thousand and
    # free almost none: the cyclic collector's passes over them are wasted. The app turns it on
    # again once the first frame is drawn.
    gc.disable()
    try:
        from .app import WispApp

        app = WispApp(args)
        if started is not None:
            app.backend.adopt(started)
        app.run()
    finally:
        close_unadopted(started)  # the app never took it (it failed to start)
    return leave(app, sys.stderr)


def leave(app: WispApp, stderr: TextIO) -> int:
    """After the screen is gone: what wisp said that was not shown, then the exit status."""
    from .backend import QUIT_TIMEOUT

    for line in app.backend.stderr_to_print():
        print(line, file=stderr)
    if app.backend.was_killed:
        print(
            f"wisp-tui: wisp did not exit within {QUIT_TIMEOUT:g} s of /quit, so it was stopped",
            file=stderr,
        )
    stderr.flush()
    # The status is the app's return code (set from wisp's by the quit), not its return value.
    return app.return_code if app.return_code is not None else 0


def run() -> None:
    sys.exit(main(sys.argv[1:]))


if __name__ == "__main__":
    run()
