"""A prompt's updates, sent in order: the turn hands them over as it runs (its callbacks cannot
wait), one task writes them, and a request about a call waits for what came before it."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


class UpdateSender:
    def __init__(self, conn: Any, session_id: str) -> None:
        self.conn = conn
        self.session_id = session_id
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.task = asyncio.ensure_future(self._send())

    def put(self, update: Any) -> None:
        self.queue.put_nowait(update)

    async def drained(self) -> None:
        """Once every update put so far is written."""
        await self.queue.join()

    async def close(self) -> None:
        """Write what is left, then stop."""
        self.queue.put_nowait(None)
        await self.task

    async def _send(self) -> None:
        while True:
            update = await self.queue.get()
            try:
                if update is None:
                    return
                # A client gone mid-turn loses its updates; the turn still ends and is stored.
                with contextlib.suppress(Exception):
                    await self.conn.session_update(session_id=self.session_id, update=update)
            finally:
                self.queue.task_done()
