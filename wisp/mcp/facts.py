"""A thread's facts as a ``wisp mcp`` caller gives and moves them (docs/mcp.md, "Facts"):
``respond``'s ``facts``, and ``set_fact_scope``, a facts operation rather than one of wisp's
tools. A caller never makes a fact permanent: it only proposes, and the person decides."""

from __future__ import annotations

from typing import Any

from wisp.facts.book import FactError
from wisp.mcp.threads import THREAD_ID, Thread

__all__ = [
    "FACTS_A_CALL", "FACT_SCHEMA", "SCOPES", "SCOPE_SCHEMA", "FactError", "caller_facts",
    "set_fact_scope",
]  # fmt: skip

FACTS_A_CALL = 16
"""Facts one ``respond`` may state."""
SCOPES = ("thread", "session", "permanent")
FACT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "subject": {"type": "string", "minLength": 1, "maxLength": 60},
        "name": {"type": "string", "minLength": 1, "maxLength": 60},
        "value": {"type": "string", "minLength": 1, "maxLength": 500},
        "class": {"enum": ["dynamic", "ephemeral", "permanent"]},
    },
    "required": ["subject", "name", "value"],
    "additionalProperties": False,
}


SCOPE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "thread_id": {"type": "string", "pattern": f"^{THREAD_ID.pattern}$"},
        "fact": {"type": "string", "pattern": "^[cs][0-9]+$", "description": "The fact's id."},
        "scope": {
            "enum": list(SCOPES),
            "description": "thread: this thread's; session: this server's session; permanent: "
            "asks the person to keep it for every conversation (it waits for them).",
        },
    },
    "required": ["thread_id", "fact", "scope"],
    "additionalProperties": False,
}


def caller_facts(thread: Thread, given: list[dict[str, str]]) -> str | None:
    """The facts a ``respond`` states, recorded as the caller's; why not, when they cannot be
    (facts are off, or one does not fit)."""
    facts = thread.conversation.facts
    if given and not facts.enabled:
        return "facts: this server keeps no facts (facts.enabled is false)"
    for fact in given:
        try:
            facts.state(
                fact["subject"], fact["name"], fact["value"], source="caller", method="stated",
                fact_class=fact.get("class", "dynamic"), detail="respond",  # type: ignore[arg-type]
            )  # fmt: skip
        except FactError as exc:
            return f"facts: {exc}"
    return None


def set_fact_scope(thread: Thread, fact_id: str, scope: str) -> tuple[str, dict[str, Any]]:
    """The caller's move of a fact: to the thread or the session at once; to permanent only
    as a proposal the person answers. The text and the structured content; ``FactError``
    when it cannot move."""
    facts = thread.conversation.facts
    if not facts.enabled:
        raise FactError("this server keeps no facts (facts.enabled is false)")
    if scope == "permanent":
        fact = facts.propose(fact_id)
        text = f"fact {fact.id} waits for the person to keep it (wisp facts pending)"
        return text, {"fact": fact.id, "scope": fact.scope, "proposed": True}
    moved = facts.move(fact_id, scope, by="caller")
    text = f"fact {fact_id} is now {moved.id} ({scope})"
    return text, {"fact": moved.id, "scope": moved.scope, "proposed": False}
