"""The ``approve-mcp`` and ``keep-facts`` relay: commands waiting in ``wisp mcp`` servers, and
facts proposed there to keep, shown to this chat's front end and answered from it
(docs/protocol.md, "7. Approvals, choices, questions and stopping").

Every ``RELAY_SECONDS`` the pending folder under ``WISP_HOME`` is listed for each kind the front
end declared (which sweeps stale requests, recorded on this chat's log). Each new request
becomes an ``approval`` line with id ``mcp-<request>`` and ``source: "mcp"`` (a fact's with
``kind: "fact"``); one that stops waiting unanswered gets a ``withdrawn``. An answer is written
to the request's answer file (``via: tui``) on the desk's answering path
(``wisp.desk.answering``, as ``wisp approvals`` and ``wisp facts`` write their own) and
recorded as ``approval.answered`` under this chat's session; one the channel refuses gets a
note. A fact whose server has stopped is kept (or dropped) by this chat itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from wisp import protocol as p
from wisp.chat.bridge import Waiters, Withdrawn
from wisp.desk.answering import deliver
from wisp.desk.approval import APPROVAL, PendingRequest
from wisp.desk.channel import ChannelError, list_waiting
from wisp.desk.fact import DECISIONS, FACT, FactProposal, apply_handed_over, fact_line
from wisp.desk.kind import Filed, Kind
from wisp.policy.types import Answer

RELAY_SECONDS = 0.5
"""How often the pending folder is listed."""
RELAY_PREFIX = "mcp-"
EXACT_WORDS: dict[str, Answer] = {
    "once": "once",
    "session": "session",
    "project": "project",
    "always": "always",
    "no": "deny",
}
"""A relayed answer must be one of these words exactly; anything else is written as ``no``."""


class _Shown(msgspec.Struct):
    request: Filed
    kind: Kind[Any, Any, Any]
    waiter: asyncio.Task[None]
    answered: bool = False


class PendingRelay:
    """Relays the pending folder to the front end while the chat runs."""

    def __init__(
        self,
        home: Path,
        waiters: Waiters,
        *,
        emit: Callable[[p.Outbound], None],
        record: Callable[[Any], Any],
    ) -> None:
        self.home = home
        self.waiters = waiters
        self.emit = emit
        self.record = record
        self.kinds: list[Kind[Any, Any, Any]] = []
        """What it relays: ``APPROVAL`` after ``approve-mcp``, ``FACT`` after ``keep-facts``."""
        self._shown: dict[str, _Shown] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        tasks = [shown.waiter for shown in self._shown.values()]
        if self._task is not None:
            tasks.append(self._task)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._shown.clear()
        self._task = None

    async def _run(self) -> None:
        while True:
            self.look()
            await asyncio.sleep(RELAY_SECONDS)

    def relay(self, kind: Kind[Any, Any, Any]) -> None:
        """Relay ``kind`` too, from the next listing on."""
        if kind not in self.kinds:
            self.kinds.append(kind)

    def look(self) -> None:
        """One listing: new requests shown, vanished ones withdrawn."""
        waiting: dict[str, tuple[Filed, Kind[Any, Any, Any]]] = {}
        for kind in self.kinds:
            for request in list_waiting(self.home, kind, self.record):
                waiting[request.id] = (request, kind)
        for request_id, (request, kind) in waiting.items():
            if request_id not in self._shown:
                self._show(request, kind)
        for request_id in [known for known in self._shown if known not in waiting]:
            self._gone(request_id)

    def _show(self, request: Filed, kind: Kind[Any, Any, Any]) -> None:
        waiter = asyncio.get_running_loop().create_task(self._await_answer(request, kind))
        self._shown[request.id] = _Shown(request, kind, waiter)
        if isinstance(request, FactProposal):
            self.emit(fact_approval(request))
        else:
            assert isinstance(request, PendingRequest)
            self.emit(approval_line(request))

    def _gone(self, request_id: str) -> None:
        shown = self._shown.pop(request_id)
        if shown.answered:
            return  # its server took this chat's answer
        shown.waiter.cancel()
        key = RELAY_PREFIX + request_id
        self.waiters.withdraw(key)
        self.emit(p.Withdrawn(id=key))

    async def _await_answer(self, request: Filed, kind: Kind[Any, Any, Any]) -> None:
        try:
            value = await self.waiters.wait(RELAY_PREFIX + request.id)
        except Withdrawn:
            return  # the chat is ending: nobody answers here any more
        shown = self._shown.get(request.id)
        if shown is not None:
            shown.answered = True
        word = getattr(value, "decision", None)
        decision = exact_word(kind, word)
        try:  # the desk's answering path, as wisp approvals takes it
            answer = deliver(
                self.home, kind, request, decision, asked=request.id, via="tui",
                record=self.record,
            )  # fmt: skip
        except ChannelError as exc:
            self.emit(p.Note(text=f"the answer was not used: {exc}"))
            return
        if isinstance(request, FactProposal):
            applied = apply_handed_over(self.home, request, answer, self.record)
            if applied is not None:
                self.emit(p.Note(text=applied))


def relayed_kinds(effects: list[str]) -> list[Kind[Any, Any, Any]]:
    """The kinds a front end's ``hello`` asks relayed: commands after ``approve-mcp``, facts to
    keep after ``keep-facts``."""
    relayed = {p.Effect.APPROVE_MCP: APPROVAL, p.Effect.KEEP_FACTS: FACT}
    return [kind for effect, kind in relayed.items() if effect in effects]


def exact_word(kind: Kind[Any, Any, Any], word: Any) -> str:
    """A relayed answer must be one of the kind's words exactly; anything else refuses (``no``
    for a command, ``drop`` for a fact)."""
    if kind is FACT:
        return word if word in DECISIONS else "drop"
    return EXACT_WORDS.get(word, "deny") if isinstance(word, str) else "deny"


def fact_approval(request: FactProposal) -> p.Approval:
    """A fact to keep as the front end's ``approval`` line (``kind: "fact"``)."""
    line = fact_line(request)
    fact = p.ApprovalFact(
        id=request.fact, subject=request.subject, name=request.name, value=request.value,
        source=request.source,
    )  # fmt: skip
    return p.Approval(
        id=RELAY_PREFIX + request.id, command=line, line=line, pattern="", directory="",
        level="safe", source="mcp", thread=request.thread, client=request.client,
        request=request.id, kind="fact", fact=fact,
    )  # fmt: skip


def approval_line(request: PendingRequest) -> p.Approval:
    return p.Approval(
        id=RELAY_PREFIX + request.id,
        command=request.command,
        line=request.line,
        pattern=request.pattern,
        directory=request.directory,
        level=request.level,
        reasons=list(request.reasons),
        source="mcp",
        thread=request.thread,
        client=request.client,
        request=request.id,
    )
