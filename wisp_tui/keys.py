"""wisp-tui's keys, listed once: `wisp-tui --help`, `/help` and F1 all show this list.

The bindings are on the screens and widgets that act (docs/tui.md, "Keys"); the two groups of
keys that more than one screen binds are named here once. No imports: `wisp-tui --help` prints
the list without loading Textual, and start-up is measured.
"""

from __future__ import annotations

KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "send; Ctrl-J, Alt-Enter or Shift-Enter start a new line"),
    ("Up, Down", "the lines sent before (kept in WISP_HOME/history)"),
    ("Tab", "complete a /command; again: the next of several candidates"),
    ("!", "at the start of the line: run a command yourself"),
    ("Ctrl-C, Ctrl-D", "clear the input (Up brings it back); stop the turn"),
    ("", "(twice: kill its work); with nothing to clear or stop, quit"),
    ("Ctrl-O", "the last output in a panel; Ctrl-G opens or shuts every fold"),
    ("Shift-Tab", "step to the folds (Enter opens one); Tab back, Esc: the input"),
    ("Ctrl-T", "between turns: what the next request carries, in a panel;"),
    ("", "Left, Right in it step through the turns"),
    ("PageUp, PageDown", "scroll the transcript; in a panel: a page"),
    ("Esc", "in a panel: close it (Up, Down scroll)"),
    ("Ctrl-R", "copy the last reply; selecting text with the mouse copies it"),
    ("F1", "this list of keys"),
    ("/models", "the model picker: Space on or off, u to use, Enter saves"),
)
"""Each key and what it does; an empty key continues the line above."""


def keys_text(indent: str = "") -> str:
    """The keys as aligned rows, each after `indent`."""
    width = max(len(key) for key, _ in KEYS)
    return "\n".join(f"{indent}{key:<{width}}  {what}" for key, what in KEYS)


STOP_KEYS = "ctrl+c,ctrl+d,ctrl+q"
"""Ctrl-C and Ctrl-D are one key (docs/tui.md, "Stopping and quitting"), and Ctrl-Q, Textual's
quit, is the same key here. Every screen binds them, each to its own step: a panel closes, a
dialog is refused, the main screen stops the turn, clears a draft or quits."""

PANEL_KEYS: tuple[tuple[str, str], ...] = (
    ("ctrl+o", "output"),
    ("ctrl+t", "context"),
    ("f1", "keys"),
)
"""Each key that opens a panel and the panel's kind; bound on the main screen and on a panel."""
