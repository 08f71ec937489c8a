"""Asking the model once more for the turn's answer (docs/turn.md, "An answer that answers"):
after a reply with nothing to show, after one that answers nothing, and after a call's third
repeat. One request, no tools, a nudge sent last and never stored.

Every nudge ends the same way (``restated``): the turn's results quoted, then the question, then
the request for an answer. A small model reads the last message far better than a result three
messages up: Qwen2.5-Coder-0.5B called ``read_file`` three times over and then refused, and the
1.5B said "the output shows the names of the files" with the names two messages up.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from wisp.agent.events import Emit, TextFragment
from wisp.agent.prompt import tool_specs
from wisp.agent.turn_state import Reply, TurnState
from wisp.agent.types import ChatRequest, Message, ModelError
from wisp.store import ToolOutputValue

if TYPE_CHECKING:
    from wisp.agent.loop import Conversation

EMPTY_REPLY_NUDGE = "Your reply was empty."
"""Sent (not stored, ``restated``) when a reply ends with nothing, for the one request asked
again."""
NO_ANSWER = "the model gave no answer (its reply was empty, and again when asked once more)"
CUT_NUDGE = "Your reply ran on without end and was cut off."
"""Sent (not stored, ``restated``) when a reply was cut before any of it was shown, for the one
request asked again."""
CUT_UNSEEN = (
    "the model's reply was cut before any of it could be shown ({}): it was writing something "
    "that looked like a tool call and never finished it, and gave no answer when asked once more"
)
QUOTED_RESULTS_BYTES = 1536
"""Of the turn's results, at most this much is quoted in a nudge (about 400 tokens)."""
QUESTION_CHARACTERS = 400
"""The question is restated up to this many characters."""
CUT_RESULT = "… (cut here; the whole result is above)"


def restated(turn: TurnState, opening: str) -> str:
    """A nudge: ``opening``, the turn's results quoted (each distinct one once, the newest
    first to lose room; a refusal too, which the person must be told of: the 0.5B, its
    ``sudo`` denied and the tools withdrawn, explained how to run ``sudo``), the question
    restated, and the request for a plain answer."""
    results = turn_results(turn, failed=True)
    parts = [opening]
    if results:
        parts.append(quoted_results(results))
    parts.append(f"My question was: {_cut(str(turn.pending[0].value))}")
    source = "those results" if results else "what you already know"
    parts.append(f"Answer it now, in plain text, from {source}.")
    return "\n".join(parts)


def turn_results(turn: TurnState, *, failed: bool = False) -> list[ToolOutputValue]:
    """The outputs of the turn's calls that did not fail (``failed``: and of those that did),
    oldest first; of calls repeated with the same arguments, the first (the later ones carry
    the repeat note)."""
    seen: set[str] = set()
    results = []
    for entry in turn.pending:
        output = entry.value
        if not isinstance(output, ToolOutputValue):
            continue
        if output.text.startswith("error:") and not failed:
            continue
        call = turn.calls.get(output.call_id)
        made = json.dumps(call.arguments, sort_keys=True) if call else output.call_id
        key = f"{output.tool} {made}"
        if key not in seen:
            seen.add(key)
            results.append(output)
    return results


def quoted_results(outputs: Sequence[ToolOutputValue], budget: int = QUOTED_RESULTS_BYTES) -> str:
    """``The results of your calls:`` and each distinct output in a fenced block under its
    tool's name; together within ``budget`` bytes, each cut to its share and saying so."""
    distinct = list(dict.fromkeys((output.tool, output.text.strip()) for output in outputs))
    share = max(budget // len(distinct), 64)
    blocks = []
    for tool, text in distinct:
        text = cut_to(text, share)
        blocks.append(f"{tool} gave:\n```\n{text}\n```")
    return "The results of your calls:\n" + "\n".join(blocks)


def cut_to(text: str, budget: int) -> str:
    """``text`` within ``budget`` bytes, cut saying so (``CUT_RESULT``)."""
    if len(text.encode()) <= budget:
        return text
    return text.encode()[:budget].decode(errors="ignore").rstrip() + "\n" + CUT_RESULT


def _cut(question: str) -> str:
    question = question.strip()
    if len(question) <= QUESTION_CHARACTERS:
        return question
    return question[: QUESTION_CHARACTERS - 1] + "…"


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
    reply = await _ask_again(conversation, turn, emit, restated(turn, nudge))
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
        return ChatRequest(
            messages, withheld=specs, schema=turn.schema, kept_in_prompt=turn.offered
        )

    return await conversation.send(turn, asked_again, emit)
