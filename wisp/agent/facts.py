"""A conversation's facts (``wisp/facts/book.py``) as its requests carry them and its log
records them.

The facts in force lead the running turn's prompt as it is sent, within a budget for the
window; the stored prompt never holds them, and no earlier message changes, so a runtime's
prompt cache keeps everything before the prompt.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from wisp.agent.prompt import SMALL_WINDOW
from wisp.agent.recorder import Recorder
from wisp.agent.types import Message
from wisp.audit.details import Details
from wisp.audit.kinds import FactRecorded
from wisp.facts.book import (
    Fact,
    FactBook,
    FactClass,
    FactError,
    carried,
    facts_block,
    normalised,
)  # fmt: skip
from wisp.facts.shared import SharedFacts

FACTS_BUDGET, FACTS_BUDGET_SMALL = 2400, 600
"""Characters of facts in force a request carries (about 600 and 150 tokens): the second on a
window of ``SMALL_WINDOW`` tokens or fewer, where every token costs reading time."""


NOTES_A_TURN = 8
"""Facts the model may note in one turn; past it a note fails ``full`` (a small model that
loops would otherwise fill the book)."""


class Noted(msgspec.Struct, kw_only=True):
    """A fact the model noted (``memory note``), kept until its turn ends."""

    subject: str
    name: str
    value: str
    fact_class: FactClass
    sources: list[str] = msgspec.field(default_factory=list)
    """The audit events it came from: its ``context.memory``."""


class ConversationFacts:
    """The book of one conversation, the log its changes go to, and the window they fit."""

    def __init__(
        self,
        book: FactBook,
        recorder: Recorder,
        window: Callable[[], int | None],
        *,
        enabled: bool = True,
        shared: SharedFacts | None = None,
    ) -> None:
        self.book = book
        self.shared = shared
        """Where permanent facts are kept (``WISP_HOME/facts.json``); None: nowhere."""
        self.enabled = enabled
        """``facts.enabled``: off, nothing is noted and no request carries facts."""
        self._recorder = recorder
        self._window = window
        self._noted: list[Noted] = []

    def move(self, fact_id: str, scope: str, *, by: str = "person") -> Fact:
        """A fact in force moved to ``scope`` (``permanent``: kept for every conversation;
        ``thread``: this conversation's again), recorded; its copy there. ``FactError`` says
        why not."""
        fact = self.book.get(fact_id)
        if scope == fact.scope:
            raise FactError(f"fact {fact_id} is already {scope}")
        if scope == "permanent":
            if self.shared is None:
                raise FactError("permanent facts are not kept here (no WISP_HOME)")
            if not fact.live:
                raise FactError(f"fact {fact_id} is no longer in force (replaced or deleted)")
            copy = self.shared.keep(fact)
        elif scope == "thread":
            copy = self.book.copy(fact_id, "thread")
            if fact.scope == "permanent" and self.shared is not None:
                self.shared.mark(fact_id, superseded_by=copy.id)
        else:
            raise FactError(f"{scope!r} is not a scope a fact moves to: permanent or thread")
        self.record(self.book.moved(fact_id, copy, by=by))
        return copy

    def delete(self, fact_id: str, *, by: str = "person") -> list[Details]:
        """A fact deleted (kept, marked), here and, when permanent, in the shared store."""
        changes = self.book.delete(fact_id, by=by)
        if self.book.get(fact_id).scope == "permanent" and self.shared is not None:
            self.shared.mark(fact_id, deleted=True)
        self.record(changes)
        return changes

    def note(self, subject: str, name: str, value: str, fact_class: FactClass) -> Noted | str:
        """A fact the model noted, held until its turn ends (``settle``), normalised as the
        book keeps it; or why it cannot be (the failure word ``context.memory`` records:
        ``off``, ``subject``, ``name``, ``shape`` for no value, ``full``)."""
        if not self.enabled:
            return "off"
        subject, name, value = normalised(subject), normalised(name), value.strip()
        if not subject:
            return "subject"
        if not name:
            return "name"
        if not value:
            return "shape"
        if len(self._noted) >= NOTES_A_TURN:
            return "full"
        noted = Noted(subject=subject, name=name, value=value, fact_class=fact_class)
        self._noted.append(noted)
        return noted

    def settle(self) -> list[Fact]:
        """The turn ended: what the model noted in it goes into the book, each recorded
        (``fact.recorded`` with method ``noted``). Returns the facts recorded."""
        noted, self._noted = self._noted, []
        recorded: list[Fact] = []
        for fact in noted:
            changes = self.book.record(
                fact.subject, fact.name, fact.value, source="model", method="noted",
                fact_class=fact.fact_class, detail="memory", sources=fact.sources,
            )  # fmt: skip
            self.record(changes)
            recorded += [self.book.get(c.id) for c in changes if isinstance(c, FactRecorded)]
        return recorded

    def record(self, changes: list[Details]) -> None:
        """What a change to the book did (its details), recorded in order."""
        for change in changes:
            self._recorder.record(change)

    def in_force(self) -> str:
        """The facts a request carries, within their budget for this window; empty when none
        is in force."""
        if not self.enabled:
            return ""
        return facts_block(self.book.in_force(), self._budget())

    def _budget(self) -> int:
        window = self._window()
        small = window is not None and window <= SMALL_WINDOW
        return FACTS_BUDGET_SMALL if small else FACTS_BUDGET

    def carried_ids(self) -> list[str]:
        """The ids of the facts a request carries now (``context.assessment``'s ``facts``)."""
        if not self.enabled:
            return []
        return [fact.id for fact in carried(self.book.in_force(), self._budget())]

    def lead(self, prompt: Message) -> Message:
        """The turn's prompt as sent: led by the facts in force, when there are any."""
        block = self.in_force()
        return Message(role="user", content=f"{block}\n\n{prompt.content}") if block else prompt
