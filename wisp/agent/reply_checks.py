"""The checks under a reply, run for one ``Conversation`` as each turn is stored
(docs/turn.md, "Lines under a reply").

As a turn is stored its trail of audited events is taken from the recorder, and its
``toolCalls`` entries are linked to the ``tool.call`` events of their calls. After a reply the
trail gives ``ran:``, the store checks what the reply cites, and the reply's claims of actions
are verified against the trail's calls (``response.verification``, after ``response``; none
under ``verification.mode`` ``off``). The lines themselves are computed in ``checks.py``.

Before a reply is taken as the turn's answer, the ``answers`` reader tells whether it answers
at all (``unanswered``): one that follows the turn's results and uses none of them is asked
once more (docs/turn.md, "An answer that answers").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING

from wisp.agent import checks
from wisp.agent.asking_again import QUOTED_RESULTS_BYTES, cut_to, failed_saying_why, turn_results
from wisp.agent.events import TurnResult
from wisp.agent.turn_state import TurnState
from wisp.audit.event import AuditEvent
from wisp.audit.kinds import ResponseVerification, VerifiedClaim
from wisp.store import PendingEntry, Source, ToolOutputValue

if TYPE_CHECKING:
    from wisp.agent.loop import Conversation


UNANSWERED_NUDGE = "Your reply ({reply}) does not answer my question."
"""The opening of the request asked again after a reply that answers nothing (sent only when
the turn has no results to answer from: ``asking_again.answer_request``)."""


UNREAD_NUDGE = (
    "You answered without reading {name}. Read it with read_file first, then answer my "
    "question: {question}"
)
"""Sent (not stored) with the next request, tools offered, after a reply about a file the
model never read."""
UNLOOKED_NUDGE = (
    "You answered without looking: my question is about this computer, and only a tool can "
    "tell. Call {tool} first, then answer my question: {question}"
)
"""Sent (not stored) with the next request, tools offered, after a reply with no call to a
question about this computer (the ``answers`` reader's ``about_this_computer``)."""
EDIT_REFUSED_NUDGE = (
    "Your edit_file call was refused, so nothing was changed:\n```\n{result}\n```\nWhat to "
    "correct is said there: make the call again, corrected, or say why you cannot. My question "
    "was: {question}"
)
"""Sent (not stored) with the next request, tools offered, after a reply that follows a refused
``edit_file`` call and calls nothing."""
COMMAND_FAILED_NUDGE = (
    "Your command `{command}` failed, so it did not answer my question:\n```\n{result}\n```\n"
    "Find the answer another way ({ways}), or say why you cannot. My question was: {question}"
)
"""Sent (not stored) with the next request, tools offered, after a reply that follows a command
of the model's own choosing that failed and said why, and calls nothing."""
ANNOUNCED_NUDGE = (
    "You said what you would do, but made no call. Make the call now, then answer my question: "
    "{question}"
)
"""Sent (not stored) with the next request, tools offered, after a reply that only says what
the model will do next ("I need to read the file utils.py.") and calls nothing."""
EDIT_CORRECTABLE = "; nothing was changed"
"""What ``edit_file`` says of a refusal the model can correct from what it is shown (no place,
a text not found, a JSON or TOML file it would break); a FIFO or a path with a NUL it cannot."""


class ReplyChecks:
    """Links a stored turn's calls to its trail, and checks its reply against them."""

    def __init__(self, conversation: Conversation) -> None:
        self.conversation = conversation
        self.trail: list[AuditEvent] = []
        """The last stored turn's trail events, oldest first."""

    def link_calls(self, turn: TurnState, source: Callable[[str], Source]) -> None:
        """Take the turn's trail; a toolCalls entry's sources: the ``tool.call`` events of its
        calls (``source`` makes each event's ``Source``)."""
        self.trail = self.conversation.recorder.take_turn(turn.number)
        for index, entry in enumerate(turn.pending):
            if entry.kind == "toolCalls":
                sources = tuple(
                    source(turn.call_events[c.id])
                    for c in entry.value  # type: ignore[attr-defined]
                    if c.id in turn.call_events
                )
                turn.pending[index] = PendingEntry(entry.kind, entry.value, sources, entry.time)

    def check(self, result: TurnResult, text: str) -> None:
        """``ran:`` from the turn's audit trail, ``cited`` against the store, and the reply's
        claims of actions against the trail's calls (``response.verification``, after
        ``response``; none under ``verification.mode`` ``off``)."""
        conversation = self.conversation
        outcomes = checks.call_outcomes(self.trail)
        result.ran = checks.ran_line(outcomes, text, conversation.tool_names)
        citations = checks.cited_entries(text)
        result.unknown_entries = checks.unknown_entries(citations, conversation.store.has)
        result.cited = checks.cited_line(result.unknown_entries, capped=citations.capped)
        if conversation.config.settings.verification.mode == "off":
            return
        # Imported at the first reply: its patterns take longer to compile than wisp's first
        # status would wait for them.
        from wisp.agent.verification import verify

        found = verify(text, self.trail, conversation.working_directory)
        if found is not None:
            conversation.recorder.record(found.details)
            result.verification = found.line

    def reminder(self, turn: TurnState, text: str) -> str | None:
        """The reminder to send with the next request, tools offered, when ``text`` answers
        without having looked or after giving up: with no call made in the turn, to a question
        that names a file in the working folder (Qwen2.5-Coder-0.5B explained "the error in
        app.log" without reading it) or asks about this computer in so many words ("Which file
        in this folder contains…": it named a folder of a Windows machine); or right after a
        refused ``edit_file`` call. Once a turn. Besides, once a turn too, a reply that only
        says what the model will do next and calls nothing, with tools offered, is told to make
        the call: Qwen2.5-Coder-1.5B, sent back to read a file, answered "I need to read the
        file utils.py." and stopped. ``response.verification`` is recorded (status
        ``unanswered``). Never once the tools were withdrawn; None under
        ``verification.mode`` ``off``."""
        conversation = self.conversation
        if turn.looped is not None or conversation.config.settings.verification.mode == "off":
            return None
        from wisp.agent.verification import answers  # at the first reply, as in ``check``

        question = str(turn.pending[0].value)
        reminder = None if turn.reminded else self._looked_or_corrected(turn, question)
        if reminder is not None:
            turn.reminded = True
        elif not turn.urged and turn.offered and answers.announces(text):
            turn.urged = True
            why = "it says what it will do, and makes no call"
            reminder = why, ANNOUNCED_NUDGE.format(question=question.strip())
        if reminder is None:
            return None
        why, nudge = reminder
        claim = VerifiedClaim(reader=answers.NAME, claim=answers.quoted(text), reason=why)
        details = ResponseVerification(
            method="readers", status="unanswered", claims=[claim], calls=len(turn.calls),
            seconds=0.0,
        )  # fmt: skip
        conversation.recorder.record(details)
        return nudge

    def _looked_or_corrected(self, turn: TurnState, question: str) -> tuple[str, str] | None:
        if turn.calls:
            return _edit_refused(turn, question) or _command_failed(turn, question)
        conversation = self.conversation
        return _looking(question, conversation.working_directory, conversation.tool_names)

    def unanswered(self, turn: TurnState, text: str) -> str | None:
        """When ``text``, the turn's reply, follows the turn's tool results and answers nothing
        (the ``answers`` reader: thanks, a refusal, an acknowledgement, using none of them):
        ``response.verification`` is recorded (status ``unanswered``) and the message to ask
        again with is returned. None when the reply may be the answer, or under
        ``verification.mode`` ``off``."""
        conversation = self.conversation
        if conversation.config.settings.verification.mode == "off":
            return None
        from wisp.agent.verification import answers  # at the first reply, as in ``check``

        started = time.perf_counter()
        outputs = [o for o in turn_results(turn) if o.tool not in answers.NOT_RESULTS]
        if not outputs:
            return None

        question = str(turn.pending[0].value)
        why = answers.unanswered(text, question, [output.text for output in outputs])
        if why is None:
            return None
        claim = VerifiedClaim(reader=answers.NAME, claim=answers.quoted(text), reason=why)
        seconds = round(time.perf_counter() - started, 6)
        details = ResponseVerification(
            method="readers", status="unanswered", claims=[claim], calls=len(turn.calls),
            seconds=seconds,
        )  # fmt: skip
        conversation.recorder.record(details)
        return UNANSWERED_NUDGE.format(reply=answers.quoted(text))


def _looking(question: str, folder: Path, tools: Collection[str]) -> tuple[str, str] | None:
    """Why a reply with no call did not look, and the reminder to look; None when it need not
    (or no tool is there to look with)."""
    from wisp.agent.verification import answers

    name = answers.unread_file(question, folder) if "read_file" in tools else None
    if name is not None:
        why = f"it answers about {name} without reading it"
        return why, UNREAD_NUDGE.format(name=name, question=question.strip())
    if "run_command" in tools and answers.about_this_computer(question):
        why = "it answers about this computer without looking"
        return why, UNLOOKED_NUDGE.format(tool="run_command", question=question.strip())
    return None


def _edit_refused(turn: TurnState, question: str) -> tuple[str, str] | None:
    """When the turn's last result is an ``edit_file`` call refused in a way the model can
    correct (Qwen2.5-Coder-1.5B sent ``replace`` with no ``find``, was shown the file's lines,
    and explained the error), why the reply leaves the change undone and the reminder to make
    the call again; else None."""
    last = turn.pending[-1].value
    if not isinstance(last, ToolOutputValue) or last.tool != "edit_file":
        return None
    if not last.text.startswith("error:") or EDIT_CORRECTABLE not in last.text:
        return None
    result = cut_to(last.text.strip(), QUOTED_RESULTS_BYTES)
    nudge = EDIT_REFUSED_NUDGE.format(result=result, question=question.strip())
    return "it answers after edit_file was refused, and changed nothing", nudge


def _command_failed(turn: TurnState, question: str) -> tuple[str, str] | None:
    """When the turn's last result is a command the model chose (the question does not quote
    it) that exited non-zero and said why on stderr, why the reply leaves the question open and
    the reminder to find the answer another way; else None. Qwen2.5-Coder-0.5B ran `ls legacy
    cache` for a text inside a file, and Qwen2.5-Coder-1.5B `pip show` on a file's name, and
    each reported the failure as its answer. A command the person named is theirs: its failure
    is the answer. One that failed silently (``grep`` finding nothing, ``test``) may have
    answered, and one the policy refused begins ``error:``: neither is sent back; nor is one
    after a request for an action ("Build it"), whose failure is what the person must hear."""
    from wisp.agent.verification import answers  # at the first reply, as in ``check``

    if not answers.ASKS_FOR_SOMETHING.search(question):
        return None
    last = turn.pending[-1].value
    if not isinstance(last, ToolOutputValue) or last.tool != "run_command":
        return None
    call = turn.calls.get(last.call_id)
    command = call.arguments.get("command") if call is not None else None
    if not isinstance(command, str) or not command.strip() or command.strip() in question:
        return None
    if not failed_saying_why(last.text):
        return None
    result = cut_to(last.text.strip(), QUOTED_RESULTS_BYTES)
    others = [spec.name for spec in turn.offered if spec.name != "run_command"]
    ways = "another command" + (f", or another tool: {', '.join(others)}" if others else "")
    nudge = COMMAND_FAILED_NUDGE.format(
        command=command.strip(), result=result, ways=ways, question=question.strip()
    )
    return "it answers after its command failed, and the question is still open", nudge
