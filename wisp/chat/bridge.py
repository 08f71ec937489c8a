"""Approvals, questions and choices asked over the protocol, and their answers routed by id
(docs/protocol.md, "7. Approvals, choices, questions and stopping").

One table holds every waiter, keyed by id. An answer that arrives before its waiter is kept
(the 32 newest); a withdrawn id is remembered (the 256 newest), so a late answer is dropped.
The plain chat uses the same bridge: its terminal is one more front end.
"""

from __future__ import annotations

import asyncio
import os
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from wisp.policy.approvers import ApprovalRefused, parse_answer
from wisp.policy.types import Answer, ApprovalQuestion, QuestionAnswer

EARLY_ANSWERS = 32
WITHDRAWN_IDS = 256
NO_APPROVE_EFFECT = "the front end declared no approve effect"
NO_ASK_EFFECT = "the front end declared no ask effect"
INPUT_ENDED = "no answer: the front end's input ended"


def new_id() -> str:
    return os.urandom(4).hex()


class Withdrawn(Exception):
    """The id no longer waits."""


class Waiters:
    """Whoever waits for an id gets the ``answer`` or ``choose`` that names it."""

    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._early: OrderedDict[str, Any] = OrderedDict()
        self._withdrawn: OrderedDict[str, None] = OrderedDict()

    def deliver(self, key: str, value: Any) -> None:
        """An answer arrived: to its waiter, or kept until one registers."""
        if key in self._withdrawn:
            return  # a late answer to a closed dialog
        future = self._waiting.pop(key, None)
        if future is not None and not future.done():
            future.set_result(value)
            return
        self._early[key] = value
        while len(self._early) > EARLY_ANSWERS:
            self._early.popitem(last=False)

    async def wait(self, key: str) -> Any:
        if key in self._withdrawn:
            raise Withdrawn(key)
        if key in self._early:
            return self._early.pop(key)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[key] = future
        try:
            return await future
        finally:
            self._waiting.pop(key, None)

    def withdraw(self, key: str) -> None:
        self._withdrawn[key] = None
        while len(self._withdrawn) > WITHDRAWN_IDS:
            self._withdrawn.popitem(last=False)
        self._early.pop(key, None)

    def withdraw_all(self) -> None:
        """Every waiter stops waiting (the session ends): each gets ``Withdrawn``."""
        for key, future in list(self._waiting.items()):
            self.withdraw(key)
            if not future.done():
                future.set_exception(Withdrawn(key))

    @property
    def pending(self) -> list[str]:
        return list(self._waiting)


class ProtocolApprover:
    """The gate's approver for a chat: an ``approval`` line out, an ``answer`` back."""

    def __init__(
        self,
        waiters: Waiters,
        *,
        show: Callable[[str, ApprovalQuestion], None],
        withdrawn: Callable[[str], None],
    ) -> None:
        self.waiters = waiters
        self.show = show
        self.withdrawn = withdrawn
        self.can_ask = True
        self.refusal: str | None = None
        """Set when the front end cannot approve (a ``hello`` without ``approve``)."""

    async def ask(self, question: ApprovalQuestion, timeout: float | None) -> Answer | None:
        if self.refusal is not None:
            raise ApprovalRefused(self.refusal)
        key = new_id()
        self.show(key, question)
        try:
            value = await self.waiters.wait(key)
        except asyncio.CancelledError:
            # Stopped or timed out (the gate's limit cancels the wait): the dialog closes.
            self.waiters.withdraw(key)
            self.withdrawn(key)
            raise
        except Withdrawn:
            self.withdrawn(key)
            raise ApprovalRefused(INPUT_ENDED) from None
        decision = getattr(value, "decision", None)
        # An answer without a decision is "no".
        return parse_answer(decision if isinstance(decision, str) else "no")


class ProtocolAsker:
    """The ``ask`` tool's asker for a chat: a ``question`` line out, an ``answer`` back."""

    def __init__(
        self,
        waiters: Waiters,
        *,
        show: Callable[[str, str, list[str], float | None], None],
        withdrawn: Callable[[str], None],
        note: Callable[[str], None],
        ways: list[str] | None = None,
        via: str = "json",
    ) -> None:
        self.waiters = waiters
        self.show = show
        self.withdrawn = withdrawn
        self.note = note
        self.can_ask = True
        self.reason = NO_ASK_EFFECT
        self.ways = ways or ["json"]
        self.via = via

    async def ask(
        self, question: str, options: list[str], timeout: float | None
    ) -> QuestionAnswer | None:
        key = new_id()
        self.show(key, question, options, timeout)
        try:
            while True:
                try:
                    answer = await self.waiters.wait(key)
                except Withdrawn:
                    self.withdrawn(key)
                    return None  # nobody is left to answer: no answer
                if getattr(answer, "declined", None) is True:
                    return QuestionAnswer(declined=True)
                text = getattr(answer, "text", None)
                text = text.strip() if isinstance(text, str) else ""
                if options and text and text not in options and not _is_number(text, options):
                    # A text that is not an option leaves the question waiting.
                    self.note(f"error: {text!r} is not one of the options: {', '.join(options)}")
                    continue
                return QuestionAnswer(text=text)
        except BaseException:
            self.waiters.withdraw(key)
            self.withdrawn(key)
            raise


def _is_number(text: str, options: list[str]) -> bool:
    return text.isdigit() and 1 <= int(text) <= len(options)
