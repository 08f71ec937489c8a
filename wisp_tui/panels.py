"""The panels over the main screen (docs/tui.md, "Panels"): the last output (Ctrl-O), the keys
(F1), the context the next request carries (Ctrl-T) and wisp's `view` lines (`/inspect …`); and
what the keys reach back for, the last output and the last reply (Ctrl-R copies it).

The keys are bound on the screens where they apply, the main screen and a panel (under a dialog
they are the dialog's), to the app's `toggle_panel`, which hands them here: pushing a screen is
the app's. One panel at a time: the key of the panel shown closes it, another key swaps it. The
context panel is wisp's answer: Ctrl-T, or Left and Right in a context panel (`Panel.StepTurn`),
send `/inspect context …`, one at a time, and the `view` answering opens the panel.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Literal, Protocol

from wisp.protocol import Activity, Completions, Delta, Event, EventOutput, View, Withdrawn

from .screens.dialog import Dialog

if TYPE_CHECKING:
    from textual.screen import Screen

    from .backend import Backend
    from .screens.panel import Panel
    from .widgets.prompt import Prompt
    from .widgets.transcript import Transcript

PanelKind = Literal["output", "keys", "context"]
"""The panels a key opens (``keys.PANEL_KEYS``)."""
ContextAsked = Literal["key", "step"]
"""Who asked for the context view wisp has yet to answer: Ctrl-T, or Left/Right in the panel."""


class Remembered:
    """What the keys reach back for: the last tool output (Ctrl-O) and the last reply (Ctrl-R),
    noted from every line wisp sends, in order."""

    def __init__(self) -> None:
        self.last_output: EventOutput | None = None
        self._reply_parts: list[str] = []
        self._is_replying = False

    @property
    def reply(self) -> str:
        """The last reply's Markdown source, as wisp sent it."""
        return "".join(self._reply_parts).strip()

    def note(self, line: object) -> None:
        """Take what a line from wisp adds: a reply's fragment, or a tool's output."""
        match line:
            case Delta(text=text):
                if not self._is_replying:
                    self._reply_parts = []
                    self._is_replying = True
                self._reply_parts.append(text)
            case Event(output=EventOutput() as output):
                self.last_output = output
                self._is_replying = False
            case Activity() | Completions() | Withdrawn() | Event(text=None):
                pass  # nothing shows between two fragments, so the reply goes on
            case _:
                self._is_replying = False


class PanelsApp(Protocol):
    """What the panels use of the app: its screens, wisp, the input, the transcript, what wisp
    said last, and whether it is quitting."""

    backend: Backend
    remembered: Remembered

    @property
    def screen(self) -> Screen[object]: ...

    @property
    def prompt(self) -> Prompt: ...

    @property
    def transcript(self) -> Transcript: ...

    @property
    def is_quitting(self) -> bool: ...

    def push_screen(self, screen: Any) -> Awaitable[Any]: ...

    def pop_screen(self) -> Awaitable[Any]: ...


class Panels:
    """Opens and closes the panels; keeps the one context request wisp has yet to answer."""

    def __init__(self, app: PanelsApp) -> None:
        self._app = app
        self.context_asked: ContextAsked | None = None
        """An `/inspect context` sent by Ctrl-T or Left/Right and not answered yet: one at a
        time. A `view` or a `note` (a turn wisp does not have) answers it."""

    @property
    def shown(self) -> Panel | None:
        """The panel on top, if one is."""
        # Imported here: the panel is not needed to start, and start-up is measured.
        from .screens.panel import Panel

        screen = self._app.screen
        return screen if isinstance(screen, Panel) else None

    async def toggle(self, kind: PanelKind) -> None:
        """Ctrl-O (`output`), F1 (`keys`), Ctrl-T (`context`): open that panel, or close it."""
        if self._app.is_quitting:
            return
        if kind == "context":
            await self._toggle_context()
            return
        shown = self.shown
        if shown is not None:
            await self._app.pop_screen()
            if shown.kind == kind:
                return  # its own key closes it; in another panel, it switches to its own
        from .screens.panel import Panel, output_text

        if kind == "keys":
            from .keys import keys_text

            await self._app.push_screen(Panel("keys", keys_text(), kind="keys"))
            return
        last_output = self._app.remembered.last_output
        if last_output is None:
            await self._app.transcript.add_note("no tool output to show yet")
            return
        await self._app.push_screen(Panel("output", output_text(last_output)))

    async def _toggle_context(self) -> None:
        """Between turns, ask wisp for the context the next request carries (not echoed in the
        transcript); its `view` opens the panel. In the context panel: close it."""
        shown = self.shown
        if shown is not None and shown.is_context:
            await self._app.pop_screen()
            return
        if self._app.prompt.is_busy or self.context_asked is not None or self._app.backend.is_gone:
            return  # wisp answers between turns, one request at a time
        await self._ask_context(None, "key")

    async def step_turn(self, turn: int | None) -> None:
        """Left or Right in a context panel; ignored while an earlier one is unanswered."""
        if self.context_asked is None and not self._app.is_quitting:
            await self._ask_context(turn, "step")

    async def _ask_context(self, turn: int | None, asked: ContextAsked) -> None:
        self.context_asked = asked
        await self._app.backend.message(f"/inspect context {'next' if turn is None else turn}")

    async def show_view(self, view: View) -> None:
        """A `view` from `/inspect …` opens in a panel, at the top, unless a dialog is shown.
        The answer to a Left or Right is dropped when its panel was closed meanwhile."""
        asked, self.context_asked = self.context_asked, None
        if isinstance(self._app.screen, Dialog) or self._app.is_quitting:
            return
        shown = self.shown
        if asked == "step" and (shown is None or not shown.is_context):
            return
        if shown is not None:
            await self._app.pop_screen()
        from .screens.panel import Panel, view_title

        panel = Panel(view_title(view), view.text, kind=view.kind, turn=view.turn, turns=view.turns)
        await self._app.push_screen(panel)
