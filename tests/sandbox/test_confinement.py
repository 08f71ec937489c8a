"""Real Landlock through the real helper: writes inside and outside the roots,
WISP_HOME under a root, an outward symlink, TCP with the network off, and the refusal check on
what Linux's tools really print."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from tests.hang import HANG
from tests.sandbox.conftest import RunConfined
from wisp.sandbox.plan import SandboxSupport, confined_argv
from wisp.sandbox.process import run_process
from wisp.sandbox.refusal import Verdict, check_refusal
from wisp.sandbox.writable import WritableSet

ESCAPE = Path("/etc/wisp-escape")


async def refusal_of(run_confined: RunConfined, writable: WritableSet, line: str, cwd: Path):
    result, state = await run_confined(line, cwd=cwd)
    assert result.exit_status != 0, result
    return check_refusal(
        result.stderr,
        exit_status=result.exit_status,
        working_directory=cwd,
        writable=writable,
        network_off=state.network_cut is not None,
        narrowed_roots=state.narrowed_roots,
    )


async def test_a_write_inside_the_working_directory_succeeds(
    run_confined: RunConfined, work: Path
) -> None:
    result, state = await run_confined("echo inside > made && mkdir d && mv made d/ && cat d/made")
    assert (result.exit_status, result.stdout) == (0, "inside\n")
    assert (work / "d" / "made").read_text() == "inside\n"
    assert state.sandbox


async def test_device_files_stay_writable(run_confined: RunConfined) -> None:
    result, _ = await run_confined("echo x > /dev/null && echo to-stderr > /dev/stderr")
    assert (result.exit_status, result.stderr) == (0, "to-stderr\n")


async def test_touch_in_etc_as_root_is_refused_by_the_sandbox(
    run_confined: RunConfined, writable: WritableSet, work: Path
) -> None:
    try:
        refusal = await refusal_of(run_confined, writable, f"touch {ESCAPE}", work)
        assert not ESCAPE.exists()
    finally:
        ESCAPE.unlink(missing_ok=True)
    assert refusal is not None
    assert (refusal.verdict, refusal.paths) == (Verdict.REFUSED, [str(ESCAPE)])


async def test_a_write_into_wisp_home_under_a_root_is_refused(
    run_confined: RunConfined, writable: WritableSet, work: Path, home: Path
) -> None:
    refusal = await refusal_of(run_confined, writable, f"echo x > {home}/owned", work)
    assert not (home / "owned").exists()
    assert refusal is not None
    assert (refusal.verdict, refusal.paths) == (Verdict.REFUSED, [str(home / "owned")])


async def test_wisp_home_cannot_be_replaced_from_the_folder_above(
    run_confined: RunConfined, writable: WritableSet, home: Path, support: SandboxSupport
) -> None:
    (home / "config.json").write_text("{}")
    result, state = await run_confined(f"mv {home} {home}.moved || rm -rf {home}")
    assert result.exit_status != 0
    assert (home / "config.json").read_text() == "{}"
    # The mount namespace (or bubblewrap) covers WISP_HOME; without either the root is narrowed.
    covered = support.namespace or support.bwrap is not None
    narrowed = () if covered else writable.roots_holding_home()
    assert state.narrowed_roots == narrowed


async def test_siblings_of_the_path_to_wisp_home_stay_writable(
    run_confined: RunConfined, tmp_path: Path
) -> None:
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    (tmp_path / "existing").write_text("old")
    result, _ = await run_confined(f"echo new > {sibling}/made && echo new > {tmp_path}/existing")
    assert result.exit_status == 0, result.stderr
    assert (sibling / "made").read_text() == (tmp_path / "existing").read_text() == "new\n"


async def test_a_write_through_an_outward_symlink_is_refused(
    run_confined: RunConfined,
    writable: WritableSet,
    work: Path,
    outside: Callable[[str], Path],
) -> None:
    target = outside("link-target")
    (work / "link").symlink_to(target)
    refusal = await refusal_of(run_confined, writable, "echo x > ./link", work)
    assert not target.exists()
    assert refusal is not None
    assert (refusal.verdict, refusal.paths) == (Verdict.REFUSED, [str(target)])


async def test_relative_paths_are_resolved_where_the_command_ran(
    run_confined: RunConfined,
    writable: WritableSet,
    work: Path,
    outside: Callable[[str], Path],
) -> None:
    target = outside("relative-target")
    (work / "link").symlink_to(target)
    sub = work / "sub"
    sub.mkdir()
    refusal = await refusal_of(run_confined, writable, "touch ../link", sub)
    assert refusal is not None
    assert (refusal.verdict, refusal.paths) == (Verdict.REFUSED, [str(target)])


@pytest.mark.parametrize(
    "line",
    [
        "touch {target}",
        "cp ./file {target}",
        "mkdir {target}",
        "mv ./file {target}",
        "ln -s /nowhere {target}",
        "sh -c 'echo x > {target}'",
        "bash -c 'echo x > {target}'",
        "{python} -c \"open('{target}', 'w')\"",
    ],
    ids=["touch", "cp", "mkdir", "mv", "ln", "dash", "bash", "python"],
)
async def test_real_messages_name_the_refused_path(
    line: str,
    run_confined: RunConfined,
    writable: WritableSet,
    work: Path,
    outside: Callable[[str], Path],
) -> None:
    if line.startswith("bash") and not Path("/bin/bash").exists():
        pytest.skip("bash is not installed")
    target = outside("message")
    (work / "file").write_text("x")
    command = line.format(target=target, python=sys.executable)
    refusal = await refusal_of(run_confined, writable, command, work)
    assert not target.exists()
    assert refusal is not None
    assert (refusal.verdict, refusal.paths) == (Verdict.REFUSED, [str(target)])
    assert refusal.line.startswith(f"sandbox: refused writing to {target}; commands may write")


async def test_a_refusal_inside_the_roots_is_not_the_sandbox(
    run_confined: RunConfined, writable: WritableSet, work: Path
) -> None:
    locked = work / "locked"
    locked.write_text("x")
    made = await asyncio.create_subprocess_exec("chattr", "+i", str(locked))
    if await made.wait() != 0:
        pytest.skip("chattr +i is not available here")
    try:
        refusal = await refusal_of(run_confined, writable, "echo y > ./locked", work)
    finally:
        undo = await asyncio.create_subprocess_exec("chattr", "-i", str(locked))
        await undo.wait()
    assert refusal is not None
    assert (refusal.verdict, refusal.paths) == (Verdict.NOT_THE_SANDBOX, [str(locked)])
    assert "is inside the writable roots, so something else refused it" in refusal.line


@pytest.mark.parametrize("support", ["landlock"], indirect=True)
async def test_mktemp_with_wisp_home_under_tmp_is_refused_and_explained(
    run_confined: RunConfined, writable: WritableSet, work: Path, support: SandboxSupport
) -> None:
    # The issue: with WISP_HOME under /tmp, mktemp failed and was blamed on something else.
    if support.bwrap is not None:
        pytest.skip("bubblewrap binds WISP_HOME read-only here, so /tmp is not narrowed")
    result, state = await run_confined("env -u TMPDIR mktemp")
    assert state.narrowed_roots == ("/tmp",)
    assert result.exit_status != 0
    refusal = check_refusal(
        result.stderr,
        exit_status=result.exit_status,
        working_directory=work,
        writable=writable,
        network_off=False,
        narrowed_roots=state.narrowed_roots,
    )
    assert refusal is not None
    assert (refusal.verdict, refusal.paths) == (Verdict.REFUSED, ["/tmp/tmp.XXXXXXXXXX"])
    assert "nothing new can be made directly in /tmp while WISP_HOME" in refusal.line


@pytest.mark.parametrize("support", ["namespace"], indirect=True)
async def test_mktemp_with_wisp_home_under_tmp_works_in_the_mount_namespace(
    run_confined: RunConfined,
) -> None:
    # The namespace hides WISP_HOME under an empty read-only mount: /tmp stays whole.
    result, state = await run_confined("env -u TMPDIR mktemp")
    assert (result.exit_status, result.stderr, state.narrowed_roots) == (0, "", ())
    made = Path(result.stdout.strip())
    made.unlink()  # made in the real /tmp, outside the namespace too
    assert made.parent == Path("/tmp")


@contextlib.asynccontextmanager
async def listening() -> AsyncIterator[int]:
    """A real TCP server on 127.0.0.1; yields its port."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


