"""``/fact``: the person's facts, listed, stated and deleted in chat (docs/turn.md, "Facts")."""

from __future__ import annotations

import re
from collections.abc import Callable

from wisp.agent.facts import ConversationFacts
from wisp.desk.kind import ChannelError
from wisp.facts.book import Fact, FactError, is_proposal

FACTS_OFF = "facts are off in this conversation (facts.enabled is false)"
FACT_USAGE = (
    "/fact lists the facts; /fact SUBJECT NAME = VALUE states one; /fact delete ID; "
    "/fact ID permanent|session|thread moves one; /facts keep|drop ID answers a proposal"
)
FACT_ID = re.compile(r"[cs]\d+")
"""A proposal of this conversation's; anything else names a request a ``wisp mcp`` filed."""

AnswerFiled = Callable[[str, str], str]
"""Answers a proposal filed on the desk (its request id, ``keep`` or ``drop``); what became
of it, or ``ChannelError``."""


def fact_command(
    facts: ConversationFacts, argument: str, desk: AnswerFiled | None = None
) -> tuple[str, str]:
    """What ``/fact ARGUMENT`` did: ("output", the list) or ("note", what changed, or why
    nothing did). ``desk`` answers the proposals a ``wisp mcp`` filed."""
    word, _, rest = argument.partition(" ")
    if word.lower() in ("keep", "drop") and "=" not in argument:
        return "note", _answer(facts, word.lower(), rest.strip(), desk)
    if not facts.enabled:
        return "note", FACTS_OFF
    if not argument:
        return listed(facts)
    if word.lower() == "delete" and "=" not in argument:
        return _delete(facts, rest.strip())
    if "=" in argument:
        return _state(facts, argument)
    if len(words := argument.split()) == 2:
        return _move(facts, *words)
    return "note", f"not a fact: {argument!r}; {FACT_USAGE}"


def listed(facts: ConversationFacts) -> tuple[str, str]:
    """Each live fact, the winners in force first marked as such, then the heads they beat."""
    in_force = facts.book.in_force()
    beaten = [f for f in facts.book if f.live and f not in in_force]
    if not in_force:
        return "note", f"no facts yet; {FACT_USAGE}"
    lines = [
        _line(fact, note="proposed permanent" if is_proposal(fact) else "") for fact in in_force
    ]
    lines += [_line(fact, note="outranked") for fact in beaten]
    return "output", "\n".join(lines)


def _state(facts: ConversationFacts, argument: str) -> tuple[str, str]:
    left, _, value = argument.partition("=")
    subject, _, name = left.strip().partition(" ")
    return "note", state_fact(facts, subject, name, value)


def state_fact(facts: ConversationFacts, subject: str, name: str, value: str) -> str:
    """The person's fact recorded (``/fact``, or a front end's ``fact`` line); the note that
    says what became of it."""
    if not facts.enabled:
        return FACTS_OFF
    try:
        recorded = facts.state(
            subject, name, value, source="person", method="stated", detail="/fact"
        )
    except FactError as exc:
        return str(exc)
    if not recorded:
        return "that fact is already in force"
    fact = recorded[0]
    return f"fact {fact.id}: {fact.subject} {fact.name} = {fact.value}"


def _answer(facts: ConversationFacts, decision: str, target: str, desk: AnswerFiled | None) -> str:
    """``/facts keep|drop ID``: the person's answer to a proposal, this conversation's
    (``c3``) or one a ``wisp mcp`` filed (its request id)."""
    if not target:
        return f"which proposal? /facts {decision} ID ({FACT_USAGE})"
    if FACT_ID.fullmatch(target):
        try:
            kept = facts.answer_proposal(target, decision)
        except FactError as exc:
            return str(exc)
        if kept is None:
            return f"fact {target} stays this conversation's"
        return f"fact {target} is now {kept}, kept for every conversation"
    if desk is None:
        return f"no proposal {target} here"
    try:
        return desk(target, decision)
    except ChannelError as exc:
        return f"the answer was not used: {exc}"


def _delete(facts: ConversationFacts, fact_id: str) -> tuple[str, str]:
    if not fact_id:
        return "note", f"which fact? {FACT_USAGE}"
    try:
        facts.delete(fact_id)
    except FactError as exc:
        return "note", str(exc)
    return "note", f"fact {fact_id} deleted: later requests leave it out"


def _move(facts: ConversationFacts, fact_id: str, scope: str) -> tuple[str, str]:
    try:
        now = facts.move(fact_id, scope.lower())
    except FactError as exc:
        return "note", str(exc)
    if now.scope == "permanent":
        return "note", f"fact {fact_id} is now {now.id}, kept for every conversation"
    if now.scope == "session":
        return "note", f"fact {fact_id} is now {now.id}, this session's (kept by /new)"
    return "note", f"fact {fact_id} is now {now.id}, this conversation's only"


def _line(fact: Fact, note: str = "") -> str:
    said = f"{fact.id:<4} {fact.subject} {fact.name} = {fact.value}  ({fact.source}"
    return said + (f", {note})" if note else ")")
