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
    Method,
    Source,
    carried,
    facts_block,
    is_proposal,
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
        self.keeper: Callable[[Fact], object] | None = None
        """Files a proposal (a fact of class permanent from anyone but the person) for the
        person to keep or drop, where they are not at hand (``wisp mcp``: the desk); None where
        they answer in the conversation itself (``/facts keep|drop``)."""
        self._recorder = recorder
        self._window = window
        self._noted: list[Noted] = []

    def state(
        self, subject: str, name: str, value: str, *, source: Source, method: Method,
        fact_class: FactClass = "dynamic", detail: str = "", sources: list[str] | None = None,
    ) -> list[Fact]:  # fmt: skip
        """A fact recorded from ``source``, each change recorded; the facts it recorded. A
        proposal among them (class permanent, from anyone but the person) goes to the keeper,
        when there is one: only the person makes a fact permanent."""
        changes = self.book.record(
            subject, name, value, source=source, method=method, fact_class=fact_class,
            detail=detail, sources=sources or [],
        )  # fmt: skip
        self.record(changes)
        recorded = [self.book.get(c.id) for c in changes if isinstance(c, FactRecorded)]
        for fact in recorded:
            if is_proposal(fact) and self.keeper is not None:
                self.keeper(fact)
        return recorded

    def propose(self, fact_id: str) -> Fact:
        """A caller's request to keep a fact in force for good: it becomes a proposal (class
        permanent, changed in place) and goes to the keeper. ``FactError`` when there is no
        keeper to file it with, or it is proposed already."""
        fact = self.book.get(fact_id)
        if not fact.live:
            raise FactError(f"fact {fact_id} is no longer in force (replaced or deleted)")
        if fact.scope == "permanent" or is_proposal(fact):
            standing = "permanent" if fact.scope == "permanent" else "proposed"
            raise FactError(f"fact {fact_id} is {standing} already")
        if self.keeper is None:
            raise FactError("only the person makes a fact permanent, and nobody can ask them here")
        fact.fact_class = "permanent"
        self.keeper(fact)
        return fact

    def answer_proposal(self, fact_id: str, decision: str, *, filed: bool = False) -> str | None:
        """The person's answer to a proposal: ``keep`` moves it to the shared store (its
        permanent id returned), ``drop`` keeps it this conversation's. ``filed``: it answers a
        request filed on the desk (``request`` ``kept`` or ``dropped`` in
        ``fact.scope.changed``). ``FactError`` when the fact is no longer a proposal in force."""
        fact = self.book.get(fact_id)
        if not fact.live or not is_proposal(fact):
            raise FactError(
                f"fact {fact_id} changed after the person was asked: it is no longer proposed"
            )
        if decision == "keep":
            return self.move(fact_id, "permanent", request="kept" if filed else None).id
        self.record([self.book.dropped(fact_id, request="dropped" if filed else None)])
        return None

    def move(
        self, fact_id: str, scope: str, *, by: str = "person", request: str | None = None
    ) -> Fact:
        """A fact in force moved to ``scope`` (``permanent``: kept for every conversation;
        ``session``: this process's, kept by a chat's ``/new``; ``thread``: this
        conversation's), recorded; its copy there. ``FactError`` says
        why not; only the person moves a fact to ``permanent``."""
        fact = self.book.get(fact_id)
        if scope == fact.scope:
            raise FactError(f"fact {fact_id} is already {scope}")
        if scope == "permanent" and by != "person":
            raise FactError("only the person makes a fact permanent")
        if scope == "permanent":
            if self.shared is None:
                raise FactError("permanent facts are not kept here (no WISP_HOME)")
            if not fact.live:
                raise FactError(f"fact {fact_id} is no longer in force (replaced or deleted)")
            copy = self.shared.keep(fact)
        elif scope in ("thread", "session"):
            copy = self.book.copy(fact_id, scope)
            if fact.scope == "permanent" and self.shared is not None:
                self.shared.mark(fact_id, superseded_by=copy.id)
        else:
            raise FactError(f"{scope!r} is not a scope: permanent, session or thread")
        self.record(self.book.moved(fact_id, copy, by=by, request=request))
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
            recorded += self.state(
                fact.subject, fact.name, fact.value, source="model", method="noted",
                fact_class=fact.fact_class, detail="memory", sources=fact.sources,
            )  # fmt: skip
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
