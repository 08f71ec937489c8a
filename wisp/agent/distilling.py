"""What a condensation keeps of the turns it drops: facts distilled from them, and the running
summary (docs/turn.md, "Distillation" and "The running summary").

When a condensation drops turns of a conversation that keeps facts, one side call
(``side_calls.py``, task ``distill``) reads their prompts and replies and answers with facts as
JSON; each is recorded in the conversation's book (method ``distilled``, source ``model``,
class ``dynamic``). Once the dropped turns not yet summarised reach ``context.summaryBatch``
(3), a second call (task ``summary``) writes the running summary's next version from the last
one and those turns; one call may do both (``combined``, with ``Distiller.combine``). Requests after
carry the newest version where the dropped turns were. A call that fails is recorded and
changes nothing else: the turns are dropped as planned and the turn goes on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from wisp.agent.context import StoredTurn
from wisp.agent.facts import ConversationFacts
from wisp.agent.recorder import Recorder
from wisp.agent.side_calls import SideAnswer, SideCalls, json_answer
from wisp.agent.text import cut_to_bytes, utf8_len
from wisp.agent.types import ChatRequest, Message
from wisp.audit.details import Details
from wisp.audit.kinds import ContextDistillation, ContextSummary, FactRecorded
from wisp.facts.book import FactError
from wisp.store import Entry

DISTIL_TASK, SUMMARY_TASK = "distill", "summary"
"""The routed tasks (``routing.tasks.distill``, ``routing.tasks.summary``); a combined call
goes as ``distill``."""
SUBJECTS = ("task", "decision", "preference", "entity", "tests", "workdir", "branch")
"""What a distilled fact may be about; a fact about anything else is passed over."""
NAMELESS = ("task", "workdir", "branch")
"""Subjects with one fact each: a fact about one with no name is named ``current``."""
MOST_FACTS = 12
NAME_CHARS, VALUE_CHARS = 40, 120
VERSIONS_KEPT = 20
ENTRY_BYTES = 1024
"""Each entry a call reads is cut to this many bytes: what the turns said, not every line."""
INPUT_SHARE = 0.5
"""The turns a call reads take at most this share of the conversation's window (in bytes at
four a token), so that the prompt and its answer fit a model of the same window."""
SUMMARY_SHARE, SUMMARY_FLOOR = 0.05, 1024
"""The summary's most bytes: this share of the window at four bytes a token, never below the
floor."""
DEFAULT_WINDOW = 8192

FACTS_ASK = (
    "The turns below, of a conversation between a person and an assistant, will no longer be "
    "shown to the assistant. List the facts in them worth keeping: the task, what the person "
    "decided or prefers, names and values of things (a version, a port, a code word), test "
    "results, the working folder, the branch. Each fact has a subject (one of: "
    + ", ".join(SUBJECTS)
    + "), a name and a short value. At most 12 facts; none is fine."
)
FACTS_FORM = (
    'Answer with JSON only: {"facts": [{"subject": "...", "name": "...", "value": "..."}]}.'
)
SUMMARY_ASK = (
    "The turns below, of a conversation between a person and an assistant, will no longer be "
    "shown to the assistant. Write a summary of them for the assistant to go on from: what the "
    "person asked, what was done and found, what was decided, what is still open. Keep every "
    "name, number and code word that matters. At most {words} words{so_far}."
)
SO_FAR = ", taking in the summary so far, which it replaces"
COMBINED_FORM = (
    'Answer with JSON only: {"facts": [{"subject": "...", "name": "...", "value": "..."}], '
    '"summary": "..."}.'
)
SUMMARY_HEADER = (
    "A summary of the {turns} earlier turns this conversation no longer carries (a record, "
    "not instructions):"
)

_FACT_SCHEMA = {
    "type": "object",
    "properties": {
        "subject": {"type": "string", "enum": list(SUBJECTS)},
        "name": {"type": "string"},
        "value": {"type": "string"},
    },
    "required": ["subject", "name", "value"],
}
"""A fact as the answer holds it. No ``maxLength``: llama.cpp's grammar spells a bound string
out one optional character at a time, and a long one breaks it."""
FACTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"facts": {"type": "array", "items": _FACT_SCHEMA, "maxItems": MOST_FACTS}},
    "required": ["facts"],
}
COMBINED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {**FACTS_SCHEMA["properties"], "summary": {"type": "string"}},
    "required": ["facts", "summary"],
}


class DistilledFact(msgspec.Struct):
    subject: str
    value: str
    name: str = ""


class Distilled(msgspec.Struct):
    facts: list[DistilledFact]
    summary: str = ""


class SummaryVersion(msgspec.Struct, frozen=True):
    """One version of the running summary."""

    version: int
    text: str
    turns: tuple[int, ...]
    """Every turn it covers, the earlier versions' included."""
    event: str
    """The ``context.summary`` event that recorded it."""


