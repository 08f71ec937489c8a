"""Calls wisp makes to a model of its own accord (docs/models.md, "Routed tasks").

A side call is one request in a session of its own: it never enters the conversation, and the
conversation's requests never see its prompt or its answer. Each goes through the router (the
model named for its task, else wisp's measured default, else the conversation's), is recorded as
``model.routed`` before it, and asks a model that can think not to (``think: false``). The
caller records what the call was for (``context.assessment``, ``context.distillation``,
``context.summary``, ``context.memory``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from wisp.agent.types import (
    ChatRequest,
    ModelError,
    ModelUnavailable,
    ResolvedModel,
    TextDelta,
    message_bytes,
)

if TYPE_CHECKING:
    from wisp.agent.assessment import Router
    from wisp.agent.recorder import Recorder

FitRequest = Callable[[int | None], ChatRequest]
"""A request made for the routed model's window (its tokens; None when it is unknown): a
caller whose input may be long cuts it to fit the model it gets (``wisp draft``)."""

Shown = Callable[[str], None]
"""Handed each piece of a side call's reply text as it streams (``wisp draft`` on a terminal)."""


class SideAnswer(msgspec.Struct, kw_only=True):
    """What one side call gave: its answer, or why there is none."""

    text: str = ""
    model: str = ""
    """The model asked (its selection); empty when none could be had."""
    think: bool | None = None
    """False when the model can think and was asked not to; None when it has no switch."""
    failure: str | None = None
    """Why the call failed (the router found no model, the model failed): None when it
    answered."""
    bytes: int = 0
    """The request's prompt."""
    seconds: float = 0.0


class SideCalls:
    """Side calls for one conversation: routed, recorded, never part of its context."""

    def __init__(
        self,
        recorder: Recorder,
        router: Router | None,
        conversation: Callable[[], ResolvedModel | None],
    ) -> None:
        """``conversation`` gives the conversation's model, the router's last resort; None for
        a session with no conversation (``wisp scan --thorough``), where the router's own
        last resort (``local``) stands."""
        self.recorder = recorder
        self.router = router
        self._conversation = conversation

    async def ask(
        self,
        task: str,
        request: ChatRequest | FitRequest,
        *,
        schema: dict[str, Any] | None = None,
        shown: Shown | None = None,
    ) -> SideAnswer:
        """``request`` (its ``task`` set to ``task``) on the model routed for ``task``, held to
        ``schema`` where the model can be; the answer, or why none came. ``request`` may be
        made for the routed model's window (``FitRequest``); ``shown`` is handed the reply's
        text as it streams. Never raises a model's failure: a side call that fails leaves the
        turn going on."""
        started = time.monotonic()
        answer = SideAnswer()
        try:
            model, request = await self._routed(
                task, request, structured=schema is not None, answer=answer
            )
            request = msgspec.structs.replace(request, task=task)
            answer.model = model.selection
            if "reasoning" in model.capabilities:
                answer.think = False  # a thinking model is asked not to, as side calls are
                request = msgspec.structs.replace(request, think=False)
            if schema is not None and "guidedGeneration" in model.capabilities:
                request = msgspec.structs.replace(request, schema=schema)
            answer.text = await reply_text(model, request, shown)
        except ModelError as exc:
            answer.failure = str(exc) or type(exc).__name__
        answer.seconds = round(time.monotonic() - started, 3)
        return answer

    async def _routed(
        self, task: str, request: ChatRequest | FitRequest, *, structured: bool, answer: SideAnswer
    ) -> tuple[ResolvedModel, ChatRequest]:
        """The model routed for ``task`` and the request, made for its window when it is a
        ``FitRequest``; ``model.routed`` recorded with the request's bytes (in ``answer``)."""
        if isinstance(request, ChatRequest):
            answer.bytes = request_bytes(request)
        conversation = self._conversation()
        if self.router is None:  # no router handed in (a test's conversation): its own model
            if conversation is None:
                raise ModelUnavailable(f"no model to route {task} to")
            return conversation, _fitted(request, conversation, answer)
        routed = await self.router.model_for(
            task, structured=structured, input_bytes=answer.bytes, conversation=conversation
        )
        fitted = _fitted(request, routed.model, answer)
        routed.routed.input_bytes = answer.bytes
        self.recorder.record(routed.routed)
        return routed.model, fitted


def _fitted(
    request: ChatRequest | FitRequest, model: ResolvedModel, answer: SideAnswer
) -> ChatRequest:
    """The request as sent to ``model``, its bytes put in ``answer``."""
    if isinstance(request, ChatRequest):
        return request
    fitted = request(model.context_size)
    answer.bytes = request_bytes(fitted)
    return fitted


def request_bytes(request: ChatRequest) -> int:
    """A request's prompt, in UTF-8 bytes as it is carried."""
    return sum(message_bytes(message) for message in request.messages)


async def reply_text(model: ResolvedModel, request: ChatRequest, shown: Shown | None = None) -> str:
    """The reply's text, each piece handed to ``shown`` as it comes; a call or thinking in it
    is no answer and is passed over."""
    parts: list[str] = []
    async with contextlib.aclosing(model.backend.stream(request)) as events:
        async for event in events:
            if isinstance(event, TextDelta):
                parts.append(event.text)
                if shown is not None:
                    shown(event.text)
    return "".join(parts)


Parsed = TypeVar("Parsed")


def json_answer(reply: str, decoder: msgspec.json.Decoder[Parsed]) -> Parsed:
    """The JSON object in a model's reply, fenced or with prose around it, decoded; a
    ``ValueError`` saying why there is none (a small model unheld by a grammar wraps its JSON
    in words as often as not)."""
    text = reply.strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError(f"the answer was not a JSON object: {text[:80]!r}")
    try:
        return decoder.decode(text[start : end + 1])
    except msgspec.DecodeError as exc:
        raise ValueError(f"the answer did not fit ({exc}): {text[:80]!r}") from exc
