"""A thread's parked questions (docs/mcp.md, "The model's questions"): asked in an earlier
``respond`` whose hold lapsed before the person answered, and still filed for ``wisp
questions``.

The thread's ``ask`` tool keeps them (it is built with the thread's conversation by the CLI, so
it is found among the conversation's tools, by what it can do). At the start of the thread's
next ``respond`` it settles each one answered, declined or past its time; the notes it gives
lead that turn's prompt, so the turn's requests carry them and the audit's ``prompt`` shows
them: wisp's words, bracketed, ahead of the calling agent's. When the thread ends the rest are
withdrawn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from wisp.agent.loop import Conversation

__all__ = ["ParkedQuestions", "with_answers", "withdraw_parked"]


@runtime_checkable
class ParkedQuestions(Protocol):
    """What the ``ask`` tool does for the questions it parked (``wisp.tools.ask.AskTool``)."""

    def deliver_parked(self, record: Callable[[Any], object]) -> list[str]: ...

    def withdraw_parked(self, record: Callable[[Any], object]) -> None: ...


def _keepers(conversation: Conversation) -> list[ParkedQuestions]:
    return [tool for tool in conversation.tools if isinstance(tool, ParkedQuestions)]


def with_answers(conversation: Conversation, prompt: str) -> str:
    """``prompt``, led by a note for each parked question that settled since the last turn
    (``[the person answered your earlier question "…": …]``), each recorded on the thread."""
    record = conversation.recorder.record
    notes = [note for keeper in _keepers(conversation) for note in keeper.deliver_parked(record)]
    return "\n".join([*notes, "", prompt]) if notes else prompt


def withdraw_parked(conversation: Conversation) -> None:
    """The thread ends: its parked questions are withdrawn, each recorded."""
    for keeper in _keepers(conversation):
        keeper.withdraw_parked(conversation.recorder.record)
