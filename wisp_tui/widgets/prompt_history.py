"""Up and Down in the input box: the lines sent before, newest first, and back to the draft.

Up on the box's first row shows the previous line sent (a ``!`` line comes back in command
mode); Down on its last row shows the next one, and Down past the newest brings back what was
being typed before Up was first pressed.
"""

from __future__ import annotations

from collections.abc import Sequence

Shown = tuple[str, bool]
"""The text the box shows and whether it is in command mode."""


class Recall:
    """Where the box stands in the history, and the draft it left."""

    def __init__(self) -> None:
        self._recalled: int | None = None
        """An index into the history's lines; None: the fresh line (the draft)."""
        self._draft: Shown = ("", False)

    def reset(self) -> None:
        """A line was sent: the next Up starts again from the newest."""
        self._recalled = None

    def step(self, lines: Sequence[str], step: int, current: Shown) -> Shown | None:
        """What to show after Up (-1) or Down (+1) from ``current``; None: nothing changes."""
        if not lines:
            return None
        if self._recalled is None:
            if step > 0:
                return None
            self._draft = current
            index: int | None = len(lines) - 1
        else:
            index = max(0, self._recalled + step)
            if index >= len(lines):
                index = None
        self._recalled = index
        if index is None:
            return self._draft
        line = lines[index]
        is_command = line.startswith("!")
        return (line[1:] if is_command else line), is_command
