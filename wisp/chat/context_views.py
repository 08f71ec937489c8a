"""``/inspect context [next|turns|N]``: what a request carries, for the person (docs/turn.md,
"Seeing the context").

Bare, it saves the next request exactly (``WISP_HOME/context/<session>-turn<N>.md`` and
``.json``) and says where; ``next`` and ``N`` answer with a ``view`` of kind ``context`` (N: the
context turn N started with), ``turns`` with a ``view`` of kind ``turns``, one row per turn.
"""

from __future__ import annotations

from itertools import groupby

from wisp import protocol as p
from wisp.agent.context_report import at_turn, next_request, saved_request
from wisp.agent.loop import Conversation
from wisp.home import ensure_private_dir, replace_atomically
from wisp.store import Entry

USAGE = "usage: /inspect context [next|turns|N]"


def context_answer(conversation: Conversation, argument: str) -> p.View | p.Note:
    """The line answering ``/inspect context <argument>``."""
    word = argument.strip().lower()
    turns = conversation.turn
    if word == "":
        return p.Note(text=_saved(conversation))
    if word == "next":
        text = next_request(conversation).markdown()
        return p.View(kind="context", turn=None, turns=turns, text=text)
    if word == "turns":
        return p.View(kind="turns", turn=None, turns=turns, text=turns_table(conversation))
    if word.isdigit():
        number = int(word)
        stored = conversation.store.turns()
        if number not in stored:
            return p.Note(text=_no_turn(number, stored))
        text = at_turn(conversation, number).markdown()
        return p.View(kind="context", turn=number, turns=turns, text=text)
    return p.Note(text=USAGE)


def turns_table(conversation: Conversation) -> str:
    """One row per stored turn: its entries, its size now, and whether requests still carry
    it whole, as references, or not at all."""
    meter = conversation.meter
    rows = ["# The conversation's turns", ""]
    stored = (entry for entry in conversation.store if entry.turn is not None)
    for number, group in groupby(stored, key=lambda entry: entry.turn):
        entries = list(group)
        first, last = entries[0].id, entries[-1].id
        span = f"entries {first}-{last}" if last > first else f"entry {first}"
        tokens = meter.scaled(sum(meter.entry_tokens(entry) for entry in entries))
        rows.append(f"- turn {number} · {span} · {tokens:,} tokens · {_state(entries)}")
    return "\n".join(rows) + "\n"


def _state(entries: list[Entry]) -> str:
    dropped = [entry for entry in entries if not entry.active]
    if dropped:
        at = dropped[0].dropped_at
        return "dropped" + (f" in turn {at}" if at else " before this session")
    references = sum(entry.referenced_at is not None for entry in entries)
    if references:
        return f"literal, {references} output{'s' if references != 1 else ''} as references"
    return "literal"


def _no_turn(number: int, stored: list[int]) -> str:
    if not stored:
        return f"no turn {number}: this conversation has no turns yet"
    return f"no turn {number}: this conversation's turns run from {stored[0]} to {stored[-1]}"


def _saved(conversation: Conversation) -> str:
    folder = conversation.home / "context"
    base = f"{conversation.session}-turn{conversation.turn + 1}"
    markdown, json = folder / f"{base}.md", folder / f"{base}.json"
    try:
        ensure_private_dir(folder)
        replace_atomically(markdown, next_request(conversation).markdown().encode())
        replace_atomically(json, saved_request(conversation))
    except OSError as exc:
        return f"error: cannot save the context in {folder}: {exc.strerror or exc}"
    return f"saved the next request's context: {markdown} and {json}"
