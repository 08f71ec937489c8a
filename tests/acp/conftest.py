"""A real ``wisp acp`` process driven by the official SDK's client side over stdio."""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import WISP
from tests.hang import HANG
from tests.mcp.conftest import terminal  # noqa: F401  (a fixture: wisp approvals' terminal)
from tests.models.conftest import loopback, ollama  # noqa: F401  (fixtures: a fake Ollama)

Answer = Callable[[Any], Awaitable[Any]]
"""How the client answers a permission request: the request's tool call and options in, the
response's outcome out."""


def write_script(folder: Path, responses: list[dict[str, Any]], name: str = "script") -> Path:
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"responses": responses}))
    return path


class RecordingClient:
    """Records every session update and permission request; answers each request with
    ``answer`` (set by the test)."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.permissions: list[Any] = []
        self.asked = asyncio.Event()
        self.answer: Answer | None = None

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        from acp.schema import RequestPermissionResponse

        self.permissions.append((session_id, tool_call, options))
        self.asked.set()
        assert self.answer is not None, "a permission request the test did not expect"
        return RequestPermissionResponse(outcome=await self.answer(options))

    def on_connect(self, conn: Any) -> None:
        pass

    def kinds(self) -> list[str]:
        return [update.session_update for _, update in self.updates]

    def message(self) -> str:
        return "".join(
            update.content.text
            for _, update in self.updates
            if update.session_update == "agent_message_chunk"
        )

    def forget(self) -> None:
        self.updates.clear()
        self.permissions.clear()
        self.asked.clear()


def chosen(option_id: str) -> Any:
    from acp.schema import AllowedOutcome

    return AllowedOutcome(outcome="selected", option_id=option_id)


def cancelled() -> Any:
    from acp.schema import DeniedOutcome

    return DeniedOutcome(outcome="cancelled")


Spawn = Callable[..., Any]


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A folder outside ``/tmp`` (which every command may write to), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="wisp-acp-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def spawn(wisp_env: dict[str, str], tmp_path: Path) -> Spawn:
    """``async with spawn(args) as (conn, client)``: an initialized connection to a fresh
    ``wisp acp ARGS`` started in ``tmp_path/work``."""
    from acp import PROTOCOL_VERSION, spawn_agent_process

    work = tmp_path / "work"
    work.mkdir(exist_ok=True)

    @asynccontextmanager
    async def open_agent(args: list[str]) -> AsyncIterator[tuple[Any, RecordingClient]]:
        client = RecordingClient()
        async with spawn_agent_process(
            client, str(WISP), "acp", *args, env=wisp_env, cwd=str(work)
        ) as (conn, _process):
            async with asyncio.timeout(HANG):
                await conn.initialize(protocol_version=PROTOCOL_VERSION)
            yield conn, client

    return open_agent


async def until(condition: Callable[[], object]) -> None:
    """Once ``condition()`` holds, looking every 10 ms, bounded by HANG."""
    async with asyncio.timeout(HANG):
        while not condition():
            await asyncio.sleep(0.01)
