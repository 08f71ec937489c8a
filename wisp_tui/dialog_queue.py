"""wisp's requests that wait for the person: approvals, questions and choices, each in a dialog.

One dialog at a time, first come first shown; the answer goes back to wisp and the next request
is shown. A request wisp withdraws (it stopped waiting) is dropped, and its dialog closed with a
note, with no answer sent. A dialog arriving over a panel closes the panel. A command a `wisp
mcp` server waits on does not take over a half-typed line: it waits, said once in a note and
counted in the status line, until the input is empty.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from wisp.protocol import Answer, Approval, Choice, Choose, Question

if TYPE_CHECKING:
    from .backend import Backend
    from .screens.dialog import Dialog
    from .screens.model_picker import PickerAnswer
    from .screens.question import QuestionAnswer
    from .widgets.transcript import Transcript

Request = Approval | Question | Choice


def is_relayed(request: Request) -> bool:
    """A command (or a fact to keep) a `wisp mcp` server waits on, relayed by wisp (`source:
    "mcp"`)."""
    return isinstance(request, Approval) and request.source == "mcp"


class DialogApp(Protocol):
    """What the queue uses of the app: its screens, wisp, the transcript, and whether it is
    quitting or showing a panel."""

    backend: Backend

    @property
    def transcript(self) -> Transcript: ...

    @property
    def is_quitting(self) -> bool: ...

    @property
    def is_panel_shown(self) -> bool: ...

    @property
    def has_draft(self) -> bool:
        """Whether the input box holds a half-typed line."""
        ...

    def set_waiting(self, count: int) -> None:
        """Show how many relayed requests wait behind the typed line."""
        ...

    def push_screen(self, screen: Any, callback: Callable[[Any], Any] | None = None) -> Any: ...

    def pop_screen(self) -> Any: ...

    def call_later(self, callback: Callable[..., Any], *args: Any) -> bool: ...


class DialogQueue:
    """The requests not yet answered, the first of them shown."""

    def __init__(self, app: DialogApp) -> None:
        self._app = app
        self._waiting: list[Request] = []
        self._shown: Dialog[Any] | None = None
        self._told: set[str] = set()
        """The relayed requests whose waiting note was given."""

    def add(self, request: Request) -> None:
        self._waiting.append(request)
        self.show_next()

    def show_next(self) -> None:
        app = self._app
        if self._shown is not None or not self._waiting or app.is_quitting:
            self._count_held()
            return
        if is_relayed(self._waiting[0]) and app.has_draft:
            self._hold()
            return
        self._count_held()
        if app.is_panel_shown:
            app.pop_screen()  # a dialog arriving closes the panel
        # The dialogs are imported when first needed: start-up is measured (docs/performance.md).
        from .screens.approval import ApprovalScreen
        from .screens.choice import ChoiceScreen
        from .screens.fact import FactScreen, is_fact
        from .screens.guidance import GuidanceScreen, is_guidance
        from .screens.model_picker import ModelPickerScreen
        from .screens.question import QuestionScreen

        request = self._waiting[0]
        match request:
            case Approval():
                dialog = FactScreen if is_fact(request) else ApprovalScreen
                screen: Dialog[Any] = (GuidanceScreen if is_guidance(request) else dialog)(request)
                app.push_screen(screen, lambda decision: self._approved(request, decision))
            case Question():
                screen = QuestionScreen(request)
                app.push_screen(screen, lambda answer: self._answered(request, answer))
            case Choice(toggles=True):
                screen = ModelPickerScreen(request)
                app.push_screen(screen, lambda values: self._toggled(request, values))
            case Choice():
                screen = ChoiceScreen(request)
                app.push_screen(screen, lambda value: self._chosen(request, value))
        self._shown = screen

    def _hold(self) -> None:
        """Relayed requests wait behind the typed line: each said once, all counted."""
        for request in self._waiting:
            if is_relayed(request) and request.id not in self._told:
                self._told.add(request.id)
                note = (
                    f"⚠ waiting in wisp mcp: {request.command} · its dialog opens when the "
                    "input is empty"
                )
                self._app.call_later(self._app.transcript.add_note, note)
        self._count_held()

    def _count_held(self) -> None:
        held = 0
        if self._shown is None and self._waiting and self._app.has_draft:
            held = sum(1 for request in self._waiting if is_relayed(request))
        self._app.set_waiting(held)

    async def withdraw(self, request_id: str) -> None:
        request = next((r for r in self._waiting if r.id == request_id), None)
        if request is None:
            return  # unknown or already answered: nothing to close
        self._waiting.remove(request)
        self._count_held()
        if self._shown is not None and self._shown.request_id == request_id:
            self._shown = None
            self._app.pop_screen()  # no answer goes back: wisp has stopped waiting
            what = (
                request.question
                if isinstance(request, Question)
                else (request.title if isinstance(request, Choice) else request.command)
            )
            await self._app.transcript.add_note(f"⚠ no longer waiting: {what}")
            self.show_next()

    async def _approved(self, approval: Approval, decision: str | None) -> None:
        from .screens import approval as command
        from .screens import fact, guidance

        outcomes = command.OUTCOMES
        if fact.is_fact(approval):
            outcomes = fact.OUTCOMES
        elif guidance.is_guidance(approval):
            outcomes = guidance.OUTCOMES
        decision = decision or ("drop" if fact.is_fact(approval) else "no")
        await self._closed(approval)
        await self._app.transcript.add_note(outcomes[decision].format(approval.command))
        await self._app.backend.send(Answer(id=approval.id, decision=decision))

    async def _answered(self, question: Question, answer: QuestionAnswer | None) -> None:
        await self._closed(question)
        if answer is None or answer.text is None:
            await self._app.backend.send(Answer(id=question.id, declined=True))
        else:
            await self._app.backend.send(Answer(id=question.id, text=answer.text))

    async def _chosen(self, choice: Choice, value: str | None) -> None:
        await self._closed(choice)
        await self._app.backend.send(Choose(id=choice.id, value=value))

    async def _toggled(self, choice: Choice, answer: PickerAnswer | None) -> None:
        await self._closed(choice)
        if answer is None:
            await self._app.backend.send(Choose(id=choice.id, value=None))
        else:
            await self._app.backend.send(
                Choose(id=choice.id, value=answer.use, values=answer.values)
            )

    async def _closed(self, request: Request) -> None:
        self._shown = None
        if request in self._waiting:
            self._waiting.remove(request)
        self._app.call_later(self.show_next)
