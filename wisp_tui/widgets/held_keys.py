"""Keys held while a turn runs: typed into the busy line, kept in order, replayed afterwards.

While busy, the editor is hidden behind the busy line, which takes the focus. The characters,
edits and pastes typed meanwhile are kept, and replayed in order, as if typed then, once the box
takes typing again (no turn running, no dialog or panel over it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar, Protocol, cast

from textual import events
from textual.widgets import Static

from .prompt_keys import BUSY_IGNORED, Held, is_holdable

if TYPE_CHECKING:
    from .prompt_area import PromptArea


class KeyHolder(Protocol):
    """The box the busy line stands in: it keeps what is typed meanwhile."""

    def hold(self, event: Held) -> bool: ...


class HeldKeys:
    """Keys and pastes typed while the box could not take them, oldest first."""

    def __init__(self) -> None:
        self._events: list[Held] = []

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Held]:
        return iter(self._events)

    def hold(self, event: Held) -> bool:
        """Keep a character, edit or paste; False: the event is not one."""
        if not is_holdable(event):
            return False
        self._events.append(event)
        return True

    def replay_into(self, area: PromptArea) -> None:
        """Type every held key and paste into ``area`` in order; a key held meanwhile waits."""
        held, self._events = self._events, []
        for event in held:
            if isinstance(event, events.Paste):
                area.paste(event.text)
            else:
                area.take_key(event)

    def count_text(self) -> str:
        """`` · 3 keys held``, or nothing when none is."""
        count = len(self._events)
        return "" if not count else f" · {count} key{'s' if count > 1 else ''} held"


class BusyLine(Static, can_focus=True):
    """The busy box's text; focused while busy, so typed keys land here and are held."""

    DEFAULT_CSS = """
    BusyLine { width: 1fr; height: 1; color: $mist; text-style: dim; }
    """

    IGNORED: ClassVar[frozenset[str]] = BUSY_IGNORED

    @property
    def holder(self) -> KeyHolder:
        return cast(KeyHolder, self.parent)

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        return character is not None and character.isprintable()

    def on_key(self, event: events.Key) -> None:
        if self.holder.hold(event) or event.key in self.IGNORED:
            event.stop()
            event.prevent_default()

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        self.holder.hold(event)
