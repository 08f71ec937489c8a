"""Facts, their versions and their conflicts: what wisp knows outlives the window.

A fact says that a subject's name has a value (``deploy`` ``branch`` = ``release``), and where
that came from: the person, a caller over MCP, a tool, or the model. A new value from the same
source is a new version that supersedes the old one; facts from different sources about one
subject and name are each their source's *head*, and when heads disagree the source that ranks
first wins (the person over a caller over a tool over the model) and a conflict is recorded
until they agree again. Nothing is ever removed: a deleted fact stays in the book, marked, and
is left out of what is in force.

The book only keeps facts and says what happened as audit details; who records them, where the
book is kept and how facts reach a request is the caller's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Literal, get_args

import msgspec

from wisp.audit.kinds import (
    FactConflictRaised,
    FactConflictResolved,
    FactDeleted,
    FactRecorded,
    FactScopeChanged,
    FactSuperseded,
)
from wisp.errors import WispError
from wisp.redaction import mask_credentials

__all__ = [
    "PRECEDENCE", "SCOPE_PREFIXES", "Fact", "FactBook", "FactClass", "FactError", "Method",
    "Source", "carried", "facts_block", "is_proposal", "normalised",
]  # fmt: skip

Source = Literal["person", "caller", "tool", "model"]
FactClass = Literal["permanent", "dynamic", "ephemeral"]
Method = Literal["stated", "extracted", "distilled", "noted", "inferred"]
Scope = Literal["thread", "session", "permanent"]

PRECEDENCE: tuple[Source, ...] = get_args(Source)
"""Which source wins when heads disagree, first to last."""
SCOPE_PREFIXES: dict[Scope, str] = {"thread": "c", "session": "s", "permanent": "p"}
"""A fact's id starts with its scope's letter: the conversation's, the session's, or the
shared store's under ``WISP_HOME``."""

Change = (
    FactRecorded | FactSuperseded | FactDeleted | FactScopeChanged | FactConflictRaised
    | FactConflictResolved
)  # fmt: skip


class FactError(WispError):
    """A fact the book cannot take or find, said for the person."""


class Fact(msgspec.Struct, kw_only=True):
    """One version of one fact, as the book keeps it."""

    id: str
    scope: Scope
    subject: str
    name: str
    value: str
    source: Source
    fact_class: FactClass
    method: Method
    version: int
    detail: str = ""
    entries: list[int] = msgspec.field(default_factory=list)
    sources: list[str] = msgspec.field(default_factory=list)
    supersedes: str | None = None
    superseded_by: str | None = None
    deleted: bool = False

    @property
    def key(self) -> tuple[str, str]:
        return (self.subject, self.name)

    @property
    def live(self) -> bool:
        """A head: neither replaced nor deleted."""
        return self.superseded_by is None and not self.deleted


def normalised(text: str) -> str:
    """A subject or a name as the book compares it: trimmed, one space between words, and
    case folded, so "Deploy  Branch" and "deploy branch" are one fact."""
    return re.sub(r"\s+", " ", text).strip().casefold()


