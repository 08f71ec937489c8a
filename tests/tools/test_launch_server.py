"""The runner's long-lived servers (docs/sandbox.md, "Long-lived servers"): confined as the
model's commands are, with their environment plus the server's own, unconfined only where a
command would be or where the caller says why; a real MCP server (tests/sandbox/stdio_server.py)
through the real helper."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from mcp.client.session import ClientSession

from tests.hang import HANG
from wisp.policy.patterns import CommandPatterns
from wisp.sandbox.plan import probe_uncached
from wisp.sandbox.writable import WritableSet
from wisp.tools.command_runner import CommandRunner, CommandSettings

SERVER = [sys.executable, str(Path(__file__).parents[1] / "sandbox" / "stdio_server.py")]


def runner(tmp_path: Path, settings: CommandSettings) -> CommandRunner:
    environ = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "OPENAI_API_KEY": "sk-person-key",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    work, home = tmp_path / "work", tmp_path / "wisp-home"
    work.mkdir()
    home.mkdir()
    writable = WritableSet.build(working_directory=work, home=home, environ=environ)
    return CommandRunner(
        patterns=CommandPatterns.compile(),
        gate=None,
        writable=writable,
        support=probe_uncached(),
        settings=settings,
        environ=environ,
    )


async def variables(runner: CommandRunner, names: list[str], **launch: object) -> list[str]:
    """What the server sees of each variable, and how it was confined."""
    async with (
        asyncio.timeout(HANG),
        runner.launch_server(SERVER, cwd=runner.writable.roots[0], **launch) as server,  # type: ignore[arg-type]
        ClientSession(server.read, server.write) as session,
    ):
        await session.initialize()
        seen = []
        for name in names:
            result = await session.call_tool("variable", {"name": name})
            seen.append(result.content[0].text)  # type: ignore[union-attr]
    return [*seen, "confined" if server.state.sandbox else server.state.mechanism]


async def test_a_server_gets_the_model_commands_environment_and_its_own(tmp_path: Path) -> None:
    if probe_uncached().landlock_abi is None:
        pytest.skip("this kernel has no Landlock")
    seen = await variables(
        runner(tmp_path, CommandSettings()),
        ["OPENAI_API_KEY", "SERVER_OWN", "XDG_CACHE_HOME"],
        env={"SERVER_OWN": "given"},
    )
    withheld, own, cache, confinement = seen
    assert (withheld, own, confinement) == ("unset", "given", "confined")
    assert cache.startswith(str(tmp_path / "cache" / "wisp" / "sandbox"))  # the folder's own


@pytest.mark.parametrize(
    ("settings", "because", "mechanism"),
    [
        (CommandSettings(unsafe=True), None, "none (--unsafe)"),
        (
            CommandSettings(),
            "mcpServers.probe.sandbox is false",
            "none (mcpServers.probe.sandbox is false)",
        ),
    ],
    ids=["unsafe", "server-says"],
)
async def test_a_server_runs_unconfined_only_where_a_command_would_or_the_caller_says(
    tmp_path: Path, settings: CommandSettings, because: str | None, mechanism: str
) -> None:
    seen = await variables(runner(tmp_path, settings), [], unconfined_because=because)
    assert seen == [mechanism]
