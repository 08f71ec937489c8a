"""The lines under a reply, computed from the store and the audit trail.

Never from the model's word: ``ran:`` tallies the tool calls the audit recorded, ``cited but not
in this conversation:`` checks the entry numbers a reply cites against the store, and the
thought line measures the reasoning the backend streamed. None is audited: each can be derived
again from what is. See docs/turn.md, "Lines under a reply".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

import msgspec

from wisp.audit.details import Details
from wisp.audit.kinds import CommandOutcome, Error, PolicyDecision, ToolResult
from wisp.audit.kinds import ToolCall as ToolCallEvent

# -- cited entries ---------------------------------------------------------------------------

CITE_CAP = 100
CITE_GROUPS = 8

_NUM = r"#?[0-9]{1,9}(?:\s*[-–—]\s*#?[0-9]{1,9})?"
_SEP = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*&\s*)"
_CITATION = re.compile(rf"\b(?:entry|entries)\s+({_NUM}(?:{_SEP}{_NUM})*)", re.IGNORECASE)
_ITEM = re.compile(r"#?([0-9]{1,9})(?:\s*[-–—]\s*#?([0-9]{1,9}))?")


class Citations(msgspec.Struct, frozen=True):
    """The entry numbers a reply cites, in first-cited order, at most ``CITE_CAP`` of them."""

    numbers: list[int]
    capped: bool


def cited_entries(text: str) -> Citations:
    """Every entry number the text cites: `entry 7`, `entry #7`, `entries 3, 5-7, or 9`…"""
    numbers: dict[int, None] = {}
    for citation in _CITATION.finditer(text):
        for item in _ITEM.finditer(citation.group(1)):
            low = int(item.group(1))
            high = int(item.group(2)) if item.group(2) else low
            for number in range(min(low, high), max(low, high) + 1):
                if number not in numbers:
                    if len(numbers) == CITE_CAP:
                        return Citations(list(numbers), capped=True)
                    numbers[number] = None
    return Citations(list(numbers), capped=False)


def unknown_entries(citations: Citations, has_entry: Callable[[int], bool]) -> list[int]:
    """The cited numbers no stored entry has, in cited order."""
    return [number for number in citations.numbers if not has_entry(number)]


def cited_line(missing: Sequence[int], *, capped: bool) -> str | None:
    """``cited but not in this conversation: entries 19–30 (12)``, or None when none is missing."""
    if not missing:
        return None
    groups = _runs(sorted(set(missing)))
    shown = ", ".join(groups[:CITE_GROUPS])
    if len(groups) > CITE_GROUPS:
        shown += f", +{len(groups) - CITE_GROUPS} more"
    count = len(set(missing))
    noun = "entry" if count == 1 else "entries"
    line = f"cited but not in this conversation: {noun} {shown}"
    if count > 1:
        line += f" ({count})"
    if capped:
        line += f"; only the first {CITE_CAP} cited were checked"
    return line


def _runs(numbers: list[int]) -> list[str]:
    """Consecutive numbers as ``a–b`` (en dash), singles alone."""
    groups: list[str] = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        groups.append(str(start) if start == previous else f"{start}–{previous}")
        if number is not None:
            start = previous = number
    return groups


# -- ran: ------------------------------------------------------------------------------------

RAN_TOOLS = 6


class TrailEvent(Protocol):
    """What the checks read of a recorded event (``wisp.audit.event.AuditEvent``): its call id
    and its Details Struct."""

    @property
    def call(self) -> str | None: ...

    @property
    def details(self) -> Details: ...


class _Tally(msgspec.Struct):
    calls: int = 0
    failed: int = 0
    denied: int = 0
    declined: int = 0
    outcomes: list[str] = msgspec.field(default_factory=list)


def call_outcomes(events: Sequence[TrailEvent]) -> list[tuple[str, str]]:
    """(tool, outcome) for each of the model's tool calls, in order: ``succeeded``, ``failed``,
    ``denied`` or ``declined``, from what was recorded, never from the model's word."""
    # A command the person typed is never matched to the model's calls.
    model_events = [e for e in events if getattr(e.details, "origin", None) != "person"]
    consumed: set[int] = set()  # positions of policy.decision / command.outcome already matched
    results: list[tuple[str, str]] = []
    earlier: dict[bytes, str] = {}  # each call's tool and arguments: its last outcome
    for position, event in enumerate(model_events):
        if isinstance(event.details, ToolCallEvent):
            tool = event.details.tool
            same = msgspec.json.encode([tool, event.details.arguments])
            outcome = _outcome(event, event.details, model_events, position, consumed)
            if _repeated(event, model_events, position) and same in earlier:
                # Answered with the repeat note: the result was the same as before, and so is
                # what it did (a failed edit repeated changed nothing either).
                outcome = earlier[same]
            earlier[same] = outcome
            results.append((tool, outcome))
    return results


