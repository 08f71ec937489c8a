"""A long-lived server through the real helper (docs/sandbox.md, "Long-lived servers"): a real
MCP server on the Python SDK (stdio_server.py), launched confined as a command is, driven by the
SDK's own ClientSession; what it may not do fails as its own tool's result, and stopping it
leaves nothing of its group behind. Each mechanism runs for real (the ``support`` fixture)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from tests.hang import HANG
from tests.sandbox.conftest import plan_confined
from wisp.sandbox.launch import StdioServer, _Lines, launch_stdio
from wisp.sandbox.plan import SandboxState, SandboxSupport, unconfined
from wisp.sandbox.writable import WritableSet

SERVER = [sys.executable, str(Path(__file__).with_name("stdio_server.py"))]
SECRET = "sk-wisp-launch-secret"


@pytest.fixture
def env(user_home: Path) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": str(user_home), "SERVER_OWN": "given"}


@contextlib.asynccontextmanager
async def served(
    argv: list[str], state: SandboxState, cwd: Path, env: dict[str, str]
) -> AsyncIterator[tuple[StdioServer, ClientSession]]:
    """The server launched and its session initialized; both ended on the way out."""
    async with (
        asyncio.timeout(HANG),
        launch_stdio(argv, state=state, cwd=cwd, env=env) as server,
        ClientSession(server.read, server.write) as session,
    ):
        await session.initialize()
        yield server, session


async def call(session: ClientSession, tool: str, **arguments: object) -> str:
    result = await session.call_tool(tool, arguments)
    return result.content[0].text  # type: ignore[union-attr]


def confined(
    writable: WritableSet, support: SandboxSupport, *, network: bool = False
) -> tuple[list[str], SandboxState]:
    return plan_confined(SERVER, writable, support, network_off=not network)


def running_in_group(pgid: int) -> list[str]:
    """The command lines of the processes of group ``pgid`` still running (not zombies)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_bytes()
            cmdline = Path(entry.path, "cmdline").read_bytes()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rfind(b")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            found.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return found


def running_with(marker: str) -> list[str]:
    """The command lines, anywhere on the machine, that hold ``marker``."""
    found = []
    for entry in os.scandir("/proc"):
        with contextlib.suppress(OSError):
            cmdline = Path(entry.path, "cmdline").read_bytes().split(b"\0")
            if marker.encode() in cmdline:
                found.append(b" ".join(cmdline).decode(errors="replace"))
    return found


async def test_a_confined_server_answers_the_sdk_client(
    writable: WritableSet, support: SandboxSupport, work: Path, env: dict[str, str]
) -> None:
    argv, state = confined(writable, support)
    async with served(argv, state, work, env) as (server, session):
        tools = await session.list_tools()
        assert "echo" in [tool.name for tool in tools.tools]
        assert await call(session, "echo", text="over the pipes") == "over the pipes"
        assert await call(session, "variable", name="SERVER_OWN") == "given"
        assert server.state.sandbox and server.state == state


async def test_a_confined_server_writes_only_under_the_writable_roots(
    writable: WritableSet,
    support: SandboxSupport,
    work: Path,
    home: Path,
    env: dict[str, str],
    outside: Callable[[str], Path],
) -> None:
    escape = outside("server-escape")
    argv, state = confined(writable, support)
    async with served(argv, state, work, env) as (_, session):
        refused = await call(session, "write_file", path=str(escape), text="x")
        into_home = await call(session, "write_file", path=str(home / "owned"), text="x")
        inside = await call(session, "write_file", path=str(work / "made"), text="inside")
    assert refused.startswith("error: ") and not escape.exists()
    assert into_home.startswith("error: ") and not (home / "owned").exists()
    assert inside == "written" and (work / "made").read_text() == "inside"


async def test_a_confined_server_cannot_read_wisp_home(
    writable: WritableSet, support: SandboxSupport, work: Path, home: Path, env: dict[str, str]
) -> None:
    if not support.namespace:
        pytest.skip("without a mount namespace WISP_HOME stays readable (docs/sandbox.md)")
    (home / "config.json").write_text(f'{{"apiKey": "{SECRET}"}}')
    argv, state = confined(writable, support)
    async with served(argv, state, work, env) as (_, session):
        read = await call(session, "read_file", path=str(home / "config.json"))
    assert read.startswith("error: ") and SECRET not in read


@pytest.mark.parametrize("network", [False, True], ids=["off", "on"])
async def test_the_network_is_off_unless_given(
    writable: WritableSet,
    support: SandboxSupport,
    work: Path,
    env: dict[str, str],
    network: bool,
) -> None:
    connections = 0

    async def count(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        writer.close()

    argv, state = confined(writable, support, network=network)
    if not network and state.network_cut is None:
        pytest.skip(f"nothing here can cut the network: {state.mechanism}")
    listener = await asyncio.start_server(count, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    async with listener, served(argv, state, work, env) as (_, session):
        answer = await call(session, "connect", port=port)
    if network:
        assert (answer, state.network, state.network_cut) == ("connected", True, None)
    else:
        assert answer.startswith("error: ") and connections == 0
        assert state.network_cut is not None


async def test_stopping_leaves_nothing_of_its_group(
    writable: WritableSet, support: SandboxSupport, work: Path, env: dict[str, str]
) -> None:
    marker = f"wisp-launch-{os.getpid()}-stop"
    argv, state = confined(writable, support)
    async with served(argv, state, work, env) as (server, session):
        await call(session, "spawn", marker=marker)
        assert running_with(marker)
    assert running_in_group(server.pid) == []
    assert running_with(marker) == []
    assert server.exit_status == 0  # it read the end of its stdin and ended on its own


async def test_cancelling_the_task_ends_the_server_and_its_group(
    writable: WritableSet, support: SandboxSupport, work: Path, env: dict[str, str]
) -> None:
    marker = f"wisp-launch-{os.getpid()}-cancel"
    argv, state = confined(writable, support)
    started: asyncio.Future[StdioServer] = asyncio.get_running_loop().create_future()

    async def hold() -> None:
        async with served(argv, state, work, env) as (server, session):
            await call(session, "spawn", marker=marker)
            started.set_result(server)
            await asyncio.Event().wait()

    task = asyncio.ensure_future(hold())
    server = await asyncio.wait_for(started, HANG)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert running_in_group(server.pid) == []
    assert running_with(marker) == []


async def test_a_server_that_ignores_the_end_and_sigterm_is_killed(
    work: Path, env: dict[str, str]
) -> None:
    # It reads no stdin and ignores SIGTERM, as does its background job: SIGKILL ends both.
    marker = f"wisp-launch-{os.getpid()}-stubborn"
    line = "trap '' TERM; sleep 3600 & wait"
    argv = ["/bin/sh", "-c", line, marker]
    async with asyncio.timeout(HANG):
        async with launch_stdio(argv, state=unconfined("test"), cwd=work, env=env) as server:
            # The launch returns once the process is started, not once the shell in it has
            # begun: wait for its line to show (on a busy machine it once had not yet).
            while not running_with(marker):
                await asyncio.sleep(0.01)
    assert server.exit_status == -9
    assert running_in_group(server.pid) == []


@pytest.mark.parametrize(
    ("program", "said"),
    [
        (
            [sys.executable, "-c", "import sys; sys.exit('no database at db.sqlite')"],
            "no database at db.sqlite",
        ),
        (
            ["/nonexistent/server"],
            "wisp-sandbox: cannot run /nonexistent/server: No such file or directory",
        ),
    ],
    ids=["exits", "missing"],
)
async def test_a_server_that_fails_to_start_says_why_on_its_last_stderr_line(
    writable: WritableSet,
    support: SandboxSupport,
    work: Path,
    env: dict[str, str],
    program: list[str],
    said: str,
) -> None:
    argv, state = plan_confined(program, writable, support, network_off=True)
    async with asyncio.timeout(HANG):
        async with launch_stdio(argv, state=state, cwd=work, env=env) as server:
            with pytest.raises(ExceptionGroup) as raised:
                async with ClientSession(server.read, server.write) as session:
                    await session.initialize()
    assert raised.group_contains(MCPError, match="Connection closed")
    assert server.last_stderr_line() == said
    assert server.exit_status not in (None, 0)


async def test_an_unconfined_program_that_cannot_start_raises(work: Path) -> None:
    with pytest.raises(FileNotFoundError):
        async with launch_stdio(
            ["/nonexistent/server"], state=unconfined("test"), cwd=work, env={}
        ):
            pass


async def test_an_unconfined_server_works_the_same_way(
    work: Path, home: Path, env: dict[str, str]
) -> None:
    (home / "config.json").write_text(SECRET)
    marker = f"wisp-launch-{os.getpid()}-unconfined"
    state = unconfined("mcpServers.probe.sandbox is false")
    async with served(SERVER, state, work, env) as (server, session):
        assert await call(session, "echo", text="plain") == "plain"
        # Nothing hides WISP_HOME from it: the person chose so.
        assert await call(session, "read_file", path=str(home / "config.json")) == SECRET
        await call(session, "spawn", marker=marker)
    assert not server.state.sandbox
    assert running_in_group(server.pid) == []
    assert running_with(marker) == []


async def test_a_line_that_is_no_message_is_passed_over(work: Path, env: dict[str, str]) -> None:
    noisy = f"print('not JSON-RPC', flush=True); exec(open({SERVER[1]!r}).read())"
    argv = [sys.executable, "-c", noisy]
    async with served(argv, unconfined("test"), work, env) as (_, session):
        assert await call(session, "echo", text="still here") == "still here"


def test_lines_are_cut_across_chunks_and_a_line_too_long_is_dropped() -> None:
    lines = _Lines(limit=8)
    assert lines.feed(b'{"a"') == []
    assert lines.feed(b":1}\n\n  \n{}") == [b'{"a":1}']
    assert lines.feed(b"\n") == [b"{}"]
    dropped = lines.feed(b"0123456789")
    assert len(dropped) == 1 and isinstance(dropped[0], ValueError)
    assert lines.feed(b"more of it\n{}\n") == [b"{}"]
