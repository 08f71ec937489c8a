"""A real ``wisp mcp`` process driven by the official SDK's client over stdio."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import WISP

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
