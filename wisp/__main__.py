"""``python -m wisp``: the same as the ``wisp`` console script."""

from wisp.cli.main import run

run()