def connect_line(port: int) -> str:
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout={HANG})"
    return f'{sys.executable} -c "{code}"'


async def test_tcp_connect_fails_with_the_network_off(
    run_confined: RunConfined, writable: WritableSet, work: Path
) -> None:
    async with listening() as port:
        result, state = await run_confined(connect_line(port), network_off=True)
    assert result.exit_status != 0
    assert state.network_cut in ("all", "tcp")  # TCP is cut either way
    refusal = check_refusal(
        result.stderr,
        exit_status=result.exit_status,
        working_directory=work,
        writable=writable,
        network_off=True,
    )
    assert refusal is not None and refusal.verdict is Verdict.GUESS


async def test_tcp_connect_works_with_the_network_on(run_confined: RunConfined) -> None:
    async with listening() as port:
        result, state = await run_confined(connect_line(port), network_off=False)
    assert (result.exit_status, result.stderr) == (0, "")
    assert state.network is True


async def test_tcp_connect_works_outside_the_sandbox(work: Path) -> None:
    async with listening() as port:
        result = await run_process(["/bin/sh", "-c", connect_line(port)], cwd=work, timeout=HANG)
    assert (result.exit_status, result.stderr) == (0, "")


async def test_a_timed_out_confined_command_ends_with_its_children(
    run_confined: RunConfined,
) -> None:
    # The child would outlive the wait below: only the kill can end it within it. It is found
    # by its command line: in the helper's PID namespace its own $! means nothing out here.
    mark = f"{2 * HANG:.0f}.{os.getpid()}"
    result, _ = await run_confined(f"sleep {mark} & echo $!; sleep 100", timeout=1)
    assert result.timed_out
    assert result.stdout.strip().isdigit()  # the child did start
    async with asyncio.timeout(HANG):  # SIGKILL lands when the kernel next runs the child
        while any(is_alive(pid) for pid in running(["sleep", mark])):
            await asyncio.sleep(0.01)


