"""``memory``'s ``summarise`` and ``condense``: an entry or a stored output read through a routed
model call (docs/turn.md, "Facts", the memory tool's forms).

The text goes to the model in chunks of numbered lines, each within the output budget B: one
call a chunk (routed as ``summarise`` or ``condense``), then, when more than one chunk answered,
one call that combines their answers. A chunk whose call fails or answers nothing is counted;
the answer says which lines it could not read. The calls are side calls: they never enter the
conversation, and what the tool returns is an ordinary result.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec

from wisp.agent.types import ChatRequest, ConversationView, Message, ToolContext
from wisp.audit.kinds import ContextMemory

SUMMARISE_TASK, CONDENSE_TASK = "summarise", "condense"
OUTPUT_ID = re.compile(r"\boutput\s+([0-9a-f]{8})\b")
"""A stored output named by its call's id: ``output 3f2a9c1e``."""
NUMBER = re.compile(r"\d+")
OutputText = Callable[[ConversationView, str], "tuple[Any, str, str] | None"]
"""A stored output's entry, text and source by its id (``memory._output_text``)."""
MOST_CHUNKS = 16
"""A longer text is read this far, and the answer says how much was left."""
NOTABLE = (
    "give its notable lines: the outcome, the first error of each failure with where it is, "
    "warnings and counts, each quoted with its line number"
)
OVERVIEW = "give an overview of what it holds, in a few sentences"
ASK = (
    "Below are lines {first}-{last} of {what}, each after its number. Read them and {question}. "
    "Cite the line numbers you use. If these lines hold nothing for it, answer: nothing here."
)
COMBINE = (
    "Below are answers, each from some lines of {what}. Combine them into one answer: "
    "{question}. Keep the line numbers they cite; leave out the parts with nothing."
)
CHUNK_REPLY_TOKENS = 384


class Reading(msgspec.Struct, kw_only=True):
    """What a pass over a text gave."""

    answer: str
    chunks: int
    """The chunks the model was given."""
    failed: list[tuple[int, int]]
    """The lines of each chunk whose call failed or answered nothing."""
    left: int
    """Lines past the last chunk read (``MOST_CHUNKS``)."""
    model: str
    failure: str | None = None
    """The last call's failure, when every chunk failed."""

    @property
    def failure_word(self) -> str | None:
        """How many chunks failed, as ``context.memory`` records it; None when none did."""
        return f"{len(self.failed)} of {self.chunks} chunks failed" if self.failed else None


def chunks_of(text: str, budget: int) -> list[tuple[int, int, str]]:
    """The text's lines numbered from 1, in chunks of at most ``budget`` bytes: (first line,
    last line, the numbered lines). A line longer than a chunk is cut to fit one."""
    chunks: list[tuple[int, int, str]] = []
    lines: list[str] = []
    first, used = 1, 0
    for number, line in enumerate(text.split("\n"), start=1):
        numbered = f"{number}: {line}"
        size = len(numbered.encode()) + 1
        if size > budget:
            numbered = numbered.encode()[: budget - 2].decode(errors="ignore") + "…"
            size = budget
        if lines and used + size > budget:
            chunks.append((first, number - 1, "\n".join(lines)))
            lines, first, used = [], number, 0
        lines.append(numbered)
        used += size
    if lines:
        chunks.append((first, first + len(lines) - 1, "\n".join(lines)))
    return chunks


async def read_through_model(
    side: object, task: str, what: str, text: str, question: str, budget: int
) -> Reading:
    """``text`` (named ``what``) read chunk by chunk through ``side`` (the conversation's
    ``SideCalls``) for ``question``; the answers combined into one."""
    chunks = chunks_of(text, budget)
    read, left = chunks[:MOST_CHUNKS], chunks[MOST_CHUNKS:]
    answers: list[tuple[int, int, str]] = []
    failed: list[tuple[int, int]] = []
    model, failure = "", None
    for first, last, lines in read:
        system = ASK.format(first=first, last=last, what=what, question=question)
        answer = await side.ask(task, _request(system, lines))  # type: ignore[attr-defined]
        model = answer.model or model
        if answer.failure is None and answer.text.strip():
            answers.append((first, last, answer.text.strip()))
        else:
            failed.append((first, last))
            failure = answer.failure or "the answer was empty"
    reading = Reading(
        answer="", chunks=len(read), failed=failed, model=model,
        left=sum(last - first + 1 for first, last, _ in left),
    )  # fmt: skip
    if not answers:
        reading.failure = failure
        return reading
    reading.answer = answers[0][2]
    if len(answers) > 1:
        parts = "\n\n".join(f"[lines {first}-{last}]\n{said}" for first, last, said in answers)
        system = COMBINE.format(what=what, question=question)
        combined = await side.ask(task, _request(system, parts))  # type: ignore[attr-defined]
        reading.answer = combined.text.strip() if combined.failure is None else ""
        reading.answer = reading.answer or parts  # the parts themselves when combining failed
    return reading


