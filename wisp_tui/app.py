"""WispApp: composes the screen and routes wisp's lines to the widgets (§2, §4–§10, §12)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from textual import work
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
    Exit,
    Note,
    Output,
    Question,
    Status,
    Turn,
    Withdrawn,
)

from . import palette
from .backend import Backend
from .history import History, history_path
from .screens.approval import OUTCOMES, ApprovalScreen
from .screens.choice import ChoiceScreen
from .screens.dialog import Dialog
from .screens.model_picker import ModelPickerScreen
from .screens.question import QuestionAnswer, QuestionScreen
from .widgets.prompt import Prompt
from .widgets.status_bar import StatusBar, TurnState
from .widgets.transcript import Transcript

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

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(palette.CSS_VARIABLES)

    def compose(self) -> ComposeResult:
        yield Transcript()
        with Vertical(id="bottom"):
            yield Prompt(id="prompt")
            yield StatusBar(id="status")

    async def on_mount(self) -> None:
        self.prompt.history = self.history
        self.prompt.input.focus()
        await self.backend.start()

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def prompt(self) -> Prompt:
        return self.query_one(Prompt)

    @property
    def status_bar(self) -> StatusBar:
        return self.query_one(StatusBar)

    # Lines from wisp.

    async def on_backend_line(self, message: Backend.Line) -> None:
        line = message.line
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
                self._set_busy(False)
            case Approval() | Question() | Choice():
                await self.transcript.end_reply()
                self._requests.append(line)
                self._show_next_request()
            case Completions():
                await self._complete(line)
            case Withdrawn(id=id_):
                await self._withdraw(id_)
            case Exit():
                self.action_quit_cleanly()

    async def on_backend_text(self, message: Backend.Text) -> None:
        await self.transcript.add_note(message.text)

    async def on_backend_died(self, message: Backend.Died) -> None:
        code = message.returncode
        how = f"exit code {code}" if code is not None and code >= 0 else f"signal {-(code or 0)}"
        await self.transcript.add_error(f"error: wisp stopped unexpectedly ({how}); Ctrl-C quits")
        self._set_busy(False)
        self.status_bar.message = "wisp is not running"

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
        if self.prompt.input.value != asked.text or self.prompt.input.cursor_position != cursor:
            return  # edited since: the request no longer applies
        self.prompt.complete(completions.from_, cursor, completions.candidates)
        if len(completions.candidates) > 1:
            await self.transcript.add_note("  " + "  ".join(completions.candidates))

    # Dialogs: one at a time, first come first shown (§10.1).

    def _show_next_request(self) -> None:
        if self._shown is not None or not self._requests or self.is_quitting:
            return
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

    async def _toggled(self, choice: Choice, values: list[str] | None) -> None:
        await self._request_closed(choice)
        if values is None:
            await self.backend.send(Choose(id=choice.id, value=None))
        else:
            await self.backend.send(Choose(id=choice.id, value=None, values=values))

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

    # Ctrl-C / Ctrl-D (§12).

    async def action_stop_or_quit(self) -> None:
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
        self.status_bar.message = "quitting: waiting for wisp to save…"
        self.prompt.display = False
        self._quit()

    def on_unmount(self) -> None:
        self.backend.kill_if_running()

    @work(exclusive=True, group="quit")
    async def _quit(self) -> None:
        if self._activity is not None and self._activity.stoppable:
            for _ in range(2 - self._interrupts):
                await self.backend.interrupt()  # §12.2: end the turn at once so it is saved
        code = await self.backend.quit()
        self.exit(return_code=code)
