"""WispApp: composes the screen and routes wisp's lines to the widgets, and their messages to
whoever acts.

Each line from wisp (``wisp.protocol``) goes to the widget that shows it: reply text and notes to
the transcript, the turn's state to the status bar and the input, requests to the dialog queue
(``dialog_queue``), views to the panels (``panels``), completions to ``completing``. The keys are
bound where they act (docs/tui.md, "Keys"): on the main screen (``screens/chat.py``: folds,
scrolling, the Ctrl-C ladder), a panel, a dialog, a fold and the input. What they ask of the app
comes up as messages or `app.` actions: send wisp a line or an interrupt, open a panel, quit.
The app's own keys are those of every screen: Ctrl-R and the mouse's selection copy.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

import msgspec
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical

from wisp.notify.sequences import TerminalNotices, sequence_for
from wisp.protocol import (
    Activity,
    Approval,
    Choice,
    Completions,
    ContextFill,
    Delta,
    Event,
    Exit,
    Note,
    Notify,
    OutboundLine,
    Output,
    Question,
    Status,
    Turn,
    View,
    WispHello,
    Withdrawn,
)

from . import palette
from .backend import Backend
from .clipboard import Clipboard
from .completing import Completing
from .dialog_queue import DialogQueue
from .history import History, history_path
from .panels import PanelKind, Panels, Remembered
from .screens.chat import ChatScreen
from .screens.dialog import Dialog
from .widgets.prompt import Prompt
from .widgets.prompt_suggestions import Suggestions
from .widgets.status_bar import StatusBar, TurnState
from .widgets.transcript import Transcript

if TYPE_CHECKING:
    from .screens.panel import Panel


class WispApp(App[int], inherit_bindings=False):
    """The full-screen front end of one `wisp chat --json` process."""

    CSS_PATH = "app.tcss"
    TITLE = "wisp"
    ENABLE_COMMAND_PALETTE = False
    # Not Textual's own Ctrl-Q (quit at once) and Ctrl-C (how to quit): every screen binds
    # them (``keys.STOP_KEYS``). Ctrl-R copies on every screen, under a dialog too.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "copy_reply", show=False, priority=True),
    ]

    def __init__(
        self,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        command: str | None = None,
    ) -> None:
        super().__init__()
        self.backend = Backend(self, args, env=env, cwd=cwd, command=command)
        self.dialogs = DialogQueue(self)
        self.completing = Completing(self)
        self.remembered = Remembered()
        """What the keys reach back for: the last output and the last reply."""
        self.panels = Panels(self)
        self._turn = TurnState()
        self.is_quitting = False
        self.history = History(history_path(env))
        self.clipboard_writer = Clipboard()
        self.terminal_notices = TerminalNotices(sequence_for(env))
        """The terminal's notification sequence (the backend's hello declares `notify` by it)."""
        self.is_help_asked = False
        """`/help` was sent: wisp-tui's keys follow wisp's list when it is answered."""
        self._copied: str | None = None
        """The text last copied, so that a later mouse-up over the same selection copies nothing."""

    def get_default_screen(self) -> ChatScreen:
        return ChatScreen(id="_default")

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(palette.CSS_VARIABLES)

    def compose(self) -> ComposeResult:
        # What wisp, started before Textual was imported, has said by now is composed into
        # the first frame: as a rule its hello, notes and first status (`_said_early`).
        said = _said_early(self.backend.said_already())
        for line in said.lines:
            self.remembered.note(line)
        self._status_said_early = said.status
        self._said_later = said.rest
        yield Transcript(*said.notes)
        with Vertical(id="bottom"):
            yield Suggestions(id="suggestions")
            yield Prompt(id="prompt")
            yield StatusBar(id="status")

    async def on_event(self, event: events.Event) -> None:
        # Characters, edits and pastes typed in a dialog's first moments (its grace) are held
        # for the input box, never taken as answers; the dialog still sees the key, so its
        # quiet starts again.
        if (
            isinstance(event, (events.Key, events.Paste))
            and not event.is_forwarded
            and isinstance(self.screen, Dialog)
            and not self.screen.is_taking_keys
        ):
            self.prompt.hold(event)
        await super().on_event(event)

    async def on_ready(self) -> None:
        # The first frame is on the terminal (Textual sends Ready as it writes it; a callback
        # after refresh would wait for the screen's next update, a frame later): wisp is
        # adopted, or started, now, and its hello, waiting in the pipe, is shown next. wisp-tui
        # starts without the cyclic collector; it runs from here on.
        _collect_from_now()
        # What wisp has said since the screen was composed is shown at once, before its
        # pipes are adopted.
        said_later, self._said_later = self._said_later, []
        for message in [*said_later, *self.backend.said_already()]:
            if isinstance(message, Backend.Line):
                await self.on_backend_line(message)
            else:
                await self.on_backend_text(message)
        self.backend.start_soon()

    async def on_mount(self) -> None:
        self.prompt.history = self.history
        self.prompt.input.focus()
        if self._status_said_early is not None:
            self._show_status(self._status_said_early)

    # Found once on the main screen and kept: `query_one` alone looks in the top screen (a
    # dialog's), and tests read the transcript after the app has closed.

    @cached_property
    def transcript(self) -> Transcript:
        return self.screen_stack[0].query_one(Transcript)

    @cached_property
    def prompt(self) -> Prompt:
        return self.screen_stack[0].query_one(Prompt)

    @cached_property
    def suggestions(self) -> Suggestions:
        return self.screen_stack[0].query_one(Suggestions)

    @cached_property
    def status_bar(self) -> StatusBar:
        return self.screen_stack[0].query_one(StatusBar)

    @property
    def is_panel_shown(self) -> bool:
        return self.panels.shown is not None

    @property
    def has_draft(self) -> bool:
        """Whether the input box holds a half-typed line (a relayed request waits behind it)."""
        return bool(self.prompt.text.strip())

    def set_waiting(self, count: int) -> None:
        self.status_bar.waiting = count

    # Lines from wisp.

    async def on_backend_line(self, message: Backend.Line) -> None:
        line = message.line
        self.remembered.note(line)
        match line:
            case Delta(text=text):
                await self.transcript.write_reply(text)
            case Note(text=text):
                # e.g. `no turn 9`: the context asked for has no view
                self.panels.context_asked = None
                await self.transcript.add_note(text)
            case Output(text=text):
                if text:
                    await self.transcript.add_output(text)
            case Event():
                await self.transcript.add_event(line)
            case Turn():
                await self._turn_edge(line)
            case Activity():
                self._show_activity(line)
            case ContextFill(used=used):
                self.status_bar.context_used = used  # after each request: the meter moves
            case Status():
                await self.transcript.end_reply()
                self._show_status(line)
                await self._add_keys_after_help()
            case Approval() | Question() | Choice():
                await self.transcript.end_reply()
                self.dialogs.add(line)
            case Completions():
                await self.completing.answer(line)
            case Withdrawn(id=id_):
                await self.dialogs.withdraw(id_)
            case View():
                await self.panels.show_view(line)
            case Notify():
                self._post_notice(line)
            case Exit():
                self.action_quit_cleanly()

    def _show_status(self, status: Status) -> None:
        self.status_bar.status = status
        self.status_bar.context_used = status.context_used
        self.prompt.is_sandboxed = status.sandbox
        self.prompt.set_busy(False)  # the prompt then replays the keys held meanwhile

    def _post_notice(self, notice: Notify) -> None:
        """A notice from wisp, for the terminal to post only while it is not focused (the
        person is elsewhere); written between frames through the driver, as OSC 52 is."""
        if self.app_focus or self._driver is None:
            return
        text = self.terminal_notices.text(notice.title, notice.subtitle, notice.body)
        if text is not None:
            self._driver.write(text)

    async def on_backend_text(self, message: Backend.Text) -> None:
        await self.transcript.add_note(message.text)

    async def on_backend_died(self, message: Backend.Died) -> None:
        if self.is_quitting:
            return  # the quit under way already waits for wisp and reports how it ended
        code = message.returncode
        if code == 0:
            self.action_quit_cleanly()  # wisp ended its side cleanly, so we leave too
            return
        how = f"exit code {code}" if (code or 0) >= 0 else f"signal {-(code or 0)}"
        if self.backend.could_not_start:
            self._close_input("wisp could not start · Ctrl-C quits")
            await self.transcript.add_error(f"error: {self.backend.could_not_start}; Ctrl-C quits")
        elif message.before_start:
            self._close_input("wisp could not start · Ctrl-C quits")
            # Its own words say what is wrong (a config.json that is not JSON, and its fix).
            said = "".join(f"\n  {line}" for line in message.last_words)
            await self.transcript.add_error(
                f"error: wisp could not start ({how}){':' if said else ''}{said}"
            )
            await self.transcript.add_note(
                "Fix what wisp says, then start wisp-tui again. Ctrl-C quits."
            )
        else:
            self._close_input("wisp is not running · Ctrl-C quits")
            await self.transcript.add_error(
                f"error: wisp stopped unexpectedly ({how}); Ctrl-C quits"
            )

    def _close_input(self, why: str) -> None:
        """wisp is gone: no input is offered that nothing would read; Ctrl-C quits."""
        self.prompt.close()
        self.status_bar.message = why

    async def _turn_edge(self, turn: Turn) -> None:
        if turn.phase == "start":
            self._turn = TurnState(number=turn.turn, is_running=True)
            self.prompt.set_busy(True)
        else:
            await self.transcript.end_reply()
            for line in (turn.ran or None, turn.cited or None, turn.verification or None):
                if line:
                    await self.transcript.add_note(line)
            self._turn = TurnState(
                number=turn.turn,
                seconds=turn.seconds or 0.0,
                outcome=turn.outcome or "ok",
                input_tokens=turn.input_tokens or None,
                output_tokens=turn.output_tokens or None,
            )
            self.prompt.turn_ended()
        self.status_bar.turn = self._turn

    def _show_activity(self, activity: Activity) -> None:
        if activity.doing is not None and isinstance(activity.turn_seconds, float | int):
            self.status_bar.sync_seconds(float(activity.turn_seconds))
        self.prompt.show_activity(activity)

    # Input.

    async def on_prompt_submitted(self, message: Prompt.Submitted) -> None:
        text = f"!{message.text}" if message.is_command else message.text
        await self.transcript.add_sent(message.text, is_command=message.is_command)
        self.is_help_asked = not message.is_command and message.text.lower() in ("/help", "/?")
        self.prompt.set_busy(True)
        await self.backend.message(text)

    async def _add_keys_after_help(self) -> None:
        """wisp lists its commands; the keys are wisp-tui's, so it adds them (``keys``)."""
        if self.is_help_asked:
            self.is_help_asked = False
            from .keys import keys_text

            await self.transcript.add_output(f"wisp-tui keys (F1 shows them too):\n{keys_text()}")

    async def on_prompt_completion_asked(self, message: Prompt.CompletionAsked) -> None:
        await self.completing.ask(message.text, message.cursor)

    def on_text_area_changed(self) -> None:
        """The input emptied (sent, cleared, or Down back to an empty draft): a relayed request
        held behind the typed line may open now. Any edit clears Tab's suggestions."""
        self.completing.edited()
        if not self.has_draft:
            self.dialogs.show_next()

    # Panels (``panels``).

    async def action_toggle_panel(self, kind: PanelKind) -> None:
        """Ctrl-O (`output`), Ctrl-T (`context`), F1 (`keys`), bound by the main screen and the
        panels: open that panel, or close it."""
        await self.panels.toggle(kind)

    async def on_panel_step_turn(self, message: Panel.StepTurn) -> None:
        await self.panels.step_turn(message.turn)

    # Copying.

    def action_copy_reply(self) -> None:
        """Ctrl-R: copy the last reply's Markdown source."""
        reply = self.remembered.reply
        if not reply:
            self.notify("no reply to copy yet", timeout=3)
            return
        self._copy(reply, "the last reply")

    def on_text_selected(self, event: events.TextSelected) -> None:
        """Text selected with the mouse is copied as the button comes up; no key needed."""
        text = self.screen.get_selected_text()
        if text and text != self._copied:
            self._copy(text, "the selection")

    @work(group="copy")
    async def _copy(self, text: str, what: str) -> None:
        self._copied = text  # a later mouse-up over the same selection copies nothing again
        where = await self.clipboard_writer.copy(text, self.copy_to_clipboard)
        count = len(text)
        self.notify(f"copied {what} ({count} character{'s' if count != 1 else ''}) to {where}")

    # Quitting (docs/tui.md, "Stopping and quitting").

    async def on_chat_screen_interrupt(self) -> None:
        """Ctrl-C during a turn: the first stops it, the second kills its work."""
        await self.backend.interrupt()

    def on_chat_screen_quit(self) -> None:
        self.action_quit_cleanly()

    def action_quit_cleanly(self) -> None:
        """Stop a running turn at once so that wisp saves it, then wait for wisp to exit and
        leave with its exit code: Ctrl-C with nothing left to stop or clear, wisp's `exit`."""
        if self.is_quitting:
            return
        self.is_quitting = True
        if self.is_panel_shown:
            self.pop_screen()
        self.status_bar.message = "quitting: waiting for wisp to save…"
        self.prompt.display = False
        self._quit()

    @work(exclusive=True, group="quit")
    async def _quit(self) -> None:
        for _ in range(self.prompt.interrupts_left):
            await self.backend.interrupt()  # end the turn at once so that it is saved
        code = await self.backend.quit()
        self.exit(return_code=code)

    async def on_unmount(self) -> None:
        await self.backend.kill_if_running()