def summary_lines(
    view: ConversationView,
) -> tuple[list[str], list[str], list[int], list[str]] | None:
    """The running summary's versions as ``recall summary`` pages them, newest first: the
    header, the lines, the versions and their events; None when there is none."""
    summary = view.summary
    versions = list(reversed(summary.versions)) if summary is not None else []
    if not versions:
        return None
    lines: list[str] = []
    for version in versions:
        turns = version.turns
        span = f"turn {turns[0]}" if len(turns) == 1 else f"turns {turns[0]}-{turns[-1]}"
        lines.append(f"[version {version.version}, {len(turns)} turns: {span}]")
        lines.extend(version.text.split("\n"))
    header = [f"summary: {len(versions)} version{'s' if len(versions) != 1 else ''}, newest first"]
    events = [version.event for version in versions]
    return header, lines, [version.version for version in versions], events


# -- summarise and condense ---------------------------------------------------------------------


async def read(
    verb: str, rest: str, request: str, context: ToolContext, output_text: OutputText
) -> str:
    """``summarise TARGET [overview]`` and ``condense TARGET: QUESTION``, TARGET an entry or a
    stored output, read through a routed model call."""
    view = context.conversation
    record = ContextMemory(request=request, action=verb, found=False)
    if verb == "condense":
        target, colon, question = rest.partition(":")
        question = question.strip()
    else:
        target, colon = rest.partition(":")[0], ""
        overview = target.lower().rstrip().endswith("overview")
        target = target.strip().removesuffix("overview").strip() if overview else target
        question, record.summary = (OVERVIEW, "overview") if overview else (NOTABLE, "notable")
    target = target.strip()
    record.target = target
    failure, text = _read_failure(verb, target, colon, question, view)
    if failure is None:
        found, what = _reading_target(view, target, record, output_text)
        if found is None:
            failure, text = "target", f"error: {verb} found no {target or 'target'}: {what}"
        else:
            side = view.side_calls
            task = CONDENSE_TASK if verb == "condense" else SUMMARISE_TASK
            reading = await read_through_model(
                side, task, what, found, question, context.output_budget
            )
            record.found = True
            if verb == "condense":
                record.chunks = reading.chunks
            failure = reading.failure_word
            text = said(verb, target, reading) if reading.answer else (
                f"error: {verb} could not read {target}: every chunk failed ({reading.failure})"
            )  # fmt: skip
    if failure is not None:
        record.failure = failure
    record.bytes = len(text.encode())
    context.record(record)
    return text


def _read_failure(
    verb: str, target: str, colon: str, question: str, view: ConversationView
) -> tuple[str | None, str]:
    """Why a summarise or condense cannot run, as ``context.memory`` records it, and what the
    model is told; None when it can."""
    if not target or (verb == "condense" and not (colon and question)):
        form = "condense entry N: QUESTION" if verb == "condense" else "summarise entry N"
        return "shape", f"error: write {form} (or output ID in place of entry N)"
    if view.side_calls is None:
        hint = f'no model is attached to memory here; page through it with "recall {target}"'
        return "off", f"error: {verb} needs a model: {hint}"
    return None, ""


def _reading_target(
    view: ConversationView, target: str, record: ContextMemory, output_text: OutputText
) -> tuple[str | None, str]:
    """The text of ``target`` (an entry or a stored output) and what to call it, its id put in
    ``record``; None and why when there is none."""
    lowered = target.lower()
    if match := OUTPUT_ID.search(lowered):
        found = output_text(view, match[1])
        if found is None:
            return None, f"no output {match[1]} in this conversation"
        record.output = match[1]
        return found[1], f"the output {match[1]}"
    numbers = NUMBER.findall(lowered)
    entry = view.store.get(int(numbers[0])) if numbers else None
    if entry is None or entry.kind in ("instructions", "reasoning"):
        return None, "name an entry of this conversation or a stored output (output ID)"
    record.entries = [entry.id]
    return entry.text, f"entry {entry.id} (a {entry.kind} entry)"


def _request(system: str, text: str) -> ChatRequest:
    messages = [Message(role="system", content=system), Message(role="user", content=text)]
    return ChatRequest(messages, temperature=0.0, max_tokens=CHUNK_REPLY_TOKENS)


def said(action: str, target: str, reading: Reading) -> str:
    """The tool's result: a header naming what was read and by whom, the answer, and the lines
    it could not read."""
    chunks = f"{reading.chunks} chunk{'s' if reading.chunks != 1 else ''}"
    lines = [f"{action} {target} ({chunks} read by {reading.model or 'the model'}):"]
    lines.append(reading.answer)
    if reading.failed:
        spans = ", ".join(f"{first}-{last}" for first, last in reading.failed)
        lines.append(f"[lines {spans} could not be read: {reading.failure_word}]")
    if reading.left:
        lines.append(f"[{reading.left} later lines were not read: {MOST_CHUNKS} chunks at most]")
    return "\n".join(lines)
