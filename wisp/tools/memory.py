"""``memory``: this conversation's memory, read back on request.

``recall`` works in full over the conversation store: an entry, a turn, the task (the first
prompt, while there are no facts), a kept output, paged within B with the modifiers of
``memory_page``; ``recall fact ID`` and ``recall facts [WORDS]`` read the conversation's facts.
``note SUBJECT NAME = VALUE`` and ``task TEXT`` hold a fact (the task is the fact ``task
current``) for the conversation's book, which takes it when the turn ends (docs/turn.md,
"Facts"). ``recall summary`` reads the running summary; ``summarise`` and ``condense`` read an
entry or a stored output through a routed model call (``memory_reading.py``). Every call is
recorded as ``context.memory``.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

import msgspec
from msgspec import UNSET

from wisp.agent.types import ConversationView, ToolContext
from wisp.audit.kinds import ContextMemory
from wisp.facts.book import Fact, FactBook, FactError
from wisp.store import ConversationStore, Entry
from wisp.tools import memory_reading
from wisp.tools.arguments import parse_arguments, schema_of
from wisp.tools.memory_page import END, Modifiers, Page, page_lines, split_modifiers
from wisp.tools.output import split_lines

FROM_STORE = "from the conversation's store"
NOTHING_STORED = (
    "memory: nothing earlier is stored yet; this is the conversation's first turn, and all of it "
    "is in your context as the person wrote it"
)
_NO_FACTS = "this conversation keeps no facts yet"
NO_FACTS_YET = "memory: no facts yet; note one with: note SUBJECT NAME = VALUE"
NO_FACTS_TO_NOTE = "error: this conversation keeps no facts, so nothing can be noted"
NO_FACTS_FOR_TASK = "error: this conversation keeps no facts, so the task cannot be noted"
NOTE_SHAPE = (
    "error: write a note as SUBJECT NAME = VALUE, such as: note deploy branch = release "
    "(begin with permanent: for a fact worth keeping beyond this conversation)"
)
NOTE_FAILURES = {
    "off": NO_FACTS_TO_NOTE,
    "subject": "error: a note needs a subject first: note SUBJECT NAME = VALUE",
    "name": "error: a note needs a name after its subject: note SUBJECT NAME = VALUE",
    "shape": NOTE_SHAPE,
    "full": "error: this turn has noted as many facts as it may; answer with what you have",
}
"""What the model is told when a note is refused, by the failure word recorded."""
_FACT_CLASSES = ("permanent", "dynamic", "ephemeral")
TASK = ("task", "current")
"""The fact that holds the conversation's task."""
TASK_FAILURES = {
    "off": NO_FACTS_FOR_TASK,
    "pinned": "error: the person set this conversation's task; it stays as they set it",
}
PROPOSAL = " (a proposal to keep it beyond this conversation: only the person can accept it)"
INSTRUCTIONS_TEXT = "(the instructions, which every request carries in full)"
REASONING_TEXT = "(the model's thinking, kept for the person and not recalled)"
_VERBS = {
    "recall": "recall",
    "note": "note",
    "remember": "note",
    "task": "task",
    "summarise": "summarise",
    "summarize": "summarise",
    "condense": "condense",
}
_FACT_ID = re.compile(r"(?:fact\s+)?([cps]\d+)")
_OUTPUT_ID = memory_reading.OUTPUT_ID
_NUMBER = re.compile(r"\d+")
_COMMAND_NOTICE = re.compile(
    r"ran `(?P<line>.*?)` themselves in (?P<dir>.+?) at .*?\(exit status (?P<status>-?\d+)"
)
"""The notice of a command the person ran (``!cmd``), for its label line."""


class MemoryArgs(msgspec.Struct, kw_only=True):
    request: Annotated[
        str,
        msgspec.Meta(
            description='Such as "recall entry 7", "recall turn 3" or "recall entry 7 from line 41"'
        ),
    ]


