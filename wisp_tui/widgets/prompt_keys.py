"""The keys the input box reads: characters, the edits it knows, and Alt-Enter reported as such.

The editor takes readline-like keys in place of TextArea's own bindings. While a turn runs, the
box holds exactly the characters and these edits (and pastes), to replay them later; the keys in
``BUSY_IGNORED`` do nothing then, so that nothing is sent or moved unseen.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual._xterm_parser import XTermParser

NEWLINE_KEYS = frozenset({"ctrl+j", "alt+enter", "shift+enter"})
MODIFIERS = ("alt+", "ctrl+", "super+", "meta+", "hyper+")

EDIT_KEYS: dict[str, str] = {
    "left": "action_cursor_left",
    "right": "action_cursor_right",
    "ctrl+left": "action_cursor_word_left",
    "alt+left": "action_cursor_word_left",
    "alt+b": "action_cursor_word_left",
    "ctrl+right": "action_cursor_word_right",
    "alt+right": "action_cursor_word_right",
    "alt+f": "action_cursor_word_right",
    "home": "line_start",
    "ctrl+a": "line_start",
    "end": "line_end",
    "ctrl+e": "line_end",
    "backspace": "backspace",
    "delete": "delete_forward",
    "ctrl+w": "delete_word_back",
    "alt+backspace": "delete_word_back",
    "ctrl+backspace": "delete_word_back",
    "ctrl+u": "delete_to_line_start",
    "ctrl+k": "delete_to_line_end",
    **dict.fromkeys(NEWLINE_KEYS, "newline"),
}
"""Keys that edit or move, and the editor's method for each; the busy box holds exactly these and
characters."""

BUSY_IGNORED = frozenset({"enter", "tab", "shift+tab", "up", "down", "escape"})
"""Keys that do nothing while busy; Enter is not held, so nothing is sent unseen."""

Held = events.Key | events.Paste
"""A key or paste typed while the box was busy, kept to be replayed."""


def is_character(event: events.Key) -> bool:
    """A printable character typed alone (Shift aside): Alt-x or Ctrl-x do nothing."""
    return event.is_printable and not event.key.startswith(MODIFIERS)


def is_holdable(event: Held) -> bool:
    """Whether the busy box keeps this to replay: a paste, a character or an edit."""
    return not isinstance(event, events.Key) or is_character(event) or event.key in EDIT_KEYS


def _report_alt_enter() -> None:
    """Make Textual's parser report ESC CR (Alt-Enter in most terminals) as `alt+enter`.

    Textual 8 drops the Alt of keys it maps through its table (Enter among them), so Alt-Enter
    would arrive as Enter and send the message instead of starting a new line.
    """
    original = XTermParser._sequence_to_key_events
    if getattr(original, "_wisp_alt_enter", False):
        return

    def sequence_to_key_events(
        self: XTermParser, sequence: str, alt: bool = False
    ) -> Iterable[events.Key]:
        if alt and sequence == "\r":
            return [events.Key("alt+enter", None)]
        return original(self, sequence, alt)

    sequence_to_key_events._wisp_alt_enter = True  # type: ignore[attr-defined]
    XTermParser._sequence_to_key_events = sequence_to_key_events  # type: ignore[method-assign]


_report_alt_enter()
