"""``/fact``: the person's facts, listed, stated and deleted in chat (docs/turn.md, "Facts")."""

from __future__ import annotations

from wisp.agent.facts import ConversationFacts
from wisp.facts.book import Fact, FactError

FACTS_OFF = "facts are off in this conversation (facts.enabled is false)"
FACT_USAGE = (
    "/fact lists the facts; /fact SUBJECT NAME = VALUE states one; /fact delete ID; "
    "/fact ID permanent|thread moves one"
)


def fact_command(facts: ConversationFacts, argument: str) -> tuple[str, str]:
    """What ``/fact ARGUMENT`` did: ("output", the list) or ("note", what changed, or why
    nothing did)."""
    if not facts.enabled:
        return "note", FACTS_OFF
    if not argument:
        return listed(facts)
    word, _, rest = argument.partition(" ")
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
    lines = [_line(fact) for fact in in_force]
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
    return "note", f"fact {fact_id} is now {now.id}, this conversation's only"


def _line(fact: Fact, note: str = "") -> str:
    said = f"{fact.id:<4} {fact.subject} {fact.name} = {fact.value}  ({fact.source}"
    return said + (f", {note})" if note else ")")