class Recalled(msgspec.Struct, frozen=True):
    """One recall's result and what to record of it."""

    text: str
    target: str
    found: bool
    entries: list[int]
    events: list[str]
    page: Page | None = None
    facts: list[str] = msgspec.field(default_factory=list)
    """The ids of the facts it returned."""
    summaries: list[int] = msgspec.field(default_factory=list)
    """The running summary's versions it returned."""


class MemoryTool:
    """Recalls what this conversation's earlier turns held: an entry, a turn, or the task."""

    name = "memory"
    description = (
        "Recall what earlier turns of this conversation held (not RAM): recall entry N, turn "
        'N, task or facts, maybe ending "from line N", "matching TEXT", "lines A-B", "head K", '
        '"tail K"; or note SUBJECT NAME = VALUE, a fact every later request carries.'
    )
    parameters = schema_of(MemoryArgs)
    # Not read-only: note and task change what the conversation holds.
    read_only = False

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        args = parse_arguments(self.name, arguments, MemoryArgs, context.notes)
        if isinstance(args, str):
            return args
        verb, rest = parse_request(args.request)
        if verb == "task" and not rest:
            verb, rest = "recall", "task"
        if verb == "note" and context.conversation.facts is not None:
            return _note(rest, args.request, context)
        if verb == "task" and context.conversation.facts is not None:
            return _task(rest, args.request, context)
        if verb in ("summarise", "condense"):
            return await memory_reading.read(verb, rest, args.request, context, _output_text)
        if verb != "recall":
            result, record = _not_yet(verb, rest, args.request)
            context.record(record)
            return result
        recalled = recall(rest, context.conversation, context.output_budget)
        context.record(_recall_record(args.request, recalled))
        return recalled.text


def parse_request(request: str) -> tuple[str, str]:
    """(verb, the rest): quotes and backticks around it stripped; no verb means recall."""
    text = request.strip().strip("\"'`").strip()
    first, _, rest = text.partition(" ")
    verb = _VERBS.get(first.lower().rstrip(":"))
    if verb is None:
        return "recall", text
    return verb, rest.strip()


def _note(rest: str, request: str, context: ToolContext) -> str:
    """``note [CLASS:] SUBJECT NAME = VALUE``: held for the conversation's book until the turn
    ends. ``permanent:`` makes it a proposal to keep beyond this conversation, which only the
    person can accept."""
    fact_class, body = _fact_class(rest)
    left, equals, value = body.partition("=")
    subject, _, name = left.strip().partition(" ")
    held = context.conversation.facts.note(subject, name, value, fact_class) if equals else "shape"
    if isinstance(held, str):
        record = ContextMemory(request=request, action="note", noted=False, failure=held)
        context.record(record)
        return NOTE_FAILURES[held]
    record = ContextMemory(
        request=request, action="note", noted=True, subject=held.subject, name=held.name,
        value=held.value, class_=held.fact_class,
    )  # fmt: skip
    held.sources.append(context.record(record))
    said = f"noted: {held.subject} {held.name} = {held.value}"
    return said + (PROPOSAL if fact_class == "permanent" else "")


def _task(rest: str, request: str, context: ToolContext) -> str:
    """``task TEXT``: the conversation's task (the fact ``task current``), held until the turn
    ends; one the person set is pinned, and the model cannot replace it."""
    facts = context.conversation.facts
    person = [f for f in facts.book.in_force() if f.key == TASK and f.source == "person"]
    held = "pinned" if person else facts.note(*TASK, rest, "dynamic")
    if isinstance(held, str):
        failure = "shape" if held in ("subject", "name") else held
        context.record(ContextMemory(request=request, action="task", noted=False, failure=failure))
        return TASK_FAILURES.get(failure, NOTE_FAILURES.get(failure, NOTE_SHAPE))
    context.record(ContextMemory(request=request, action="task", noted=True, value=held.value))
    return f"noted: the task is {held.value}"


