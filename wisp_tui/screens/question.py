"""The model's question (docs/tui.md, "Dialogs"): options as a list, or typed text; Esc declines."""

from __future__ import annotations

from typing import ClassVar

import msgspec
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static

from wisp.protocol import Question

from .dialog import Dialog


class QuestionAnswer(msgspec.Struct, frozen=True):
    """The text answered, or None when the person declined."""

    text: str | None


class QuestionScreen(Dialog[QuestionAnswer]):
    """Dismisses with the option picked, the trimmed typed text, or a decline."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "decline", "decline", show=False)]

    DEFAULT_CSS = """
    QuestionScreen #question { color: $white; text-style: bold; }
    QuestionScreen .muted { color: $mist; }
    QuestionScreen OptionList, QuestionScreen OptionList:focus {
        height: auto; max-height: 8; border: none; padding: 0;
        background: transparent; color: $white;
    }
    QuestionScreen Input, QuestionScreen Input:focus {
        border: none; height: 1; padding: 0; background: transparent; color: $white;
    }
    QuestionScreen #hint { color: $mist; }
    """

    def __init__(self, question: Question) -> None:
        super().__init__(question.id)
        self.question = question

    def compose(self) -> ComposeResult:
        question = self.question
        with Vertical(id="box") as box:
            box.border_title = "question"
            yield Static(Text(question.question), id="question")
            if question.timeout_seconds is not None:
                yield Static(f"waits {question.timeout_seconds:g} s for an answer", classes="muted")
            if question.options:
                yield OptionList(*question.options, id="options")
                hint = "↑↓ to move · Enter to answer · Esc to decline"
            else:
                yield Input(placeholder="type an answer", id="typed")
                hint = "type an answer · Enter to answer · Esc to decline"
            yield Static(hint, id="hint")

    def on_mount(self) -> None:
        # Textual runs Dialog.on_mount (the grace) after this one: not called here again.
        for widget in self.query("OptionList, Input"):
            widget.can_focus = False  # nothing takes keys in the grace

    def focus_target(self) -> Widget | None:
        for widget in self.query("OptionList, Input"):
            widget.can_focus = True
        found = self.query("OptionList, Input")
        return found.first() if found else None

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        if self.is_taking_keys:
            self.dismiss(QuestionAnswer(str(event.option.prompt)))

    @on(Input.Submitted)
    def _typed(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if self.is_taking_keys and text:  # an empty answer is never sent by accident
            self.dismiss(QuestionAnswer(text))

    def action_decline(self) -> None:
        if self.is_taking_keys:
            self.dismiss(QuestionAnswer(None))

    def action_cancel(self) -> None:
        self.dismiss(QuestionAnswer(None))