def _repeated(event: TrailEvent, events: list[TrailEvent], position: int) -> bool:
    """Whether the call's result is the repeat note (``tool.result`` with ``repeat``)."""
    for later in events[position + 1 :]:
        if later.call == event.call and isinstance(later.details, ToolResult):
            return not isinstance(later.details.repeat, msgspec.UnsetType)
    return False


def _outcome(
    event: TrailEvent,
    call: ToolCallEvent,
    events: list[TrailEvent],
    position: int,
    consumed: set[int],
) -> str:
    output: str | None = None
    errored = False
    for later in events[position + 1 :]:
        if later.call != event.call:
            continue
        if isinstance(later.details, Error):
            errored = True
            break
        if isinstance(later.details, ToolResult):
            output = later.details.output
            break
    if call.tool == "run_command":
        return _command_outcome(call, events, position, consumed, errored)
    if errored or output is None or output.startswith("error:"):
        return "failed"
    return "succeeded"


def _command_outcome(
    call: ToolCallEvent,
    events: list[TrailEvent],
    position: int,
    consumed: set[int],
    errored: bool,
) -> str:
    arguments = call.arguments
    command = arguments.get("command") if isinstance(arguments, dict) else None
    decision = _consume(events, position, consumed, PolicyDecision, command)
    outcome = _consume(events, position, consumed, CommandOutcome, command)
    if isinstance(decision, PolicyDecision) and decision.verdict != "allowed":
        return "declined" if decision.verdict.startswith("disapproved") else "denied"
    if errored or not isinstance(outcome, CommandOutcome):
        return "failed"
    if outcome.exit_status != 0 or outcome.timed_out:
        return "failed"
    return "succeeded"


def _consume(
    events: list[TrailEvent],
    position: int,
    consumed: set[int],
    kind: type[PolicyDecision] | type[CommandOutcome],
    command: object,
) -> Details | None:
    """The details of the first later event of ``kind`` for the same command; each is used
    once."""
    for later in range(position + 1, len(events)):
        details = events[later].details
        if later not in consumed and isinstance(details, kind) and details.command == command:
            consumed.add(later)
            return details
    return None


def ran_line(
    outcomes: Iterable[tuple[str, str]], reply: str, tool_names: Iterable[str]
) -> str | None:
    """``ran: read_file ×2 · run_command (1 failed)``; ``ran: no tools`` only when the reply
    names a tool it did not call; None otherwise."""
    tallies: dict[str, _Tally] = {}
    for tool, outcome in outcomes:
        tally = tallies.setdefault(tool, _Tally())
        tally.calls += 1
        if outcome in ("failed", "denied", "declined"):
            setattr(tally, outcome, getattr(tally, outcome) + 1)
    if not tallies:
        return "ran: no tools" if _names_a_tool(reply, tool_names) else None
    parts = [_part(tool, tally) for tool, tally in list(tallies.items())[:RAN_TOOLS]]
    if len(tallies) > RAN_TOOLS:
        parts.append(f"+{len(tallies) - RAN_TOOLS} more")
    return "ran: " + " · ".join(parts)


def _part(tool: str, tally: _Tally) -> str:
    text = tool if tally.calls == 1 else f"{tool} ×{tally.calls}"
    counts = [
        f"{count} {word}"
        for count, word in (
            (tally.failed, "failed"),
            (tally.denied, "denied"),
            (tally.declined, "declined"),
        )
        if count
    ]
    return f"{text} ({', '.join(counts)})" if counts else text


def _names_a_tool(reply: str, tool_names: Iterable[str]) -> bool:
    return any(
        re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", reply)
        for name in tool_names
    )


# -- the thought line ------------------------------------------------------------------------


def thought_line(seconds: float, tokens: int) -> str:
    """``∴ thought for 4.2 s, 42 tokens``."""
    noun = "token" if tokens == 1 else "tokens"
    return f"∴ thought for {seconds:.1f} s, {tokens} {noun}"