class FactBook:
    """Every fact of one conversation, in the order they were recorded, with the conflicts
    in force. Each change returns the audit details that say what happened, in order."""

    def __init__(self, facts: Iterable[Fact] = ()) -> None:
        self._facts: dict[str, Fact] = {fact.id: fact for fact in facts}
        self._counters = dict.fromkeys(SCOPE_PREFIXES.values(), 0)
        for fact_id in self._facts:
            self._count(fact_id)
        keys = dict.fromkeys(fact.key for fact in self._facts.values() if fact.live)
        self._conflicts = {key: sides for key in keys if (sides := self._sides(key)) is not None}

    def __iter__(self) -> Iterator[Fact]:
        """Every fact, deleted and replaced ones too, oldest first."""
        return iter(self._facts.values())

    def get(self, fact_id: str) -> Fact:
        try:
            return self._facts[fact_id]
        except KeyError:
            raise FactError(f"no fact {fact_id!r} (/fact lists them)") from None

    def record(
        self,
        subject: str,
        name: str,
        value: str,
        *,
        source: Source,
        method: Method,
        fact_class: FactClass = "dynamic",
        scope: Scope = "thread",
        detail: str = "",
        entries: Iterable[int] = (),
        sources: Iterable[str] = (),
    ) -> list[Change]:
        """A fact stated: a new version of its source's head, or a first one. The same value
        again from the same source changes nothing (and says nothing)."""
        subject, name, value = normalised(subject), normalised(name), value.strip()
        if not subject or not name or not value:
            raise FactError("a fact needs a subject, a name and a value: SUBJECT NAME = VALUE")
        value = masked(name, value)
        key = (subject, name)
        previous = self._head(key, source)
        if previous is not None and previous.value == value:
            return []
        fact = Fact(
            id=self._next_id(scope), scope=scope, subject=subject, name=name, value=value,
            source=source, fact_class=fact_class, method=method,
            version=previous.version + 1 if previous is not None else 1, detail=detail,
            entries=list(entries), sources=list(sources),
            supersedes=previous.id if previous is not None else None,
        )  # fmt: skip
        self._facts[fact.id] = fact
        changes: list[Change] = [_recorded(fact)]
        if previous is not None:
            changes.append(self._supersede(previous, fact.id))
        for other in self._heads(key):  # another source saying the same: one fact now
            if other.id != fact.id and other.value == value:
                lower, higher = (other, fact) if _ranks_below(other, fact) else (fact, other)
                changes.append(self._supersede(lower, higher.id))
                if lower is fact:
                    break
        return changes + self._conflict_changes(key)

    def delete(self, fact_id: str, *, by: str = "person") -> list[Change]:
        """The fact left out of requests from now on, kept in the book, marked."""
        fact = self.get(fact_id)
        if fact.deleted:
            raise FactError(f"fact {fact_id} is already deleted")
        fact.deleted = True
        deleted = FactDeleted(
            id=fact.id, subject=fact.subject, name=fact.name, source=fact.source,
            value=fact.value, by=by,
        )  # fmt: skip
        return [deleted, *self._conflict_changes(fact.key)]

    def copy(self, fact_id: str, scope: Scope) -> Fact:
        """A copy of a fact in force, in ``scope``, with that scope's next id (not yet in the
        book: ``moved`` puts it there)."""
        fact = self._live(fact_id)
        return msgspec.structs.replace(fact, id=self._next_id(scope), scope=scope)

    def moved(
        self, fact_id: str, copy: Fact, *, by: str, request: str | None = None
    ) -> list[Change]:
        """``copy`` (in another scope) takes the place of the fact in force ``fact_id``: the
        old one is superseded by it. ``request``: ``kept`` when the person kept a proposal
        filed for them."""
        old = self._live(fact_id)
        self._facts[copy.id] = copy
        old.superseded_by = copy.id
        self._count(copy.id)  # numbered elsewhere (the shared store): ours go on after it
        changed = FactScopeChanged(
            fact=old.id, from_=old.scope, to=copy.scope, by=by, now=copy.id,
            subject=old.subject, name=old.name, source=old.source, value=old.value,
            proposed=is_proposal(old),
        )  # fmt: skip
        if request is not None:
            changed.request = request
        superseded = FactSuperseded(
            id=old.id, subject=old.subject, name=old.name, source=old.source, by=copy.id
        )
        return [changed, superseded]

    def dropped(self, fact_id: str, *, request: str | None = None) -> FactScopeChanged:
        """A proposal the person dropped: this conversation's fact again, changed in place
        (no longer proposed, its id the same)."""
        fact = self._live(fact_id)
        if not is_proposal(fact):
            raise FactError(f"fact {fact_id} is not proposed as permanent")
        fact.fact_class = "dynamic"
        changed = FactScopeChanged(
            fact=fact.id, from_=fact.scope, to="thread", by="person", now=fact.id,
            subject=fact.subject, name=fact.name, source=fact.source, value=fact.value,
            proposed=True,
        )  # fmt: skip
        if request is not None:
            changed.request = request
        return changed

    def in_force(self) -> list[Fact]:
        """For each subject and name, the head that wins by precedence, oldest first."""
        winners: dict[tuple[str, str], Fact] = {}
        for fact in self._facts.values():
            if fact.live:
                current = winners.get(fact.key)
                if current is None or _ranks_below(current, fact):
                    winners[fact.key] = fact
        return [fact for fact in self._facts.values() if winners.get(fact.key) is fact]

    def conflicts(self) -> dict[tuple[str, str], tuple[str, list[str]]]:
        """Each subject and name whose heads disagree: the winner's id and the others'."""
        return dict(self._conflicts)

    # -- the rest -------------------------------------------------------------------------

    def _live(self, fact_id: str) -> Fact:
        fact = self.get(fact_id)
        if not fact.live:
            raise FactError(f"fact {fact_id} is no longer in force (replaced or deleted)")
        return fact

    def _count(self, fact_id: str) -> None:
        """An id in the book: its scope's next id comes after it."""
        prefix, number = fact_id[:1], fact_id[1:]
        if prefix in self._counters and number.isdigit():
            self._counters[prefix] = max(self._counters[prefix], int(number))

    def _next_id(self, scope: Scope) -> str:
        prefix = SCOPE_PREFIXES[scope]
        self._counters[prefix] += 1
        return f"{prefix}{self._counters[prefix]}"

    def _heads(self, key: tuple[str, str]) -> list[Fact]:
        return [fact for fact in self._facts.values() if fact.key == key and fact.live]

    def _head(self, key: tuple[str, str], source: Source) -> Fact | None:
        return next((fact for fact in self._heads(key) if fact.source == source), None)

    def _supersede(self, fact: Fact, by: str) -> FactSuperseded:
        fact.superseded_by = by
        return FactSuperseded(
            id=fact.id, subject=fact.subject, name=fact.name, source=fact.source, by=by
        )

    def _sides(self, key: tuple[str, str]) -> tuple[str, list[str]] | None:
        """When the heads about ``key`` disagree: the winner's id and the ids of the heads
        that say otherwise. None when they agree (or there is one, or none)."""
        heads = self._heads(key)
        if len({fact.value for fact in heads}) < 2:
            return None
        winner = heads[0]
        for fact in heads[1:]:
            if _ranks_below(winner, fact):
                winner = fact
        return winner.id, [fact.id for fact in heads if fact.value != winner.value]

    def _conflict_changes(self, key: tuple[str, str]) -> list[Change]:
        """A conflict raised when the heads begin to disagree or its winner changes, resolved
        when they stop; nothing while it only gains or loses a side."""
        subject, name = key
        was, now = self._conflicts.get(key), self._sides(key)
        if now is None:
            if was is None:
                return []
            del self._conflicts[key]
            return [FactConflictResolved(subject=subject, name=name, winner=was[0], others=[])]
        self._conflicts[key] = now
        if was is not None and was[0] == now[0]:
            return []
        return [FactConflictRaised(subject=subject, name=name, winner=now[0], others=now[1])]


