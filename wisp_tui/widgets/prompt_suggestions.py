"""The suggestions row above the input: Tab's candidates when there are several (docs/tui.md,
"The input").

The first Tab puts in the candidates' common prefix and shows them all here; each further Tab
puts the next one in place of the word, highlighted in the row; any edit (or sending) clears
the row, and the next Tab asks wisp again.
"""

from __future__ import annotations

import msgspec
from rich.text import Text
from textual.widgets import Static


class Offered(msgspec.Struct):
    """Candidates on show for the word at `start`, and which one is in the text (-1: none)."""

    candidates: list[str]
    start: int
    end: int
    """Where the word in the text ends now."""
    chosen: int = -1
    text: str = ""
    """The input's whole text when the row was last set: any other text means an edit."""


class Suggestions(Static):
    """One row of candidates, the chosen one highlighted; hidden while there are none."""

    DEFAULT_CSS = """
    Suggestions {
        display: none;
        height: 1;
        padding: 0 1 0 3;
        background: $deep;
        color: $mist;
    }
    Suggestions.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.offered: Offered | None = None

    def offer(self, candidates: list[str], start: int, end: int, text: str) -> None:
        self.offered = Offered(list(candidates), start, end, text=text)
        self._show()

    def next_word(self, text: str) -> tuple[Offered, str] | None:
        """Tab with the row shown and the text as left: the next candidate and where it goes;
        None when there is no row or the text was edited since."""
        offered = self.offered
        if offered is None or offered.text != text:
            return None
        offered.chosen = (offered.chosen + 1) % len(offered.candidates)
        return offered, offered.candidates[offered.chosen]

    def placed(self, end: int, text: str) -> None:
        """The chosen word is in the text, now ending at `end`."""
        if self.offered is not None:
            self.offered.end, self.offered.text = end, text
            self._show()

    def clear_unless(self, text: str) -> None:
        """The input changed: the row goes unless the change was the row's own."""
        if self.offered is not None and self.offered.text != text:
            self.offered = None
            self._show()

    def _show(self) -> None:
        offered = self.offered
        self.set_class(offered is not None, "-shown")
        if offered is None:
            self.update("")
            return
        first = _first_shown(offered.candidates, offered.chosen, self.content_size.width)
        row = Text("… " if first else "", no_wrap=True, overflow="ellipsis")
        for index, word in enumerate(offered.candidates[first:], start=first):
            if index > first:
                row.append("  ")
            row.append(word, style="bold reverse" if index == offered.chosen else "")
        self.update(row)


def _first_shown(candidates: list[str], chosen: int, width: int) -> int:
    """The first candidate on the row: the earliest that keeps the chosen one in sight."""
    if chosen <= 0 or width <= 0:
        return 0
    first = 0
    while (
        first < chosen
        and len("… " * bool(first) + "  ".join(candidates[first : chosen + 1])) > width
    ):
        first += 1
    return first
