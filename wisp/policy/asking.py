"""Putting the model's questions to the person (docs/turn.md, "The model's questions"): what every
face shares.

``pick_option`` reads an answer against a question's options the same way on every face and in
the ``ask`` tool; ``NobodyAsker`` is the asker of a face with no one to ask (``wisp respond``).
"""

from __future__ import annotations

import msgspec

from wisp.policy.types import QuestionAnswer


def pick_option(text: str, options: list[str]) -> int | None:
    """The option ``text`` picks, numbered from 1, or None when it picks none.

    An option's text (any case, outer spaces ignored) wins over a number, so options that are
    themselves numbers (``["10", "20"]``) are picked by what they say.
    """
    wanted = text.strip().casefold()
    for number, option in enumerate(options, start=1):
        if option.strip().casefold() == wanted:
            return number
    if wanted.isdecimal() and 1 <= int(wanted) <= len(options):
        return int(wanted)
    return None


class NobodyAsker(msgspec.Struct):
    """The asker where no one can be asked: every question is refused before it is put."""

    reason: str = "nobody to ask"
    """Why, as the refusal says it: ``error: no one can be asked here (<reason>)``."""
    can_ask: bool = False
    ways: list[str] = msgspec.field(default_factory=list)
    """The seed's ``ways``: empty, since nobody can be asked."""

    async def ask(
        self, question: str, options: list[str], timeout: float | None
    ) -> QuestionAnswer | None:
        return None
