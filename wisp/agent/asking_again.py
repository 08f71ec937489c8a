"""Asking the model once more for the turn's answer (docs/turn.md, "An answer that answers"):
after a reply with nothing to show, after one that answers nothing, and after a call repeated
straight after its result. One request, no tools, never stored.

When the turn has results, the request stands alone (``answer_request``): a plain system line
and one message holding the question, what was done and what it gave, and the request for an
answer. A small model answers from a short text far better than from the end of a transcript
of calls: Qwen2.5-Coder-0.5B, its ``ls -l`` run, answered "list the files, then tell me their
names" with the command again at the end of the conversation, and with the three names in a
request of its own; so for 37 lines counted from a read (it said 10) and the error in a log.
Without results, the conversation is sent as it is, with the nudge last (``restated``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from wisp.agent.events import Emit, TextFragment
from wisp.agent.prompt import tool_specs
from wisp.agent.turn_state import Reply, TurnState
from wisp.agent.types import ChatRequest, Message, ModelError, ToolCall
from wisp.store import ToolOutputValue

if TYPE_CHECKING:
    from wisp.agent.loop import Conversation

EMPTY_REPLY_NUDGE = "Your reply was empty."
"""The opening of the request asked again when a reply ends with nothing (``restated``: sent
only when the turn has no results)."""
NO_ANSWER = "the model gave no answer (its reply was empty, and again when asked once more)"
CUT_NUDGE = "Your reply ran on without end and was cut off."
"""The opening of the request asked again when a reply was cut before any of it was shown
(``restated``: sent only when the turn has no results)."""
CUT_UNSEEN = (
    "the model's reply was cut before any of it could be shown ({}): it was writing something "
    "that looked like a tool call and never finished it, and gave no answer when asked once more"
)
QUOTED_RESULTS_BYTES = 1536
"""Of the turn's results, at most this much is quoted in a request for the answer (about 400
tokens)."""
QUESTION_CHARACTERS = 400
"""The question is restated up to this many characters."""
CUT_RESULT = "… (cut here; the whole result is above)"
ANSWER_INSTRUCTIONS = "You are a helpful assistant."
"""The system line of a request for the answer that stands alone: Qwen's own default, and no
word of tools (there are none to call)."""
ANSWER_FROM_RESULTS = "Answer the question from these results, in plain text. Do not show commands."
"""The last line of that request: a small model asked for an answer otherwise shows the
command it ran ("```ls -l```")."""
DONE = "This was already done for you:"
ALL_FAILED = "This was tried, and it failed:"
TELL_WHAT_FAILED = "Tell me in plain text what failed and why. Do not show commands."
"""In place of ``DONE`` and ``ANSWER_FROM_RESULTS`` when every result failed. Asked for the
answer from failures alone, Qwen2.5-Coder-1.5B invented one ("0.1.0" for the version in a
pyproject.toml only `pip show` had been tried on), and Qwen2.5-Coder-0.5B read "already done"
as done ("The command `sudo apt-get update` was already done for you."), and a line telling it
not to guess came back as its answer ("do not guess."). Asked what failed, both said so."""


def answer_request(conversation: Conversation, turn: TurnState, opening: str) -> ChatRequest:
    """The one request asked again, no tools offered (each still withheld, so a call is read
    as one): standing alone when the turn has results, else the conversation with
    ``opening`` and the question restated last. Neither is stored."""
    specs = tool_specs(conversation.tools, conversation.resolved.context_size)
    results = turn_results(turn, failed=True)
    if results:
        asked = from_results(turn, results, conversation.earlier_question())
        messages = [
            Message(role="system", content=ANSWER_INSTRUCTIONS),
            conversation.facts.lead(Message(role="user", content=asked)),  # facts hold too
        ]
        return ChatRequest(messages, withheld=specs, schema=turn.schema)
    messages = conversation.messages(turn.pending)
    messages.append(Message(role="user", content=restated(turn, opening)))
    return ChatRequest(messages, withheld=specs, schema=turn.schema, kept_in_prompt=turn.offered)


def from_results(
    turn: TurnState, results: Sequence[ToolOutputValue], earlier: str | None = None
) -> str:
    """The message of a request for the answer that stands alone: the earlier question (what
    "it" may point to), the question, what was done with what it gave (a refusal too: it is
    what the person must be told of), and the request for the answer; when every result
    failed, "tried, and it failed" and the request to say what failed and why."""
    parts = [f"Earlier I asked: {_cut(earlier)}"] if earlier else []
    parts.append(f"Question: {_cut(str(turn.pending[0].value))}\n")
    failed = all(_failed(output) for output in results)
    parts.append(ALL_FAILED if failed else DONE)
    parts.append(quoted_results([(_done(turn.calls.get(o.call_id), o), o.text) for o in results]))
    parts.append(TELL_WHAT_FAILED if failed else ANSWER_FROM_RESULTS)
    return "\n".join(parts)


def _failed(output: ToolOutputValue) -> bool:
    """Whether a call failed: refused (``error:``), or a command that failed saying why."""
    return output.text.startswith("error:") or failed_saying_why(output.text)


def _done(call: ToolCall | None, output: ToolOutputValue) -> str:
    """What was done, in the person's words: "I ran `ls -l`; its output", "I called read_file
    with {"path": "a.txt"}; it gave", "…; it failed"."""
    failed = _failed(output)
    arguments = call.arguments if call is not None else {}
    command = arguments.get("command") if output.tool == "run_command" else None
    if isinstance(command, str):
        return f"I tried `{command}`; it failed" if failed else f"I ran `{command}`; its output"
    made = f"I called {output.tool}" + (f" with {json.dumps(arguments)}" if arguments else "")
    return f"{made}; it failed" if failed else f"{made}; it gave"


def failed_saying_why(result: str) -> bool:
    """Whether a ``run_command`` result is a non-zero exit with text on stderr, and not one the
    person stopped: a failure that says why (``grep`` finding nothing says nothing)."""
    first, _, rest = result.partition("\n")
    status = first.removeprefix("exit status: ")
    if status == first or status.strip() in ("0", ""):
        return False
    return "\nstderr:\n" in f"\n{rest}" and "stopped: the person stopped" not in rest


def restated(turn: TurnState, opening: str) -> str:
    """A nudge for a turn without results: ``opening``, the question restated, and the
    request for a plain answer."""
    question = _cut(str(turn.pending[0].value))
    return f"{opening}\nMy question was: {question}\nAnswer it now, in plain text."


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


def quoted_results(done: Sequence[tuple[str, str]], budget: int = QUOTED_RESULTS_BYTES) -> str:
    """Each distinct (what was done, what it gave) as the line saying it and the output in a
    fenced block; together within ``budget`` bytes, each cut to its share and saying so."""
    distinct = list(dict.fromkeys((label, text.strip()) for label, text in done))
    share = max(budget // len(distinct), 64)
    return "\n".join(f"{label}:\n```\n{cut_to(text, share)}\n```" for label, text in distinct)


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


async def _ask_again(
    conversation: Conversation, turn: TurnState, emit: Emit, opening: str
) -> Reply:
    """The one request asked again (``answer_request``), composed when it is sent."""
    return await conversation.send(turn, lambda: answer_request(conversation, turn, opening), emit)
