"""Tab completion's exchange with wisp: a numbered ``complete`` request and its answer.

wisp knows the commands, paths and models, so the input asks it. An answer to an older request,
or one that comes after the text or the cursor has moved, no longer applies and is dropped.
Several candidates show on the suggestions row (``prompt_suggestions``); while it is shown, Tab
steps through them without asking wisp again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from textual.screen import Screen

from wisp.protocol import Complete, Completions

from .screens.dialog import Dialog

if TYPE_CHECKING:
    from .backend import Backend
    from .widgets.prompt import Prompt
    from .widgets.prompt_suggestions import Suggestions


class CompletingApp(Protocol):
    """What completion uses of the app: the screen shown, wisp, the input, its suggestions."""

    @property
    def screen(self) -> Screen[object]: ...

    backend: Backend

    @property
    def prompt(self) -> Prompt: ...

    @property
    def suggestions(self) -> Suggestions: ...


class Completing:
    """The one completion request in flight, if any."""

    def __init__(self, app: CompletingApp) -> None:
        self._app = app
        self._count = 0
        self._asked: Complete | None = None

    async def ask(self, text: str, cursor: int) -> None:
        if isinstance(self._app.screen, Dialog):
            return
        if self._next_suggestion(text):
            return
        self._count += 1
        self._asked = Complete(id=f"k{self._count}", text=text, cursor=cursor)
        await self._app.backend.send(self._asked)

    async def answer(self, completions: Completions) -> None:
        asked = self._asked
        if asked is None or completions.id != asked.id:
            return  # a stale answer
        self._asked = None
        cursor = asked.cursor if isinstance(asked.cursor, int) else len(asked.text)
        prompt = self._app.prompt
        if prompt.text != asked.text or prompt.cursor_index != cursor:
            return  # edited since: the request no longer applies
        prompt.complete(completions.from_, cursor, completions.candidates)
        if len(completions.candidates) > 1:
            suggestions = self._app.suggestions
            suggestions.offer(
                completions.candidates, completions.from_, prompt.cursor_index, prompt.text
            )

    def _next_suggestion(self, text: str) -> bool:
        """Tab with the suggestions shown: the next candidate in place of the word."""
        suggestions = self._app.suggestions
        step = suggestions.next_word(text)
        if step is None:
            return False
        offered, word = step
        prompt = self._app.prompt
        prompt.put_word(offered.start, offered.end, word)
        suggestions.placed(offered.start + len(word), prompt.text)
        return True

    def edited(self) -> None:
        """The input changed: an edit, or sending, clears the suggestions row."""
        self._app.suggestions.clear_unless(self._app.prompt.text)