def _collect_from_now() -> None:
    """The first frame is drawn: what was built to get here (Textual's modules, the screen)
    lives as long as the app, so it is set aside where the collector never walks it. Enabled
    over it instead, the collector's first pass would walk every one of those objects, some
    40 ms just as wisp's hello is read."""
    gc.freeze()
    gc.enable()


class SaidEarly(msgspec.Struct):
    """wisp's first lines, sorted for composing the first frame."""

    lines: list[OutboundLine] = []
    """The lines composed (each is remembered as the handlers would)."""
    notes: list[str] = []
    status: Status | None = None
    """The last status among them: the one in force."""
    rest: list[Backend.Line | Backend.Text] = []
    """From the first line that is not a hello, a note or a status on: for the handlers."""


def _said_early(messages: list[Backend.Line | Backend.Text]) -> SaidEarly:
    """The leading hello, notes and statuses among `messages`, and the rest."""
    said = SaidEarly()
    for index, message in enumerate(messages):
        line = message.line if isinstance(message, Backend.Line) else None
        if line is None or isinstance(line, Note):
            said.notes.append(line.text if line is not None else message.text)
        elif isinstance(line, Status):
            said.status = line
        elif not isinstance(line, WispHello):
            said.rest = messages[index:]
            return said
        if line is not None:
            said.lines.append(line)
    return said
