"""Plain chat's asker: the model's question on the terminal, one line read.

The chat lends its own line reader, so the answer is read from the same input as prompts and
Ctrl-C still stops the turn (the ``ask`` tool records ``stopped``). What the person may type:

    a number or an option's text (any case)   picks that option
    any text, when there are no options        is the answer
    an empty line                              no answer (outcome ``none``)
    /decline, or the end of input              declines

A text that is not an option is asked again. See docs/turn.md, "The model's questions".
"""

from __future__ import annotations

from collections.abc import Callable

from wisp.policy.approvers import ReadLine, escape_controls  # escaped like the approval dialog
from wisp.policy.asking import pick_option
from wisp.policy.types import QuestionAnswer

DECLINE = "/decline"


class TerminalAsker:
    """Asks on the terminal: the question, its numbered options, then one line."""

    can_ask = True
    via = "terminal"
    """The inquiry events' ``via``: where its answers come from."""

    def __init__(self, readline: ReadLine, write: Callable[[str], None]) -> None:
        """``readline`` returns the next input line, None at the end of input; ``write``
        prints one line."""
        self._readline = readline
        self._write = write
        self.ways = ["terminal"]
        """``inquiry.requested``'s ``ways``: how this face asks."""

    async def ask(
        self, question: str, options: list[str], timeout: float | None
    ) -> QuestionAnswer | None:
        self._show(question, options, timeout)
        while True:
            line = await self._readline()
            if line is None or line.strip().lower() == DECLINE:
                return QuestionAnswer(declined=True)
            text = line.strip()
            if not text or not options:
                return QuestionAnswer(text=text)
            number = pick_option(text, options)
            if number is not None:
                return QuestionAnswer(text=options[number - 1])
            self._write(
                f'"{escape_controls(text)}" is not one of the options; '
                f"type 1–{len(options)}, an option's text, or {DECLINE}"
            )

    def _show(self, question: str, options: list[str], timeout: float | None) -> None:
        self._write(f"? {escape_controls(question)}")
        for number, option in enumerate(options, start=1):
            self._write(f"  {number}. {escape_controls(option)}")
        how = "a number or an option's text" if options else "your answer"
        within = f" within {timeout:g} s" if timeout is not None else ""
        self._write(f"  (type {how}{within}; an empty line skips, {DECLINE} declines)")
