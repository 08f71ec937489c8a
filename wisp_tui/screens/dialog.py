"""What every dialog shares (docs/tui.md, "Dialogs"): docked above the status line; 500 ms of
quiet first."""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from textual.binding import Binding, BindingType
from textual.events import Key
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widget import Widget

from ..keys import STOP_KEYS

ResultType = TypeVar("ResultType")

GRACE_SECONDS = 0.5
"""A dialog takes keys only once the keyboard has been quiet this long since it appeared, so a key
typed for something else is never an answer."""


class Dialog(ModalScreen[ResultType], Generic[ResultType]):
    """A bottom-aligned dialog that ignores keys until the keyboard has been quiet.

    During the grace nothing inside is focused, so every key reaches `on_key` here; each one
    restarts the timer and is dropped. When the timer fires, `focus_target` takes the focus.
    Ctrl-C and Ctrl-D are never delayed: bound here with priority, they cancel at once.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: before the grace's `on_key`, and before an input's own Ctrl-C and Ctrl-D.
        Binding(STOP_KEYS, "cancel", show=False, priority=True),
    ]

    DEFAULT_CSS = """
    Dialog {
        align: center bottom;
        background: transparent;
    }
    Dialog > #box {
        width: 100%;
        height: auto;
        margin: 0 0 2 0;
        border: round $wisp;
        border-title-color: $wisp;
        padding: 0 1;
        background: $background;
    }
    """

    grace_seconds: ClassVar[float] = GRACE_SECONDS

    def __init__(self, request_id: str) -> None:
        super().__init__()
        self.request_id = request_id
        self.is_taking_keys = False
        self._quiet: Timer | None = None

    def on_mount(self) -> None:
        self.set_focus(None)
        self._quiet = self.set_timer(self.grace_seconds, self._end_grace)

    def _end_grace(self) -> None:
        self.is_taking_keys = True
        if (target := self.focus_target()) is not None:
            target.focus()

    def focus_target(self) -> Widget | None:
        """The widget that takes keys after the grace; None: the screen's own `on_key`."""
        return None

    def on_key(self, event: Key) -> None:
        if self.is_taking_keys:
            self.take_key(event)
            return
        # A key in the grace is never an answer, and the quiet starts again.
        event.stop()
        event.prevent_default()
        if self._quiet is not None:
            self._quiet.reset()

    def take_key(self, event: Key) -> None:
        """A key after the grace that reached the screen itself."""

    def action_cancel(self) -> None:
        """Ctrl-C / Ctrl-D: refuse, decline or leave unanswered, at once. Each dialog says
        which by overriding this; the base leaves it unanswered."""
        self.dismiss(None)
