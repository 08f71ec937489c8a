"""WispApp: composes the screen and routes wisp's lines to the widgets (§2, §4–§10, §12)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical

from wisp.protocol import (
    Activity,
    Answer,
    Approval,
    Choice,
    Choose,
    Complete,
    Completions,
    Delta,
    Event,
    EventOutput,
    Exit,
    Note,
    Output,
    Question,
    Status,
    Turn,
    View,
    Withdrawn,
)

from . import palette
from .backend import Backend
from .clipboard import Clipboard
from .history import History, history_path
from .screens.dialog import Dialog
from .widgets.prompt import Prompt
from .widgets.status_bar import StatusBar, TurnState
from .widgets.tool_line import ToolLine
from .widgets.transcript import Transcript

if TYPE_CHECKING:
    from .screens.model_picker import PickerAnswer
    from .screens.question import QuestionAnswer

Request = Approval | Question | Choice


class WispApp(App[int]):
    """The full-screen front end of one `wisp chat --json` process."""

    CSS_PATH = "app.tcss"
    TITLE = "wisp"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the input's own Ctrl-D (delete right) and Textual's quit never see them (§14).
        Binding("ctrl+c,ctrl+d", "stop_or_quit", "stop or quit", priority=True, show=False),
        Binding("ctrl+q", "stop_or_quit", show=False, priority=True),
        # Keys no input, terminal or multiplexer takes (TextArea has Ctrl-Y for redo).
        Binding("ctrl+o", "output_panel", "last output", show=False, priority=True),
        Binding("ctrl+g", "toggle_all_folds", "all folds", show=False, priority=True),
        Binding("ctrl+r", "copy_reply", "copy the reply", show=False, priority=True),
        Binding("shift+tab", "step_fold(-1)", show=False, priority=True),
        Binding("escape", "focus_input", show=False),
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
        self._requests: list[Request] = []
        self._shown: Dialog[Any] | None = None
        self._activity: Activity | None = None
        self._interrupts = 0
        self._turn = TurnState()
        self.is_quitting = False
        self.history = History(history_path(env))
        self._completions = 0
        self._completing: Complete | None = None
        self._last_output: EventOutput | None = None
        self._reply_parts: list[str] = []
        self._is_replying = False
        self.clipboard_writer = Clipboard()
        self._copied: str | None = None

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(palette.CSS_VARIABLES)

    def compose(self) -> ComposeResult:
        yield Transcript()
        with Vertical(id="bottom"):
            yield Prompt(id="prompt")
            yield StatusBar(id="status")

    async def on_event(self, event: events.Event) -> None:
        # §14: characters, edits and pastes typed in a dialog's grace are held for the input
        # box, never answers; the dialog still sees the key, so its quiet starts again.
        if (
            isinstance(event, (events.Key, events.Paste))
            and not event.is_forwarded
            and isinstance(self.screen, Dialog)
            and not self.screen.is_taking_keys
        ):
            self.prompt.hold(event)
        await super().on_event(event)

    def on_load(self) -> None:
        # wisp starts right after the first frame: the screen is there to type into at once,
        # and wisp takes far longer to start (about 100 ms) than the frame does to draw.
        self.call_after_refresh(self.backend.start_soon)

    async def on_mount(self) -> None:
        self.prompt.history = self.history
        self.prompt.input.focus()

    # Found once on the main screen and kept: `query_one` alone looks in the top screen (a
    # dialog's), and tests read the transcript after the app has closed.

    @cached_property
    def transcript(self) -> Transcript:
        return self.screen_stack[0].query_one(Transcript)

    @cached_property
    def prompt(self) -> Prompt:
        return self.screen_stack[0].query_one(Prompt)

    @cached_property
    def status_bar(self) -> StatusBar:
        return self.screen_stack[0].query_one(StatusBar)

    @property
    def _is_over_the_main_screen(self) -> bool:
        """A dialog or a panel is shown."""
        return isinstance(self.screen, Dialog) or self._is_panel_shown

    @property
    def _is_panel_shown(self) -> bool:
        # Imported here: the panel is not needed to start, and start-up is measured.
        from .screens.panel import Panel

        return isinstance(self.screen, Panel)

    # Lines from wisp.

    async def on_backend_line(self, message: Backend.Line) -> None:
        line = message.line
        self._remember(line)
        match line:
            case Delta(text=text):
                await self.transcript.write_reply(text)
            case Note(text=text):
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
            case Status():
                await self.transcript.end_reply()
                self.status_bar.status = line
                self.prompt.is_sandboxed = line.sandbox
                self._set_busy(False)  # the prompt then replays the keys held meanwhile (§9.4)
            case Approval() | Question() | Choice():
                await self.transcript.end_reply()
                self._requests.append(line)
                self._show_next_request()
            case Completions():
                await self._complete(line)
            case Withdrawn(id=id_):
                await self._withdraw(id_)
            case View():
                await self._show_view(line)
            case Exit():
                self.action_quit_cleanly()

    def _remember(self, line: object) -> None:
        """Keep the last output (Ctrl-O) and the last reply's Markdown source (Ctrl-R)."""
        match line:
            case Delta(text=text):
                if not self._is_replying:
                    self._reply_parts = []
                    self._is_replying = True
                self._reply_parts.append(text)
            case Event(output=EventOutput() as output):
                self._last_output = output
                self._is_replying = False
            case Activity() | Completions() | Withdrawn() | Event(text=None):
                pass  # nothing shows between two fragments, so the reply goes on
            case _:
                self._is_replying = False

    async def on_backend_text(self, message: Backend.Text) -> None:
        await self.transcript.add_note(message.text)

    async def on_backend_died(self, message: Backend.Died) -> None:
        if self.is_quitting:
            return  # the quit under way already waits for wisp and reports how it ended
        code = message.returncode
        if code == 0:
            self.action_quit_cleanly()  # §12: wisp ended its side cleanly, so we leave too
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
        self._activity = None  # nothing is left to stop: the next Ctrl-C quits
        self._set_busy(False)
        self.prompt.display = False
        self.status_bar.message = why

    async def _turn_edge(self, turn: Turn) -> None:
        if turn.phase == "start":
            self._turn = TurnState(number=turn.turn, is_running=True)
            self._set_busy(True)
        else:
            await self.transcript.end_reply()
            for line in (turn.ran or None, turn.cited or None):
                if line:
                    await self.transcript.add_note(line)
            self._turn = TurnState(
                number=turn.turn,
                seconds=turn.seconds or 0.0,
                outcome=turn.outcome or "ok",
                input_tokens=turn.input_tokens or None,
                output_tokens=turn.output_tokens or None,
            )
            self._activity = None
            self._interrupts = 0
        self.status_bar.turn = self._turn

    def _show_activity(self, activity: Activity) -> None:
        if activity.doing is not None and isinstance(activity.turn_seconds, float | int):
            self.status_bar.sync_seconds(float(activity.turn_seconds))
        self._activity = activity if activity.doing is not None else None
        if activity.doing is None:
            return
        if activity.stopping:
            self.prompt.busy_text = "… stopping the turn · Ctrl-C again kills it"
        else:
            stop = " · Ctrl-C stops it" if activity.stoppable else ""
            self.prompt.busy_text = f"… working: {activity.doing}{stop}"

    def _set_busy(self, is_busy: bool) -> None:
        self.prompt.is_busy = is_busy
        if is_busy:
            self.prompt.busy_text = "… working…"

    # Input.

    async def on_prompt_submitted(self, message: Prompt.Submitted) -> None:
        text = f"!{message.text}" if message.is_command else message.text
        await self.transcript.add_sent(message.text, is_command=message.is_command)
        self._set_busy(True)
        await self.backend.message(text)

    # Completion (§9.6).

    async def on_prompt_completion_asked(self, message: Prompt.CompletionAsked) -> None:
        if isinstance(self.screen, Dialog):
            return
        self._completions += 1
        self._completing = Complete(
            id=f"k{self._completions}", text=message.text, cursor=message.cursor
        )
        await self.backend.send(self._completing)

    async def _complete(self, completions: Completions) -> None:
        asked = self._completing
        if asked is None or completions.id != asked.id:
            return  # a stale answer
        self._completing = None
        cursor = asked.cursor if isinstance(asked.cursor, int) else len(asked.text)
        if self.prompt.text != asked.text or self.prompt.cursor_index != cursor:
            return  # edited since: the request no longer applies
        self.prompt.complete(completions.from_, cursor, completions.candidates)
        if len(completions.candidates) > 1:
            await self.transcript.add_note("  " + "  ".join(completions.candidates))

    # Dialogs: one at a time, first come first shown (§10.1).

    def _show_next_request(self) -> None:
        if self._shown is not None or not self._requests or self.is_quitting:
            return
        if self._is_panel_shown:
            self.pop_screen()  # a dialog arriving closes the panel (§11)
        # The dialogs are imported when first needed: start-up is measured (docs/performance.md).
        from .screens.approval import ApprovalScreen
        from .screens.choice import ChoiceScreen
        from .screens.model_picker import ModelPickerScreen
        from .screens.question import QuestionScreen

        request = self._requests[0]
        match request:
            case Approval():
                screen: Dialog[Any] = ApprovalScreen(request)
                self.push_screen(screen, lambda decision: self._approved(request, decision))
            case Question():
                screen = QuestionScreen(request)
                self.push_screen(screen, lambda answer: self._answered(request, answer))
            case Choice(toggles=True):
                screen = ModelPickerScreen(request)
                self.push_screen(screen, lambda values: self._toggled(request, values))
            case Choice():
                screen = ChoiceScreen(request)
                self.push_screen(screen, lambda value: self._chosen(request, value))
        self._shown = screen

    async def _approved(self, approval: Approval, decision: str | None) -> None:
        from .screens.approval import OUTCOMES

        decision = decision or "no"
        await self._request_closed(approval)
        await self.transcript.add_note(OUTCOMES[decision].format(approval.command))
        await self.backend.send(Answer(id=approval.id, decision=decision))

    async def _answered(self, question: Question, answer: QuestionAnswer | None) -> None:
        await self._request_closed(question)
        if answer is None or answer.text is None:
            await self.backend.send(Answer(id=question.id, declined=True))
        else:
            await self.backend.send(Answer(id=question.id, text=answer.text))

    async def _chosen(self, choice: Choice, value: str | None) -> None:
        await self._request_closed(choice)
        await self.backend.send(Choose(id=choice.id, value=value))

    async def _toggled(self, choice: Choice, answer: PickerAnswer | None) -> None:
        await self._request_closed(choice)
        if answer is None:
            await self.backend.send(Choose(id=choice.id, value=None))
        else:
            await self.backend.send(Choose(id=choice.id, value=answer.use, values=answer.values))

    async def _request_closed(self, request: Request) -> None:
        self._shown = None
        if request in self._requests:
            self._requests.remove(request)
        self.call_later(self._show_next_request)

    async def _withdraw(self, request_id: str) -> None:
        request = next((r for r in self._requests if r.id == request_id), None)
        if request is None:
            return  # unknown or already answered (§10.8)
        self._requests.remove(request)
        if self._shown is not None and self._shown.request_id == request_id:
            self._shown = None
            self.pop_screen()  # no answer goes back: wisp has stopped waiting
            what = (
                request.question
                if isinstance(request, Question)
                else (request.title if isinstance(request, Choice) else request.command)
            )
            await self.transcript.add_note(f"⚠ no longer waiting: {what}")
            self._show_next_request()

    # Folds, panels and copying (§6, §11).

    async def action_output_panel(self) -> None:
        """Ctrl-O: open the last output in a panel, or close it; under a dialog, nothing."""
        if isinstance(self.screen, Dialog) or self.is_quitting:
            return
        if self._is_panel_shown:
            was_output = self.screen.kind == "output"
            await self.pop_screen()
            if was_output:
                return  # in another panel Ctrl-O switches to the output
        if self._last_output is None:
            await self.transcript.add_note("no tool output to show yet")
            return
        from .screens.panel import Panel, output_text

        await self.push_screen(Panel("output", output_text(self._last_output)))

    async def _show_view(self, view: View) -> None:
        """A `view` from `/inspect …` opens in a panel, at the top, unless a dialog is shown."""
        if isinstance(self.screen, Dialog) or self.is_quitting:
            return
        if self._is_panel_shown:
            await self.pop_screen()
        from .screens.panel import Panel, view_title

        await self.push_screen(Panel(view_title(view), view.text, kind=view.kind))

    async def action_toggle_all_folds(self) -> None:
        """Ctrl-G: open every fold when any is shut, else shut them all."""
        if self._is_over_the_main_screen:
            return
        folds = self.transcript.folds()
        await self.transcript.set_all_folds(any(f.is_foldable and not f.is_open for f in folds))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Under a dialog or a panel, Shift-Tab is theirs: the folds are out of reach.
        return not (action == "step_fold" and self._is_over_the_main_screen)

    def action_step_fold(self, step: int) -> None:
        """Shift-Tab: from the input to the newest fold, then older; Tab: newer, then the input."""
        folds = [fold for fold in self.transcript.query(ToolLine) if fold.is_foldable]
        focused = self.focused
        if isinstance(focused, ToolLine) and focused in folds:
            index = folds.index(focused) + step
        else:
            index = len(folds) - 1 if step < 0 else len(folds)
        if 0 <= index < len(folds):
            folds[index].focus()
        elif index >= len(folds):
            self.action_focus_input()

    def action_focus_input(self) -> None:
        """Esc on a fold gives the keys back to the input."""
        if not self._is_over_the_main_screen:
            self.prompt.input.focus()

    def action_copy_reply(self) -> None:
        """Ctrl-R: copy the last reply's Markdown source."""
        reply = "".join(self._reply_parts).strip()
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

    # Ctrl-C / Ctrl-D (§12).

    async def action_stop_or_quit(self) -> None:
        if self._is_panel_shown:
            self.screen.action_close()  # §12 step 1: a panel closes before anything else
            return
        if isinstance(self.screen, Dialog):
            self.screen.cancel()
            return
        activity = self._activity
        is_running = activity is not None and (activity.stoppable or activity.stopping)
        if is_running and self._interrupts < 2:
            # D8: the first press stops the turn, the second kills its work, a third quits.
            self._interrupts += 1
            self.prompt.busy_text = (
                "… stopping the turn · Ctrl-C again kills it"
                if self._interrupts == 1
                else "… stopping the turn · Ctrl-C again quits"
            )
            await self.backend.interrupt()
            return
        self.action_quit_cleanly()

    def action_quit_cleanly(self) -> None:
        if self.is_quitting:
            return
        self.is_quitting = True
        if self._is_panel_shown:
            self.pop_screen()
        self.status_bar.message = "quitting: waiting for wisp to save…"
        self.prompt.display = False
        self._quit()

    async def on_unmount(self) -> None:
        await self.backend.kill_if_running()

    @work(exclusive=True, group="quit")
    async def _quit(self) -> None:
        activity = self._activity
        if activity is not None and (activity.stoppable or activity.stopping):
            for _ in range(2 - self._interrupts):
                await self.backend.interrupt()  # §12.2: end the turn at once so it is saved
        code = await self.backend.quit()
        self.exit(return_code=code)
