"""A slash command's choice (docs/tui.md, "Dialogs"): a numbered pick, or typed text where it takes
it."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Key
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from wisp.protocol import Choice

from .dialog import Dialog


class Options(OptionList):
    """An OptionList whose Up and Down stop at the ends instead of wrapping."""

    def action_cursor_down(self) -> None:
        if self.highlighted is None or self.highlighted < self.option_count - 1:
            super().action_cursor_down()

    def action_cursor_up(self) -> None:
        if self.highlighted is None or self.highlighted > 0:
            super().action_cursor_up()


class ChoiceScreen(Dialog[str | None]):
    """Dismisses with the value picked or typed; None leaves the setting as it was."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "leave", "leave it", show=False)]

    DEFAULT_CSS = """
    ChoiceScreen #title { color: $white; }
    ChoiceScreen OptionList, ChoiceScreen OptionList:focus {
        height: auto; max-height: 8; border: none; padding: 0;
        background: transparent; color: $white;
    }
    ChoiceScreen Input, ChoiceScreen Input:focus {
        border: none; height: 1; padding: 0; background: transparent; color: $white;
    }
    ChoiceScreen #hint { color: $mist; }
    ChoiceScreen OptionList > .option-list--option-highlighted,
    ChoiceScreen OptionList:focus > .option-list--option-highlighted {
        background: $sent; color: $white; text-style: bold;
    }
    """

    def __init__(self, choice: Choice) -> None:
        super().__init__(choice.id)
        self.choice = choice

    def compose(self) -> ComposeResult:
        choice = self.choice
        with Vertical(id="box") as box:
            box.border_title = "choose"
            yield Static(Text(choice.title), id="title")
            if choice.options:
                yield Options(*self._options(), id="options")
            if choice.accepts_text:
                yield Input(placeholder="type a value", id="typed")
            yield Static(self._hint(), id="hint")

    def _options(self) -> list[Option]:
        options = []
        for number, option in enumerate(self.choice.options, start=1):
            label = Text(f"{number}. {option.label}")
            if option.value == self.choice.current:
                label.append(" *", style="bold")
            if option.detail:
                label.append(f"  {option.detail}", style="dim")
            options.append(Option(label, id=option.value))
        return options

    def _hint(self) -> str:
        if self.choice.options and self.choice.accepts_text:
            return "↑↓ to move · or type a value · Enter to choose · Esc to leave it"
        if self.choice.options:
            return "↑↓ or a number to move · Enter to choose · Esc to leave it"
        return "type a value · Enter to set · Esc to leave it"

    def on_mount(self) -> None:
        # Textual runs Dialog.on_mount (the grace) after this one: not called here again.
        for widget in self.query("OptionList, Input"):
            widget.can_focus = False
        if self.choice.options:
            values = [option.value for option in self.choice.options]
            current = self.choice.current
            highlighted = values.index(current) if current in values else 0
            self.query_one(OptionList).highlighted = highlighted

    def focus_target(self) -> Widget | None:
        for widget in self.query("OptionList, Input"):
            widget.can_focus = True
        found = self.query("Input, OptionList")
        return found.first() if found else None

    def on_key(self, event: Key) -> None:
        super().on_key(event)
        if self.is_taking_keys and (event.character or "").isdigit() and self.choice.options:
            number = int(event.character)
            if 1 <= number <= len(self.choice.options) and not self.choice.accepts_text:
                event.stop()
                self.query_one(OptionList).highlighted = number - 1

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        if self.is_taking_keys:
            self.dismiss(event.option.id)

    @on(Input.Submitted)
    def _typed(self, event: Input.Submitted) -> None:
        if not self.is_taking_keys:
            return
        text = event.value.strip()
        if text:
            self.dismiss(text)
        elif self.choice.options:
            highlighted = self.query_one(OptionList).highlighted
            self.dismiss(None if highlighted is None else self.choice.options[highlighted].value)
        else:
            self.dismiss(None)

    def action_leave(self) -> None:
        if self.is_taking_keys:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