class RunningSummary:
    """The running summary's versions (the last ``VERSIONS_KEPT``) and the dropped turns it has
    not taken in yet."""

    def __init__(self, batch: int) -> None:
        self.batch = batch
        """``context.summaryBatch``: dropped turns a new version waits for; 0 writes none."""
        self.versions: list[SummaryVersion] = []
        self.waiting: list[StoredTurn] = []

    @property
    def newest(self) -> SummaryVersion | None:
        return self.versions[-1] if self.versions else None

    def due(self) -> bool:
        """Whether the turns waiting make a batch."""
        return self.batch > 0 and len(_numbers(self.waiting)) >= self.batch

    def restore(
        self, versions: Sequence[SummaryVersion], waiting: Sequence[StoredTurn] = ()
    ) -> None:
        """Versions written earlier (a resumed transcript's, or the conversation's before
        ``/model``), and the dropped turns that still wait for the next one."""
        self.versions = list(versions)[-VERSIONS_KEPT:]
        self.waiting = list(waiting)

    def due_with(self, dropped: Sequence[StoredTurn]) -> bool:
        """Whether dropping ``dropped`` too would make a batch."""
        return self.batch > 0 and len(_numbers([*self.waiting, *dropped])) >= self.batch

    def written(self, version: SummaryVersion) -> None:
        self.versions = [*self.versions, version][-VERSIONS_KEPT:]
        self.waiting = []

    def block(self) -> str:
        """The newest version as requests carry it; empty when there is none."""
        newest = self.newest
        if newest is None:
            return ""
        return f"{SUMMARY_HEADER.format(turns=len(newest.turns))}\n{newest.text}"

    def carried(self, stored: list[Message]) -> list[Message]:
        """The stored part of a request with the summary in place of the dropped turns: it
        leads the first stored message (a turn's prompt, or a typed command), which keeps the
        roles alternating; the instructions before it stay the same, and so does everything
        after it until the next condensation, so a runtime's prompt cache keeps them."""
        block = self.block()
        if not block:
            return stored
        if stored and stored[0].role == "user":
            first = Message(role="user", content=f"{block}\n\n{stored[0].content}")
            return [first, *stored[1:]]
        return [Message(role="user", content=block), *stored]

    def added(self, stored: list[Message]) -> int:
        """How many messages ``carried`` adds to ``stored``: 0 or 1."""
        return int(bool(self.versions) and not (stored and stored[0].role == "user"))


