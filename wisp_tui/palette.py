"""The palette (docs/tui.md, "Layout"), defined once: hex values, and the CSS variables the app
declares."""

from __future__ import annotations

GLOW = "#CFF1FF"
WISP = "#8FD3F4"
MIST = "#86AEC8"
DEEP = "#253B4E"
SENT = "#121D27"
AMBER = "#F2B950"
EMBER = "#FF6B6B"
WHITE = "#E6EDF0"
ADDED = "#7ED98F"
REMOVED = "#FF6B6B"
TOKENS_IN = "#F2E39C"
TOKENS_OUT = GLOW
COMMAND = "#E8B577"
COMMAND_SENT = "#745A3C"
BLACK = "#000000"

CSS_VARIABLES: dict[str, str] = {
    "glow": GLOW,
    "wisp": WISP,
    "mist": MIST,
    "deep": DEEP,
    "sent": SENT,
    "amber": AMBER,
    "ember": EMBER,
    "white": WHITE,
    "added": ADDED,
    "removed": REMOVED,
    "tokens-in": TOKENS_IN,
    "tokens-out": TOKENS_OUT,
    "command": COMMAND,
    "command-sent": COMMAND_SENT,
    "black": BLACK,
}
"""Each colour as a Textual CSS variable (`$glow`, `$command-sent`, …) for DEFAULT_CSS."""


def level_colour(level: str) -> str:
    """An approval level's colour: dangerous EMBER, moderate AMBER, anything else WISP."""
    return {"dangerous": EMBER, "moderate": AMBER}.get(level, WISP)
