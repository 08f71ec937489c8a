"""A draft's request: the task's instructions, then what it gathered, each input cut to its
share of what the routed model's window leaves (docs/draft.md, "Sizes")."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from wisp.agent.types import ChatRequest, Message
from wisp.draft.tasks import DraftTask

DEFAULT_WINDOW = 4096
"""The window assumed of a model that reports none (tokens)."""
INPUT_BYTES_PER_TOKEN = 3
"""Code and diffs take more tokens a byte than prose: wisp's usual four would overfill."""
FRAMING_TOKENS = 96
"""The chat template's markers and the inputs' labels."""
LEAST_INPUT_BYTES = 512
MOST_INPUT_BYTES = 64 * 1024
"""However large the window, a draft reads at most this much: more is slow, and a commit
message or a summary says no more for it."""
TEMPERATURE = 0.0
"""The same inputs give the same draft (and the tests of the embedded model a steady one)."""


class Gathered(msgspec.Struct, frozen=True):
    """One input as gathered: its label and its text."""

    label: str
    text: str


class Cut(msgspec.Struct, frozen=True):
    """An input cut to fit: its label, the bytes kept and the bytes it had."""

    label: str
    kept: int
    whole: int


def input_budget(task: DraftTask, window: int | None) -> int:
    """The bytes of input a request of ``task`` may carry on a model of ``window`` tokens."""
    instructions = -(-len(task.instructions.encode()) // INPUT_BYTES_PER_TOKEN)
    tokens = (window or DEFAULT_WINDOW) - task.reply_tokens - instructions - FRAMING_TOKENS
    return max(LEAST_INPUT_BYTES, min(MOST_INPUT_BYTES, tokens * INPUT_BYTES_PER_TOKEN))


def fit(pieces: Sequence[Gathered], budget: int) -> tuple[list[Gathered], list[Cut]]:
    """The pieces within ``budget`` bytes in all, and the cuts: the smallest first, each kept
    whole when it fits its share of what is left, else cut to it (at a line's end where one is
    near), so that a short input (the last commits' subjects) is never cut for a long one."""
    fitted: list[Gathered] = list(pieces)
    cuts: dict[int, Cut] = {}
    left = budget
    order = sorted(range(len(pieces)), key=lambda index: len(pieces[index].text.encode()))
    for remaining, index in zip(range(len(order), 0, -1), order, strict=True):
        share = left // remaining
        data = pieces[index].text.encode()
        if len(data) <= share:
            left -= len(data)
            continue
        kept = _cut(data, share)
        left -= len(kept)
        cuts[index] = Cut(pieces[index].label, len(kept), len(data))
        marker = f"\n[cut here: {len(kept):,} of {len(data):,} bytes shown]"
        fitted[index] = Gathered(pieces[index].label, kept.decode(errors="ignore") + marker)
    return fitted, [cuts[index] for index in sorted(cuts)]


def _cut(data: bytes, size: int) -> bytes:
    """``data``'s first ``size`` bytes, ended at a line's end when one is in their second half."""
    head = data[:size]
    end = head.rfind(b"\n")
    return head[: end + 1] if end >= size // 2 else head


class DraftPrompt:
    """A task's request, made for the window of the model it is routed to (a side call's
    ``FitRequest``); ``cuts`` says what the last one cut."""

    def __init__(self, task: DraftTask, pieces: Sequence[Gathered]) -> None:
        self.task = task
        self.pieces = list(pieces)
        self.cuts: list[Cut] = []

    def request(self, window: int | None) -> ChatRequest:
        fitted, self.cuts = fit(self.pieces, input_budget(self.task, window))
        said = [f"{piece.label}:\n{piece.text.rstrip() or '(nothing)'}" for piece in fitted]
        messages = [
            Message(role="system", content=self.task.instructions),
            Message(role="user", content="\n\n".join([*said, self.task.ask])),
        ]
        return ChatRequest(messages, temperature=TEMPERATURE, max_tokens=self.task.reply_tokens)