def is_proposal(fact: Fact) -> bool:
    """A fact of class permanent not yet in the shared store: only the person makes it one."""
    return fact.fact_class == "permanent" and fact.scope != "permanent"


def masked(name: str, value: str) -> str:
    """``value`` with credential-shaped parts masked, and whole when ``name`` says it is one
    (``db password``, ``api key``): a fact goes to the model, the screen and the log."""
    words = name.split()
    # "db password" names a password as much as "password" does, and "api key" an api_key.
    for key in dict.fromkeys(("_".join(words), "_".join(words[-2:]), words[-1])):
        if (assigned := mask_credentials(f"{key}={value}").text.partition("=")[2]) != value:
            return assigned
    return value


def _ranks_below(fact: Fact, other: Fact) -> bool:
    """Whether ``other`` wins over ``fact``: its source ranks first, or it is the same
    source's newer version."""
    mine, theirs = PRECEDENCE.index(fact.source), PRECEDENCE.index(other.source)
    return theirs < mine or (theirs == mine and other.version > fact.version)


def _recorded(fact: Fact) -> FactRecorded:
    recorded = FactRecorded(
        id=fact.id, scope=fact.scope, subject=fact.subject, name=fact.name, source=fact.source,
        version=fact.version, value=fact.value, class_=fact.fact_class, method=fact.method,
        detail=fact.detail, entries=list(fact.entries), sources=list(fact.sources),
    )  # fmt: skip
    if fact.supersedes is not None:
        recorded.supersedes = fact.supersedes
    return recorded


FACTS_HEADER = "Facts in force (the person's first):"
"""The first line of the facts a request carries."""


def facts_block(facts: list[Fact], budget: int) -> str:
    """The facts in force as a request carries them, within ``budget`` characters (those
    ``carried`` chooses); empty when none is in force (or none fits)."""
    lines = [_block_line(fact) for fact in carried(facts, budget)]
    return "\n".join([FACTS_HEADER, *lines]) if lines else ""


def carried(facts: list[Fact], budget: int) -> list[Fact]:
    """Of the facts in force, those a request carries within ``budget`` characters: the
    person's first, oldest first, then the rest newest first; a fact that does not fit is left
    out, never cut."""
    person = [fact for fact in facts if fact.source == "person"]
    others = [fact for fact in reversed(facts) if fact.source != "person"]
    chosen, used = [], len(FACTS_HEADER)
    for fact in person + others:
        size = 1 + len(_block_line(fact))
        if used + size <= budget:
            chosen.append(fact)
            used += size
    return chosen


def _block_line(fact: Fact) -> str:
    return f"- {fact.subject} {fact.name}: {fact.value}"
