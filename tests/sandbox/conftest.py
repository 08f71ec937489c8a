"""Fixtures for the sandbox: a working directory and a WISP_HOME under /tmp (a writable root, so
the home must be carved out), the real probe, and the real helper under run_process."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import msgspec
import pytest

from tests import no_namespaces
from tests.hang import HANG
from wisp.sandbox.plan import SandboxState, SandboxSupport, confined_argv, probe_uncached
from wisp.sandbox.process import ProcessResult, run_process
from wisp.sandbox.writable import WritableSet

RunConfined = Callable[..., Awaitable[tuple[ProcessResult, SandboxState]]]


@pytest.fixture(params=["namespace", "landlock"])
def support(request: pytest.FixtureRequest) -> SandboxSupport:
    """This machine's real Landlock, with the helper's mount namespace where it works (and
    without it, as on a machine that allows none: bubblewrap where installed, or narrowing)."""
    found = probe_uncached()
    if found.landlock_abi is None:
        pytest.skip("this kernel has no Landlock")
    if request.param == "landlock":
        return msgspec.structs.replace(found, namespace=False)
    if not found.namespace:
        pytest.skip("no mount namespace here (neither root nor a user namespace)")
    return found


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """wisp's working directory: a writable root of its own."""
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """WISP_HOME, inside /tmp (itself a writable root)."""
    path = tmp_path / "wisp-home"
    path.mkdir()
    return path


@pytest.fixture
def user_home(tmp_path: Path) -> Path:
    path = tmp_path / "user"
    path.mkdir()
    return path


@pytest.fixture
def writable(work: Path, home: Path, user_home: Path) -> WritableSet:
    # pytest's tmp_path lies under the temp directory, so WISP_HOME lies inside a root.
    environ = {"HOME": str(user_home), "TMPDIR": tempfile.gettempdir()}
    return WritableSet.build(working_directory=work, home=home, environ=environ)


@pytest.fixture
def run_confined(writable: WritableSet, support: SandboxSupport, work: Path) -> RunConfined:
    """Run a shell line through the real helper: ``(result, state)``."""

    async def run(
        line: str, *, network_off: bool = False, cwd: Path | None = None, timeout: float = HANG
    ) -> tuple[ProcessResult, SandboxState]:
        argv, state = plan_confined(
            ["/bin/sh", "-c", line], writable, support, network_off=network_off
        )
        result = await run_process(argv, cwd=cwd or work, timeout=timeout)
        return result, state

    return run


def plan_confined(
    argv: list[str], writable: WritableSet, support: SandboxSupport, *, network_off: bool
) -> tuple[list[str], SandboxState]:
    """``confined_argv``'s plan for ``support``; without the namespace, run as on a machine that
    allows none: nothing the helper starts can make one either."""
    planned, state = confined_argv(argv, writable, network_off=network_off, support=support)
    if not support.namespace and no_namespaces.supported():
        planned = [*no_namespaces.launcher(), *planned]
    return planned, state


@pytest.fixture
def outside() -> Iterator[Callable[[str], Path]]:
    """Names under /etc, where only the sandbox (we run as root) can stop a write; whatever a
    bug creates there is removed afterwards."""
    made: list[Path] = []

    def name(leaf: str) -> Path:
        path = Path("/etc") / f"wisp-test-{os.getpid()}-{leaf}"
        made.append(path)
        return path

    yield name
    for path in made:
        with contextlib.suppress(FileNotFoundError):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
