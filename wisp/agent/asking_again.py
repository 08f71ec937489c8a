"""Asking the model once more for the turn's answer (docs/turn.md, "An answer that answers"):
after a reply with nothing to show, and after one that answers nothing. One request, no tools,
a nudge sent last and never stored."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wisp.agent.events import Emit, TextFragment
from wisp.agent.prompt import tool_specs
from wisp.agent.turn_state import Reply, TurnState
from wisp.agent.types import ChatRequest, Message, ModelError

if TYPE_CHECKING:
    from wisp.agent.loop import Conversation

EMPTY_REPLY_NUDGE = (
    "Your reply was empty. Answer my last message now, in plain text, from what you already "
    "know and the results above."
)
"""Sent (not stored) when a reply ends with nothing, for the one request asked again."""
NO_ANSWER = "the model gave no answer (its reply was empty, and again when asked once more)"
CUT_NUDGE = (
    "Your reply ran on without end and was cut off. Answer my last message now, in plain "
    "text, from what you already know and the results above."
)
"""Sent (not stored) when a reply was cut before any of it was shown, for the one request
asked again."""
CUT_UNSEEN = (
    "the model's reply was cut before any of it could be shown ({}): it was writing something "
    "that looked like a tool call and never finished it, and gave no answer when asked once more"
)


async def answer_after_silence(
    conversation: Conversation,
    turn: TurnState,
    emit: Emit,
    nudge: str = EMPTY_REPLY_NUDGE,
    failure: str = NO_ANSWER,
) -> str:
    """The model ended its reply with nothing to show (small models do: an empty reply, or
    one cut while it ran away in what looked like a call): it is asked once more, with no
    tools and a plain request for the answer. Nothing again fails the turn with a message
    saying so, never a silent, empty answer."""
    reply = await _ask_again(conversation, turn, emit, nudge)
    if reply.calls or not reply.text.strip():
        raise ModelError(failure)
    return reply.text


async def answer_that_answers(
    conversation: Conversation, turn: TurnState, emit: Emit, text: str
) -> str:
    """A reply after the turn's results that answers nothing ("Thank you!") is asked once
    more, the question restated and the results pointed to (docs/turn.md, "An answer that
    answers"); the reply shown stays, the new one follows it. Nothing again: it stands."""
    nudge = conversation.checks.unanswered(turn, text)
    if nudge is None:
        return text
    emit(TextFragment("\n\n"))
    reply = await _ask_again(conversation, turn, emit, nudge)
    return reply.text if reply.text.strip() and not reply.calls else text


async def _ask_again(conversation: Conversation, turn: TurnState, emit: Emit, nudge: str) -> Reply:
    """The one request asked again: no tools, and ``nudge`` (sent, not stored) last."""
    specs = tool_specs(conversation.tools, conversation.resolved.context_size)

    def asked_again() -> ChatRequest:
        messages = conversation.messages(turn.pending)
        messages.append(Message(role="user", content=nudge))
        return ChatRequest(messages, withheld=specs, schema=turn.schema)

    return await conversation.send(turn, asked_again, emit)