class Distiller:
    """Runs a condensation's distillation and summary calls for one conversation."""

    def __init__(
        self,
        side: SideCalls,
        recorder: Recorder,
        facts: ConversationFacts,
        window: Callable[[], int | None],
        *,
        batch: int,
    ) -> None:
        self.side = side
        self.recorder = recorder
        self.facts = facts
        self.summary = RunningSummary(batch)
        self.combine = False
        """Whether one call distils and summarises when both are due. Off: on the embedded
        model (SmolLM2-135M) the combined answer ran to its token cap, the summary copying
        the turns or the facts running on, and a cut answer is no JSON, so both were lost;
        two calls lose at most one (docs/performance.md, "Facts and the running summary")."""
        self._window = window

    async def dropping(self, dropped: Sequence[StoredTurn]) -> int:
        """The turns a condensation is about to drop: facts distilled from them (when the
        conversation keeps facts) and, when a batch is waiting, the summary's next version;
        each recorded before the condensation is. Returns how many turns were distilled (0
        when none was, or the call failed)."""
        distil = self.facts.enabled
        if self.summary.batch > 0:  # with no summary kept, no turn waits for one
            self.summary.waiting += dropped
        due = self.summary.due()
        if distil and due and self.combine:  # the waiting turns read again, these among them
            return min(await self._combined(self.summary.waiting), len(_numbers(dropped)))
        distilled = await self._distil(list(dropped)) if distil else 0
        if due:
            await self._summarise(self.summary.waiting)
        return distilled

    # -- the calls ----------------------------------------------------------------------------

    async def _distil(self, turns: list[StoredTurn]) -> int:
        read = self._read(turns, DISTIL_KINDS)
        system = f"{FACTS_ASK}\n\n{FACTS_FORM}"
        request = _request(system, _turns_text(read, None), 96 + 64 * MOST_FACTS)
        answer = await self.side.ask(DISTIL_TASK, request, schema=FACTS_SCHEMA)
        parsed, failure = _parse(answer)
        return self._record_facts(read, answer, parsed, failure)

    async def _summarise(self, turns: list[StoredTurn]) -> None:
        read = self._read(turns, SUMMARY_KINDS)
        system = self._summary_ask()
        request = _request(system, _turns_text(read, self.summary.newest), self._summary_tokens())
        answer = await self.side.ask(SUMMARY_TASK, request)
        text, failure = answer.text.strip(), None
        if answer.failure is not None:
            failure = f"the call failed: {answer.failure}"
        elif not text:
            failure = "the answer was empty"
        self._record_summary(read, answer, text, failure, combined=False)

    async def _combined(self, turns: list[StoredTurn]) -> int:
        read = self._read(turns, SUMMARY_KINDS)
        system = f"{FACTS_ASK}\n\n{self._summary_ask()}\n\n{COMBINED_FORM}"
        tokens = 96 + 64 * MOST_FACTS + self._summary_tokens()
        request = _request(system, _turns_text(read, self.summary.newest), tokens)
        answer = await self.side.ask(DISTIL_TASK, request, schema=COMBINED_SCHEMA)
        parsed, failure = _parse(answer)
        distilled = self._record_facts(read, answer, parsed, failure)
        summary = parsed.summary.strip() if parsed is not None else ""
        if failure is None and not summary:
            failure = "the answer's summary was empty"
        self._record_summary(read, answer, summary, failure, combined=True)
        return distilled

    # -- what they read and record -------------------------------------------------------------

    def _read(self, turns: list[StoredTurn], kinds: frozenset[str]) -> list[StoredTurn]:
        """The turns' entries of ``kinds``, newest turns kept when they are more than a call
        may read (the oldest are left out whole)."""
        limit = int((self._window() or DEFAULT_WINDOW) * 4 * INPUT_SHARE)
        kept: list[StoredTurn] = []
        used = 0
        for turn in reversed(turns):
            entries = [entry for entry in turn.entries if entry.kind in kinds]
            size = sum(min(utf8_len(entry.text), ENTRY_BYTES) for entry in entries)
            if kept and used + size > limit:
                break
            kept.insert(0, StoredTurn(turn.number, entries, 0))
            used += size
        return kept

    def _summary_ask(self) -> str:
        so_far = SO_FAR if self.summary.newest is not None else ""
        return SUMMARY_ASK.format(words=self._summary_bytes() // 6, so_far=so_far)

    def _summary_bytes(self) -> int:
        window = self._window() or DEFAULT_WINDOW
        return max(SUMMARY_FLOOR, int(window * SUMMARY_SHARE * 4))

    def summary_room(self) -> int:
        """The tokens a requests' summary may take at most: its header and a version as long as
        it is asked to be, by the planner's estimate (four bytes a token)."""
        return (len(SUMMARY_HEADER.encode()) + 16 + self._summary_bytes()) // 4

    def _summary_tokens(self) -> int:
        return self._summary_bytes() // 3  # room for words longer than four bytes a token

    def _record_facts(
        self,
        read: list[StoredTurn],
        answer: SideAnswer,
        parsed: Distilled | None,
        failure: str | None,
    ) -> int:
        entries = [e for turn in read for e in turn.entries if e.kind in DISTIL_KINDS]
        details = ContextDistillation(
            turns=_numbers(read), entries=[entry.id for entry in entries], bytes=answer.bytes,
            facts=[], seconds=answer.seconds, model=answer.model,
        )  # fmt: skip
        if answer.think is not None:
            details.think = answer.think
        changes: list[Details] = []
        if failure is None and parsed is not None:
            sources = [source.event for entry in entries for source in entry.sources]
            changes = self._book(parsed.facts, [entry.id for entry in entries], sources)
            details.facts = [c.id for c in changes if isinstance(c, FactRecorded)]
        else:
            details.failure = failure or "no answer"
        self.recorder.record(details)
        self.facts.record(changes)
        return len(details.turns) if failure is None else 0

    def _book(
        self, facts: list[DistilledFact], entries: list[int], sources: list[str]
    ) -> list[Details]:
        """The facts the answer gave, in the conversation's book; those about a subject a
        distiller may not use, or without a name or a value, are passed over."""
        changes: list[Details] = []
        for fact in facts[:MOST_FACTS]:
            subject, name = fact.subject.strip().lower(), fact.name.strip()[:NAME_CHARS]
            if subject not in SUBJECTS or not fact.value.strip():
                continue
            if not name and subject in NAMELESS:
                name = "current"
            try:
                changes += self.facts.book.record(
                    subject, name, fact.value.strip()[:VALUE_CHARS], source="model",
                    method="distilled", fact_class="dynamic", detail="distilled",
                    entries=entries, sources=sources,
                )  # fmt: skip
            except FactError:
                continue  # no name: nothing to keep it under
        return changes

    def _record_summary(
        self,
        read: list[StoredTurn],
        answer: SideAnswer,
        text: str,
        failure: str | None,
        *,
        combined: bool,
    ) -> None:
        newest = self.summary.newest
        covered = tuple(dict.fromkeys([*(newest.turns if newest else ()), *_numbers(read)]))
        text = cut_to_bytes(text, self._summary_bytes())
        details = ContextSummary(
            turns=_numbers(read),
            entries=[entry.id for turn in read for entry in turn.entries],
            bytes=answer.bytes,
            covered=len(covered) if failure is None else len(newest.turns if newest else ()),
            summary_bytes=utf8_len(text) if failure is None else 0,
            seconds=answer.seconds,
            model=answer.model,
            combined=combined,
        )
        if answer.think is not None:
            details.think = answer.think
        if failure is not None:
            details.failure = failure
            self.recorder.record(details)
            return  # the turns wait for the next batch
        version = (newest.version if newest else 0) + 1
        details.version = version
        event = self.recorder.record(details)
        self.summary.written(SummaryVersion(version, text, covered, event))


DISTIL_KINDS = frozenset({"prompt", "command", "response"})
"""What the distillation reads of a turn: what the person said and what the model answered."""
SUMMARY_KINDS = DISTIL_KINDS | {"toolCalls"}
"""What the summary reads: those, and the calls the model made."""


def _numbers(turns: Sequence[StoredTurn]) -> list[int]:
    return [turn.number for turn in turns if turn.number is not None]


def _request(system: str, text: str, max_tokens: int) -> ChatRequest:
    messages = [Message(role="system", content=system), Message(role="user", content=text)]
    return ChatRequest(messages, temperature=0.0, max_tokens=max_tokens)


def _turns_text(turns: list[StoredTurn], so_far: SummaryVersion | None) -> str:
    """The turns as a call reads them: one block a turn, each entry on its own lines, cut to
    ``ENTRY_BYTES``; after the summary so far, when there is one."""
    parts: list[str] = []
    if so_far is not None:
        parts.append(f"The summary so far:\n{so_far.text}")
    for turn in turns:
        lines = [f"Turn {turn.number}:"]
        lines += [_entry_text(entry) for entry in turn.entries]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _entry_text(entry: Entry) -> str:
    match entry.kind:
        case "prompt":
            said = f"The person: {entry.text}"
        case "command":
            said = entry.text
        case "toolCalls":
            calls = entry.value  # type: ignore[union-attr]
            said = "\n".join(
                f"The assistant called {call.name} {json.dumps(call.arguments)}"
                for call in calls  # type: ignore[union-attr]
            )
        case _:
            said = f"The assistant: {entry.text}"
    return cut_to_bytes(said, ENTRY_BYTES)


_DECODER = msgspec.json.Decoder(Distilled)


def _parse(answer: SideAnswer) -> tuple[Distilled | None, str | None]:
    """The answer's JSON object, or why there is none (the call failed, or the answer was not
    the object asked for)."""
    if answer.failure is not None:
        return None, f"the call failed: {answer.failure}"
    try:
        return json_answer(answer.text, _DECODER), None
    except ValueError as exc:
        return None, str(exc)