def _fact_class(rest: str) -> tuple[str, str]:
    """A note's class ("permanent: …"; dynamic when it names none) and the rest."""
    first, colon, after = rest.partition(":")
    if colon and first.strip().lower() in _FACT_CLASSES:
        return first.strip().lower(), after.strip()
    return "dynamic", rest


def _not_yet(verb: str, rest: str, request: str) -> tuple[str, ContextMemory]:
    """note and task TEXT in a conversation that keeps no facts: each says so."""
    if verb == "note":
        return NO_FACTS_TO_NOTE, ContextMemory(
            request=request, action="note", noted=False, failure="off"
        )
    return NO_FACTS_FOR_TASK, ContextMemory(
        request=request, action="task", noted=False, value=rest, failure="off"
    )


def _recall_record(request: str, recalled: Recalled) -> ContextMemory:
    page = recalled.page
    return ContextMemory(
        request=request,
        action="recall",
        target=recalled.target,
        found=recalled.found,
        entries=recalled.entries,
        events=recalled.events,
        facts=recalled.facts or UNSET,
        summaries=recalled.summaries or UNSET,
        from_="store" if recalled.entries or not (recalled.facts or recalled.summaries) else UNSET,
        filter=page.matching if page and page.matching else UNSET,
        offset=page.first if page else UNSET,
        bytes=len(recalled.text.encode()),
    )


# -- recall -----------------------------------------------------------------------------------


def recall(request: str, view: ConversationView, budget: int) -> Recalled:
    """What ``recall <request>`` finds, paged within ``budget`` bytes."""
    what, modifiers = split_modifiers(request)
    lowered = what.lower()
    store: ConversationStore = view.store
    if not lowered:
        return _missing(
            "",
            'memory: say what to recall, such as "recall entry 7", '
            '"recall turn 2" or "recall task"',
        )
    facts = view.facts if view.facts is not None and view.facts.enabled else None
    if match := _FACT_ID.fullmatch(lowered):
        if facts is None:
            return _missing(f"fact {match[1]}", f"memory: no fact {match[1]}; {_NO_FACTS}")
        return _recall_fact(facts.book, match[1])
    if "summary" in lowered:
        return _recall_summary(view, modifiers, budget)
    if lowered.startswith("fact"):
        return _fact_query(what) if facts is None else _search_facts(facts.book, what)
    numbers = _NUMBER.findall(lowered)
    if "task" in lowered and not numbers:
        return _recall_task(store, modifiers, budget, facts)
    if numbers and "turn" in lowered:
        return _recall_turn(store, int(numbers[0]), modifiers, budget)
    if match := _OUTPUT_ID.search(lowered):
        return _recall_output(view, match[1], modifiers, budget)
    if numbers:
        return _recall_entry(store, int(numbers[0]), modifiers, budget)
    return _fact_query(what) if facts is None else _search_facts(facts.book, what)


def _recall_fact(book: FactBook, fact_id: str) -> Recalled:
    """One fact by its id, with its standing: in force, outranked, replaced or deleted."""
    try:
        fact = book.get(fact_id)
    except FactError:
        return _missing(f"fact {fact_id}", f"memory: no fact {fact_id}; recall facts lists them")
    return Recalled(_fact_line(fact, book), "fact", True, [], [], facts=[fact.id])


def _search_facts(book: FactBook, query: str) -> Recalled:
    """The live facts whose subject, name or value holds every word of ``query`` ("facts"
    alone: all of them), those in force first."""
    words = query.lower().split()
    if words and words[0] in ("fact", "facts"):
        words = words[1:]
    in_force = book.in_force()
    live = in_force + [fact for fact in book if fact.live and fact not in in_force]
    found = [f for f in live if all(w in f"{f.subject} {f.name} {f.value}".lower() for w in words)]
    if not found:
        said = " ".join(words)
        return _missing(
            "fact", f"memory: no fact matches {said!r}" if said else "memory: no facts yet"
        )
    text = "\n".join(_fact_line(fact, book) for fact in found)
    return Recalled(text, "fact", True, [], [], facts=[fact.id for fact in found])


