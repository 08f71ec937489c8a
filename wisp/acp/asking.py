"""The client as one way to ask the person: a command's approval and a question with options as
``session/request_permission``, each raced by the CLI against the request filed out of band
(``wisp approvals``, ``wisp questions``, wisp-tui). A ``cancelled`` outcome is no answer: the
client cancelled the turn, so the turn stops (docs/acp.md, "Approvals and questions")."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from acp import text_block, tool_content
from acp.schema import ToolCallLocation, ToolCallUpdate

from wisp.acp.permission import (
    TurnCancelled,
    answer_of,
    approval_content,
    approval_options,
    approval_title,
    guidance_accepted,
    guidance_options,
    question_answer_of,
    question_options,
)
from wisp.policy.types import Answer, ApprovalQuestion, QuestionAnswer

if TYPE_CHECKING:
    from wisp.acp.agent import Session, WispAgent


class ClientWays:
    """The ``alongside`` ways of one session (the CLI hands them to its approver and asker)."""

    def __init__(self, agent: WispAgent, session: Callable[[], Session]) -> None:
        self.agent = agent
        self.session = session

    async def approve(self, question: ApprovalQuestion) -> Answer | None:
        session = self.session()
        call = session.updates.current_call or "approval"
        tool_call = ToolCallUpdate(
            tool_call_id=call,
            title=approval_title(question),
            kind="execute",
            status="pending",
            content=approval_content(question),
            raw_input={"command": question.line or question.command},
        )
        outcome = await self._ask(session, tool_call, approval_options())
        try:
            return answer_of(outcome)
        except TurnCancelled:
            return await _stop(session)

    async def ask(self, question: str, options: list[str]) -> QuestionAnswer | None:
        """A question with options; one without is left to the way out of band (None)."""
        if not options:
            return None
        session = self.session()
        tool_call = ToolCallUpdate(
            tool_call_id=session.updates.current_call or "question",
            title=f"wisp's model asks: {question}",
            kind="think",
            status="pending",
            content=[tool_content(text_block(question))],
        )
        outcome = await self._ask(session, tool_call, question_options(options))
        try:
            return question_answer_of(outcome, options)
        except TurnCancelled:
            return await _stop(session)

    async def accept_guidance(self, path: str, size: int, reason: str, text: str) -> bool | None:
        """A guidance file shown whole before the first turn: whether to use it; None when
        the client cancelled (docs/turn.md, "Guidance files")."""
        session = self.session()
        tool_call = ToolCallUpdate(
            tool_call_id="guidance",
            title=f"Use the guidance in {path}? ({size:,} bytes, {reason})",
            kind="read",
            status="pending",
            content=[tool_content(text_block(text))],
            locations=[ToolCallLocation(path=path)],
        )
        return guidance_accepted(await self._ask(session, tool_call, guidance_options()))

    async def _ask(self, session: Session, tool_call: ToolCallUpdate, options: list[Any]) -> Any:
        if session.sender is not None:
            await session.sender.drained()  # the call it names is sent first
        response = await self.agent.conn.request_permission(
            session_id=session.id, tool_call=tool_call, options=options
        )
        return response.outcome


async def _stop(session: Session) -> Any:
    """Stop the turn and wait: the stop cancels this wait, and nothing runs."""
    session.conversation.stop()
    await asyncio.Event().wait()
