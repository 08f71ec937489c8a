"""What the tests of ``wisp approvals`` and ``wisp questions`` share: a pseudo-terminal for the
command's stdin (both answer only at one), the real command run while this process's loop keeps
waiting, and a wait for what this process filed."""

from __future__ import annotations

import asyncio
import os
import pty
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import WISP
from tests.hang import HANG
from wisp.desk.channel import list_waiting


@pytest.fixture
def terminal() -> Iterator[int]:
    """A pseudo-terminal's far end, to be a child's stdin."""
    controller, child_end = pty.openpty()
    yield child_end
    os.close(child_end)
    os.close(controller)


async def first_waiting(home: Path, kind: Any) -> Any:
    """The oldest request of ``kind`` filed under ``home``, once there is one."""
    async with asyncio.timeout(HANG):
        while not (filed := list_waiting(home, kind)):
            await asyncio.sleep(0.01)
    return filed[0]


async def answering(
    env: dict[str, str], command: str, *args: str, stdin: int = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    """The real `wisp COMMAND ARGS`, run while this process's loop keeps waiting."""
    process = await asyncio.create_subprocess_exec(
        str(WISP), command, *args, env=env, stdin=stdin, stdout=-1, stderr=-1
    )
    async with asyncio.timeout(HANG):
        out, err = await process.communicate()
    assert process.returncode is not None
    result = subprocess.CompletedProcess(args, process.returncode, out.decode(), err.decode())
    assert "Traceback" not in result.stderr, result.stderr
    return result
