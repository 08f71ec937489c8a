"""A conversation's facts (``wisp/facts/book.py``) as its requests carry them and its log
records them.

The facts in force lead the running turn's prompt as it is sent, within a budget for the
window; the stored prompt never holds them, and no earlier message changes, so a runtime's
prompt cache keeps everything before the prompt.
"""

from __future__ import annotations

from collections.abc import Callable

from wisp.agent.prompt import SMALL_WINDOW
from wisp.agent.recorder import Recorder
from wisp.agent.types import Message
from wisp.audit.details import Details
from wisp.facts.book import FactBook, facts_block

FACTS_BUDGET, FACTS_BUDGET_SMALL = 2400, 600
"""Characters of facts in force a request carries (about 600 and 150 tokens): the second on a
window of ``SMALL_WINDOW`` tokens or fewer, where every token costs reading time."""


class ConversationFacts:
    """The book of one conversation, the log its changes go to, and the window they fit."""

    def __init__(
        self, book: FactBook, recorder: Recorder, window: Callable[[], int | None]
    ) -> None:
        self.book = book
        self._recorder = recorder
        self._window = window

    def record(self, changes: list[Details]) -> None:
        """What a change to the book did (its details), recorded in order."""
        for change in changes:
            self._recorder.record(change)

    def in_force(self) -> str:
        """The facts a request carries, within their budget for this window; empty when none
        is in force."""
        window = self._window()
        small = window is not None and window <= SMALL_WINDOW
        return facts_block(self.book.in_force(), FACTS_BUDGET_SMALL if small else FACTS_BUDGET)

    def lead(self, prompt: Message) -> Message:
        """The turn's prompt as sent: led by the facts in force, when there are any."""
        block = self.in_force()
        return Message(role="user", content=f"{block}\n\n{prompt.content}") if block else prompt