def _fact_line(fact: Fact, book: FactBook) -> str:
    """``fact c3: db port = 5433 (model, noted, version 2; in force)``."""
    if fact.deleted:
        standing = "deleted"
    elif fact.superseded_by is not None:
        standing = f"replaced by {fact.superseded_by}"
    else:
        standing = "in force" if fact in book.in_force() else "outranked"
    said = f"fact {fact.id}: {fact.subject} {fact.name} = {fact.value}"
    return f"{said} ({fact.source}, {fact.method}, version {fact.version}; {standing})"


def _missing(target: str, text: str) -> Recalled:
    return Recalled(text, target, False, [], [])


def _fact_query(query: str) -> Recalled:
    return _missing(
        query,
        f"memory: {_NO_FACTS}, so there is nothing to search for {query!r}; recall an entry or "
        'a turn by its number instead, such as "recall entry 7" or "recall turn 2"',
    )


def _nothing_stored(store: ConversationStore) -> bool:
    return all(entry.kind == "instructions" for entry in store)


def _recall_entry(store: ConversationStore, number: int, mods: Modifiers, budget: int) -> Recalled:
    target = f"entry {number}"
    if _nothing_stored(store):
        return _missing(target, NOTHING_STORED)
    entry = store.get(number)
    if entry is None:
        return _missing(
            target,
            f"memory: no entry {number} in this conversation; entries run from 1 to "
            f"{store.last_id}, and this turn's own are already in view",
        )
    header = [f"entry {number}: {_label(entry)}{_when(entry)}, {FROM_STORE}"]
    if entry.kind == "toolOutput":
        header.append(f"arguments: {_arguments_of(store, entry)}")
    return _paged(target, header, _body(entry), mods, budget, [entry])


def _recall_turn(store: ConversationStore, turn: int, mods: Modifiers, budget: int) -> Recalled:
    target = f"turn {turn}"
    turns = store.turns()
    if not turns:
        return _missing(target, NOTHING_STORED)
    entries = store.turn_entries(turn)
    if not entries:
        return _missing(
            target,
            f"memory: no turn {turn} in this conversation's store; turns run from {min(turns)} "
            f"to {max(turns)}, and this turn is already in view",
        )
    first, last = entries[0].id, entries[-1].id
    span = f"entry {first}" if first == last else f"entries {first}-{last}"
    lines: list[str] = []
    for entry in entries:
        lines.append(f"[entry {entry.id}, {_label(entry)}]")
        lines.extend(_body(entry))
    return _paged(target, [f"turn {turn}: {span}, {FROM_STORE}"], lines, mods, budget, entries)


def _recall_task(
    store: ConversationStore, mods: Modifiers, budget: int, facts: Any = None
) -> Recalled:
    task = next((f for f in facts.book.in_force() if f.key == TASK), None) if facts else None
    if task is not None:
        said = f"task: {task.value} (fact {task.id}, set by the {task.source})"
        return Recalled(said, "task", True, [], [], facts=[task.id])
    prompt = next((entry for entry in store if entry.kind == "prompt"), None)
    if prompt is None:
        return _missing("task", NOTHING_STORED)
    why = "task TEXT records one" if facts else f"as {_NO_FACTS}"
    header = [
        f"task: no task is recorded, {why}; the first prompt, entry {prompt.id}"
        f"{_when(prompt)}, {FROM_STORE}"
    ]
    return _paged("task", header, _body(prompt), mods, budget, [prompt])


def _recall_output(
    view: ConversationView, output_id: str, mods: Modifiers, budget: int
) -> Recalled:
    target = f"output {output_id}"
    found = _output_text(view, output_id)
    if found is None:
        return _missing(target, f"memory: no output {output_id} in this conversation")
    entry, text, source = found
    label = f"{entry.value.tool} output, entry {entry.id}" if entry else "tool output"
    header = [f"output {output_id}: {label}, {source}"]
    lines = [line.removesuffix("\n") for line in split_lines(text)]
    return _paged(target, header, lines, mods, budget, [entry] if entry else [])


