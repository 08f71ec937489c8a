"""A real ``wisp mcp`` process driven by the official SDK's client over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import pty
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import WISP
from tests.hang import HANG

# A loopback Ollama, shared with tests/models: pytest gives a conftest's fixtures to its own
# folder only, so this one takes them in by name.
from tests.models.conftest import loopback, ollama  # noqa: F401

LEGACY = "legacy"
"""The SDK's initialize handshake (up to 2025-11-25): a server may ask mid-call."""
STATELESS = "2026-07-28"
"""The stateless revision: no server-to-client request during a call."""
ERAS = [LEGACY, STATELESS]


def write_script(folder: Path, responses: list[dict[str, Any]], name: str = "script") -> Path:
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"responses": responses}))
    return path


def write_config(home: Path, settings: dict[str, Any]) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text(json.dumps(settings))


Connect = Callable[..., Any]


@pytest.fixture
def connect(wisp_env: dict[str, str], tmp_path: Path) -> Connect:
    """``async with connect(args, mode=…, elicitation=…) as client``: a client of a fresh
    ``wisp mcp ARGS`` started in ``tmp_path/work``."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    work = tmp_path / "work"
    work.mkdir(exist_ok=True)

    @asynccontextmanager
    async def open_client(
        args: list[str], *, mode: str = LEGACY, elicitation: Any = None
    ) -> AsyncIterator[Any]:
        params = StdioServerParameters(
            command=str(WISP), args=["mcp", *args], env=wisp_env, cwd=str(work)
        )
        async with Client(params, mode=mode, elicitation_callback=elicitation) as client:
            yield client

    return open_client


@pytest.fixture
def terminal() -> Iterator[int]:
    """A pseudo-terminal's far end, to be a child's stdin (``wisp approvals`` answers only at
    a terminal)."""
    controller, child_end = pty.openpty()
    yield child_end
    os.close(child_end)
    os.close(controller)


async def waiting_request(home: Path) -> Any:
    """The first request filed under ``home/pending``, once there is one."""
    from wisp.desk.approval import APPROVAL
    from wisp.desk.channel import list_waiting

    async with asyncio.timeout(HANG):
        while not (requests := list_waiting(home, APPROVAL)):
            await asyncio.sleep(0.01)
    return requests[0]


async def approvals(env: dict[str, str], *args: str, stdin: int) -> str:
    """The real ``wisp approvals ARGS``; its stdout, once it succeeded."""
    process = await asyncio.create_subprocess_exec(
        str(WISP), "approvals", *args, env=env, stdin=stdin, stdout=-1, stderr=-1
    )
    async with asyncio.timeout(HANG):
        out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    return out.decode()
