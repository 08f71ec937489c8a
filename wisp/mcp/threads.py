"""The server's threads: conversations kept in memory by id, the least recently used beyond
``MAX_THREADS`` closed. Calls on one thread run in order; different threads run concurrently."""

from __future__ import annotations

import asyncio
import re
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import msgspec

from wisp.agent.loop import Conversation

MAX_THREADS = 32
THREAD_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class ThreadSpec(msgspec.Struct, frozen=True):
    """What a ``respond`` that starts a thread may choose; None leaves the server's choice."""

    instructions: str | None = None
    tools: list[str] | None = None
    model: str | None = None
    command_timeout_seconds: int | None = None


class OpenedThread(msgspec.Struct):
    """A thread's conversation, as the command line built it."""

    conversation: Conversation
    """Its recorder is the thread's own audit session; a call subscribes to it for its
    events (``Conversation.subscribe``)."""
    end: Callable[[str], Awaitable[None]]
    """Records ``session.end`` with the reason and lets go of what the thread holds."""


class Thread(msgspec.Struct):
    """One thread: its conversation, the lock its calls take in turn, the call it runs now."""

    id: str
    opened: OpenedThread | None = None
    lock: asyncio.Lock = msgspec.field(default_factory=asyncio.Lock)
    request: Any = None
    """The MCP request running on the thread now (its context), for elicitation and progress."""
    outputs: dict[str, str] = msgspec.field(default_factory=dict)
    """Each call's output as the model saw it, by call id."""
    closed: bool = False

    @property
    def conversation(self) -> Conversation:
        assert self.opened is not None
        return self.opened.conversation


class ThreadOpener(Protocol):
    """Builds a thread's conversation (the command line does): ``ThreadError`` when it
    cannot, with the message the client gets."""

    async def __call__(self, thread: Thread, spec: ThreadSpec) -> OpenedThread: ...


class ThreadError(Exception):
    """A call the thread cannot take: the message is the tool error the client gets."""


def new_thread_id() -> str:
    return "t-" + secrets.token_hex(6)


class Threads:
    """Threads by id, most recently used last."""

    def __init__(
        self,
        opener: ThreadOpener,
        limit: int = MAX_THREADS,
        *,
        ending: Callable[[Thread], None] | None = None,
    ) -> None:
        self._opener = opener
        self._limit = limit
        self._ending = ending
        """Called as a thread ends, before its session does (its parked questions withdrawn)."""
        self._threads: OrderedDict[str, Thread] = OrderedDict()

    def __contains__(self, thread_id: str) -> bool:
        return thread_id in self._threads

    def get(self, thread_id: str) -> Thread | None:
        return self._threads.get(thread_id)

    def all(self) -> list[Thread]:
        return list(self._threads.values())

    async def open(self, thread: Thread, spec: ThreadSpec) -> Thread:
        """Open ``thread`` (new, under its id), its conversation built; a call on the same id
        meanwhile waits for it. The least recently used beyond the limit is closed, reason
        ``evicted``."""
        self._threads[thread.id] = thread
        async with thread.lock:
            try:
                thread.opened = await self._opener(thread, spec)
            except BaseException:
                self._threads.pop(thread.id, None)
                raise
        await self._evict()
        return thread

    def touch(self, thread: Thread) -> None:
        if thread.id in self._threads:
            self._threads.move_to_end(thread.id)

    async def close(self, thread_id: str, reason: str = "closed") -> bool:
        """End a thread; False when there is none by that id."""
        thread = self._threads.pop(thread_id, None)
        if thread is None:
            return False
        await _end(thread, reason, self._ending)
        return True

    async def close_all(self) -> None:
        for thread_id in list(self._threads):
            await self.close(thread_id, "closed")

    async def _evict(self) -> None:
        while len(self._threads) > self._limit:
            oldest = next(iter(self._threads))
            await self.close(oldest, "evicted")


async def _end(thread: Thread, reason: str, ending: Callable[[Thread], None] | None = None) -> None:
    """End a thread once its running call, if any, is done."""
    async with thread.lock:
        if thread.closed or thread.opened is None:
            return
        thread.closed = True
        if ending is not None:
            ending(thread)
        await thread.opened.end(reason)