def _output_text(view: ConversationView, output_id: str) -> tuple[Entry | None, str, str] | None:
    """A stored output's text, its entry (when the store has it) and where the text came
    from; None when there is no such output."""
    store: ConversationStore = view.store
    entry = next(
        (e for e in store if e.kind == "toolOutput" and e.value.call_id == output_id), None
    )
    kept = view.home / "output" / view.session / output_id
    try:
        # The output store holds an output whole when its result had to be cut (docs/turn.md,
        # "Output budget").
        return entry, kept.read_text(errors="replace"), "kept whole in the output store"
    except OSError:
        if entry is None:
            return None
        return entry, entry.value.text, FROM_STORE


def _recall_summary(view: ConversationView, mods: Modifiers, budget: int) -> Recalled:
    """The running summary's versions, newest first (docs/turn.md, "The running summary")."""
    found = memory_reading.summary_lines(view)
    if found is None:
        why = "no turns have been dropped and summarised yet"
        return _missing("summary", f"memory: there is no running summary; {why}")
    header, lines, versions, events = found
    paged = _paged("summary", header, lines, mods, budget, [])
    return msgspec.structs.replace(paged, summaries=versions, events=events)


def _paged(
    target: str,
    header: list[str],
    lines: list[str],
    mods: Modifiers,
    budget: int,
    entries: list[Entry],
) -> Recalled:
    room = budget - sum(len(line.encode()) + 1 for line in header)
    page = page_lines(lines, mods, room)
    last = END if page.next_line is None else page.more(target)
    text = "\n".join([*header, *page.lines, last])
    events = [source.event for entry in entries for source in entry.sources]
    return Recalled(text, target, True, [entry.id for entry in entries], events, page)


# -- entries as recall shows them --------------------------------------------------------------


def _label(entry: Entry) -> str:
    match entry.kind:
        case "toolOutput":
            return f"{entry.value.tool} output"
        case "prompt":
            return "prompt"
        case "response":
            return "reply"
        case "toolCalls":
            return "tool calls"
        case "instructions":
            return "the instructions"
        case "reasoning":
            return "the model's thinking"
        case "command":
            notice = _COMMAND_NOTICE.search(entry.text)
            if notice is None:
                return "the person's command"
            return (
                f"the person's command `{notice['line']}` in {notice['dir']}, "
                f"exit status {notice['status']}"
            )
        case _:
            return entry.kind


def _body(entry: Entry) -> list[str]:
    if entry.kind == "instructions":
        return [INSTRUCTIONS_TEXT]
    if entry.kind == "reasoning":
        return [REASONING_TEXT]
    return [line.removesuffix("\n") for line in split_lines(entry.text)] or [""]


def _when(entry: Entry) -> str:
    """``, turn 2 at 14:05:12`` (local time), each part only when known."""
    turn = f", turn {entry.turn}" if entry.turn is not None else ""
    clock = _local_clock(entry.time)
    return f"{turn} at {clock}" if clock and turn else turn


def _local_clock(stamp: str | None) -> str | None:
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%H:%M:%S")
    except ValueError:
        return None


def _arguments_of(store: ConversationStore, output: Entry) -> str:
    """The JSON arguments of the call an output answers, on one line, cut at 200 characters."""
    call_id = output.value.call_id
    for entry in reversed(store.entries[: output.id - 1]):
        if entry.kind != "toolCalls":
            continue
        for call in entry.value:
            if call.id == call_id:
                text = msgspec.json.encode(call.arguments).decode()
                text = text.replace("\n", " ").replace("\t", " ")
                return text if len(text) <= 200 else text[:200] + "…"
    return "(not found)"