def running(argv: list[str]) -> list[int]:
    """The processes (as this namespace numbers them) whose command line is ``argv``."""
    wanted = "\0".join(argv).encode() + b"\0"
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and (entry / "cmdline").read_bytes() == wanted:
                found.append(int(entry.name))
    return found


def is_alive(pid: int) -> bool:
    """Whether ``pid`` still runs: a zombie waiting for its reaper has already died."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


async def test_an_unconfined_command_is_not_held_to_the_roots(work: Path, home: Path) -> None:
    # --unsafe, sandbox.enabled false, or no Landlock: the command runs as given, and wisp says so.
    argv, state = confined_argv(
        ["/bin/sh", "-c", f"echo x > {home}/owned"],
        WritableSet.build(working_directory=work, home=home, environ={"HOME": "/"}),
        network_off=True,
        support=SandboxSupport(landlock_abi=None),
    )
    result = await run_process(argv, cwd=work, timeout=HANG)
    assert result.exit_status == 0
    assert (home / "owned").read_text() == "x\n"
    assert (state.sandbox, state.network) == (False, True)


@pytest.fixture
def bystander() -> Iterator[subprocess.Popen[bytes]]:
    """An unconfined process, as wisp is: a secret in its environment, alive until the end."""
    process = subprocess.Popen(
        ["sleep", f"{2 * HANG:.0f}"], env={"WISP_TEST_SECRET": "sk-bystander-secret"}
    )
    try:
        yield process
    finally:
        process.kill()
        process.wait()


async def test_a_command_cannot_signal_a_process_outside_the_sandbox(
    run_confined: RunConfined, support: SandboxSupport, bystander: subprocess.Popen[bytes]
) -> None:
    # kill $PPID killed wisp. Landlock's signal scope (ABI 6) refuses it; in the helper's PID
    # namespace the process is not even there.
    if support.landlock_abi is not None and support.landlock_abi < 6 and not support.namespace:
        pytest.skip("Landlock ABI 6 (signal scoping) is needed without the PID namespace")
    result, _ = await run_confined(f"kill -KILL {bystander.pid}")
    assert result.exit_status != 0
    assert bystander.poll() is None


async def test_a_command_cannot_read_the_environment_of_a_process_outside(
    run_confined: RunConfined, bystander: subprocess.Popen[bytes]
) -> None:
    # It read wisp's /proc/$PPID/environ, API key and all. Landlock refuses it, as it refuses
    # ptrace of any process outside the command's domain, even one of the same user (as root,
    # the dropped CAP_SYS_PTRACE refuses it too); in the helper's PID namespace the process is
    # not even there.
    result, _ = await run_confined(f"cat /proc/{bystander.pid}/environ; cat /proc/$PPID/environ")
    assert result.exit_status != 0
    assert "sk-bystander-secret" not in result.stdout
    assert f"/proc/{bystander.pid}/environ" in result.stderr


async def test_only_the_pid_namespace_hides_other_processes(
    run_confined: RunConfined, support: SandboxSupport, bystander: subprocess.Popen[bytes]
) -> None:
    result, _ = await run_confined("ls /proc")
    assert result.exit_status == 0, result.stderr
    assert (str(bystander.pid) in result.stdout.split()) is not support.namespace


async def test_a_command_cannot_connect_to_an_abstract_socket_made_outside(
    run_confined: RunConfined, support: SandboxSupport
) -> None:
    # An abstract UNIX socket (@name: X11's, D-Bus's on some systems) has no file to hide:
    # Landlock's scope (ABI 6) refuses it, whatever the network.
    if support.landlock_abi is not None and support.landlock_abi < 6:
        pytest.skip("Landlock ABI 6 (abstract socket scoping) is needed")
    name = f"wisp-test-{os.getpid()}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(f"\0{name}")
    server.listen(8)
    code = f"import socket; socket.socket(socket.AF_UNIX).connect('\\\\0{name}'); print('in')"
    try:
        result, _ = await run_confined(f'{sys.executable} -c "{code}"')
    finally:
        server.close()
    assert result.exit_status != 0 and result.stdout == ""
    assert "Operation not permitted" in result.stderr
