"""The person's terminal (docs/sandbox.md, "The person's terminal"): a confined command that writes
to every ``/dev/pts/*`` it can see, ``/dev/tty`` and ``/dev/console`` reaches none of the
person's terminals, for real, through each mechanism: the helper's namespace (a ``/dev`` of its
own), bubblewrap's ``--dev``, and Landlock alone (the terminals there, not writable). Where a
devpts of its own is made, the command still gets pseudo-terminals."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from tests import no_namespaces
from tests.hang import HANG
from tests.sandbox.terminal import (
    MARKER,
    WRITE_EVERY_TERMINAL,
    Terminal,
    person_terminal,
    what_arrived,
)
from wisp.sandbox.plan import SandboxSupport, confined_argv, probe_uncached, working_bwrap
from wisp.sandbox.process import ProcessResult, run_process
from wisp.sandbox.writable import WritableSet

OWN_PTY = (
    f'{sys.executable} -c \'import os, pty; m, s = pty.openpty(); os.write(s, b"own"); '
    "print(os.read(m, 3).decode(), os.ttyname(s))'"
)

SCRIPT = "script -qc 'echo in-script' /dev/null"


@pytest.fixture
def person() -> Iterator[Terminal]:
    with person_terminal() as terminal:
        yield terminal


@pytest.fixture(params=["namespace", "bubblewrap", "landlock"])
def mechanism(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def one_mechanism(mechanism: str) -> SandboxSupport:
    """The real probe, forced to one mechanism (as the other sandbox tests force them)."""
    found = probe_uncached()
    if found.landlock_abi is None:
        pytest.skip("this kernel has no Landlock")
    if mechanism == "namespace":
        if not found.namespace:
            pytest.skip("no mount namespace here (neither root nor a user namespace)")
        return found
    if mechanism == "bubblewrap":
        bwrap = working_bwrap()
        if bwrap is None:
            pytest.skip("bubblewrap is not installed (apt-get install bubblewrap)")
        return msgspec.structs.replace(found, namespace=False, bwrap=bwrap)
    if not no_namespaces.supported():
        pytest.skip(no_namespaces.REASON_UNSUPPORTED)
    return msgspec.structs.replace(found, namespace=False, bwrap=None)


async def run(
    line: str, writable: WritableSet, support: SandboxSupport, cwd: Path
) -> ProcessResult:
    argv, _ = confined_argv(["/bin/sh", "-c", line], writable, network_off=False, support=support)
    if not support.namespace and support.bwrap is None:
        # As on a machine that allows none: nothing the helper starts can make one either.
        argv = [*no_namespaces.launcher(), *argv]
    return await run_process(argv, cwd=cwd, timeout=HANG)


async def test_a_command_writing_to_every_terminal_reaches_none_of_the_persons(
    person: Terminal, writable: WritableSet, one_mechanism: SandboxSupport, work: Path
) -> None:
    result = await run(WRITE_EVERY_TERMINAL, writable, one_mechanism, work)
    assert result.exit_status == 0, result.stderr
    assert what_arrived(person) == b""
    assert f"wrote {person.name}" not in result.stdout
    if one_mechanism.namespace or one_mechanism.bwrap is not None:
        # A devpts of its own: the person's terminals are not even there.
        assert os.path.basename(person.name) not in result.stdout.split()


@pytest.mark.parametrize("mechanism", ["namespace"])
async def test_dev_tty_and_dev_console_are_absent_in_the_namespace(
    writable: WritableSet, one_mechanism: SandboxSupport, work: Path
) -> None:
    result = await run(
        "test -e /dev/tty || echo no-tty; test -e /dev/console || echo no-console",
        writable, one_mechanism, work,
    )  # fmt: skip
    assert result.stdout.split() == ["no-tty", "no-console"], result.stderr


async def test_dev_tty_is_no_terminal_wherever_it_is_there(
    writable: WritableSet, one_mechanism: SandboxSupport, work: Path
) -> None:
    # bubblewrap's --dev always makes /dev/tty, and Landlock alone leaves the host's: the
    # command has no controlling terminal (its own session), so it names none (ENXIO), and
    # Landlock refuses to open it for writing anyway. No /dev/console under either /dev of
    # its own.
    line = (
        "test -e /dev/console && echo console; "
        ": < /dev/tty && echo read-tty; : > /dev/tty && echo wrote-tty; true"
    )
    result = await run(line, writable, one_mechanism, work)
    assert "tty" not in result.stdout
    if one_mechanism.namespace or one_mechanism.bwrap is not None:
        assert "console" not in result.stdout


@pytest.mark.parametrize("mechanism", ["namespace", "bubblewrap"])
async def test_a_command_gets_a_pseudo_terminal_of_its_own(
    writable: WritableSet, one_mechanism: SandboxSupport, work: Path
) -> None:
    line = f"{OWN_PTY}; {SCRIPT}"
    result = await run(line, writable, one_mechanism, work)
    assert result.exit_status == 0, result.stderr
    first, second = result.stdout.splitlines()[:2]
    assert first.split() == ["own", "/dev/pts/0"]  # the first pty of a devpts of its own
    assert second.strip() == "in-script"


@pytest.mark.parametrize("mechanism", ["landlock"])
async def test_under_landlock_alone_a_command_gets_no_pseudo_terminal(
    writable: WritableSet, one_mechanism: SandboxSupport, work: Path
) -> None:
    # What remains without a namespace (the start-up note says it): /dev/ptmx and /dev/pts are
    # the person's, and not writable.
    result = await run(f"{OWN_PTY}; {SCRIPT}", writable, one_mechanism, work)
    assert result.stdout == ""


def test_the_sentinel_shows_what_a_write_to_the_terminal_does(person: Terminal) -> None:
    # The check itself: a write to the terminal's /dev/pts/N by name does come out.
    fd = os.open(person.name, os.O_WRONLY | os.O_NOCTTY)
    try:
        os.write(fd, MARKER)
    finally:
        os.close(fd)
    assert what_arrived(person) == MARKER
