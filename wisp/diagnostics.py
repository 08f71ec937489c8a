"""The diagnostic log (docs/logging.md, "The diagnostic log"): Python ``logging`` under the logger
``wisp``.

Silent by default. ``WISP_LOG=debug|info|error`` mirrors it to stderr. Nothing ever goes to
stdout, which belongs to the command's output and to the ``chat --json`` protocol.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "error": logging.ERROR}

logger = logging.getLogger("wisp")


def configure(environ: Mapping[str, str]) -> str | None:
    """Set up the ``wisp`` logger from ``WISP_LOG``; return a warning for a bad value."""
    logger.propagate = False
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
    value = environ.get("WISP_LOG", "").strip().lower()
    if not value:
        logger.addHandler(logging.NullHandler())
        logger.setLevel(logging.CRITICAL + 1)
        return None
    level = LEVELS.get(value)
    if level is None:
        logger.addHandler(logging.NullHandler())
        return f"WISP_LOG={value!r} is not a level; use one of: {', '.join(LEVELS)}"
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("wisp %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(level)
    return None
