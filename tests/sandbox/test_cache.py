"""The model's commands' own cache (docs/sandbox.md, "The cache"): made safely, the only part
of the person's cache they may write on every path the sandbox takes, and swept when unused."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from tests import no_namespaces
from tests.hang import HANG
from wisp.sandbox.cache import (
    CACHE_VARIABLES,
    MARKER,
    cache_environment,
    cache_folder,
    prepare,
    sweep,
    sweep_in_background,
)
from wisp.sandbox.plan import SandboxSupport, confined_argv, probe_uncached, working_bwrap
from wisp.sandbox.process import run_process
from wisp.sandbox.writable import WritableSet

DAY = 86_400


@pytest.fixture
def user_home() -> Iterator[Path]:
    """The person's home outside /tmp (a root of its own), so that only the cache's own rules
    decide what a command may write in ``~/.cache``."""
    holder = Path(tempfile.mkdtemp(dir="/var/tmp"))
    (holder / "user").mkdir()
    yield holder / "user"
    shutil.rmtree(holder)


@pytest.fixture
def environ(user_home: Path) -> dict[str, str]:
    return {"HOME": str(user_home)}


@pytest.fixture
def writable(tmp_path: Path, environ: dict[str, str]) -> WritableSet:
    work = tmp_path / "work"
    work.mkdir()
    home = tmp_path / "wisp-home"
    home.mkdir()
    return WritableSet.build(working_directory=work, home=home, environ=environ)


# -- the folder and its variables -----------------------------------------------------------


def test_the_cache_is_made_private_and_marked(writable: WritableSet, user_home: Path) -> None:
    prepare(writable.cache)
    folder = Path(writable.cache)
    assert folder.parent == user_home / ".cache/wisp/sandbox"
    for path in (folder, folder.parent):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700
    assert (folder.parent / (folder.name + MARKER)).is_file()
    prepare(writable.cache)  # a second start in the same folder finds it again


def test_a_symlink_on_the_way_to_the_cache_is_refused(
    tmp_path: Path, user_home: Path, environ: dict[str, str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (user_home / ".cache/wisp").mkdir(parents=True)
    (user_home / ".cache/wisp/sandbox").symlink_to(elsewhere)
    with pytest.raises(OSError):
        prepare(cache_folder(tmp_path, environ))
    assert list(elsewhere.iterdir()) == []


def test_the_variables_point_every_cache_inside_the_folder() -> None:
    variables = cache_environment("/c/wisp/sandbox/ab")
    assert variables["XDG_CACHE_HOME"] == "/c/wisp/sandbox/ab"
    assert variables["PIP_CACHE_DIR"] == "/c/wisp/sandbox/ab/pip"
    assert set(variables) == {name for name, _ in CACHE_VARIABLES}
    assert all(value.startswith("/c/wisp/sandbox/ab") for value in variables.values())
    assert not {"CARGO_HOME", "HF_HOME"} & set(variables)  # they hold more than caches


# -- confined: the folder's cache writable, the rest of the person's not --------------------


@pytest.fixture(params=["namespace", "landlock", "bubblewrap"])
def mechanism(request: pytest.FixtureRequest) -> tuple[SandboxSupport, bool]:
    """Each path the sandbox takes, and whether the network is cut (bubblewrap is used only
    when it has something to do: cutting the network here)."""
    found = probe_uncached()
    if found.landlock_abi is None:
        pytest.skip("this kernel has no Landlock")
    if request.param == "landlock":
        return msgspec.structs.replace(found, namespace=False), False
    if not found.namespace:
        pytest.skip("no mount namespace here (neither root nor a user namespace)")
    if request.param == "namespace":
        return found, False
    bwrap = working_bwrap()
    if bwrap is None:
        pytest.skip("bubblewrap is not installed (apt-get install bubblewrap)")
    return msgspec.structs.replace(found, namespace=False, bwrap=bwrap), True


async def run_line(
    line: str, writable: WritableSet, mechanism: tuple[SandboxSupport, bool], env: dict[str, str]
) -> str:
    support, network_off = mechanism
    argv, state = confined_argv(
        ["/bin/sh", "-c", line], writable, network_off=network_off, support=support
    )
    if support.bwrap is not None:
        assert argv[0] == support.bwrap, state
    elif not support.namespace and no_namespaces.supported():
        argv = [*no_namespaces.launcher(), *argv]  # as on a machine that allows no namespace
    result = await run_process(argv, cwd=writable.roots[0], timeout=HANG, env=env)
    return result.stderr


async def test_a_confined_command_writes_its_own_cache_and_not_the_persons(
    writable: WritableSet, user_home: Path, mechanism: tuple[SandboxSupport, bool]
) -> None:
    prepare(writable.cache)
    env = {"PATH": os.defpath, "HOME": str(user_home), **cache_environment(writable.cache)}
    line = 'mkdir -p "$PIP_CACHE_DIR" && touch "$PIP_CACHE_DIR/made"; touch ~/.cache/x'
    stderr = await run_line(line, writable, mechanism, env)
    assert (Path(writable.cache) / "pip/made").exists(), stderr
    assert not (user_home / ".cache/x").exists()
    assert "~/.cache/x" in stderr or ".cache/x" in stderr  # touch said why


async def test_a_persons_command_writes_the_whole_cache(
    writable: WritableSet, user_home: Path, mechanism: tuple[SandboxSupport, bool]
) -> None:
    prepare(writable.cache)
    env = {"PATH": os.defpath, "HOME": str(user_home)}
    stderr = await run_line("touch ~/.cache/x", writable.for_person(), mechanism, env)
    assert (user_home / ".cache/x").exists(), stderr


# -- the sweep --------------------------------------------------------------------------------


def made(folder: str, *, days_ago: float) -> Path:
    """A folder's cache with a file in it, last used ``days_ago`` days ago."""
    prepare(folder)
    path = Path(folder)
    (path / "pip").mkdir()
    (path / "pip/wheel").write_text("cached")
    when = time.time() - days_ago * DAY
    os.utime(path.parent / (path.name + MARKER), (when, when))
    return path


def test_a_cache_unused_for_the_days_goes_and_a_fresh_one_stays(
    tmp_path: Path, environ: dict[str, str]
) -> None:
    old = made(cache_folder(tmp_path / "old", environ), days_ago=31)
    fresh = made(cache_folder(tmp_path / "fresh", environ), days_ago=29)
    assert sweep(environ, 30) == [old.name]
    assert not old.exists() and not (old.parent / (old.name + MARKER)).exists()
    assert (fresh / "pip/wheel").read_text() == "cached"
    assert sweep(environ, 30) == []


def test_the_sweep_follows_no_symlink_out_of_a_cache(
    tmp_path: Path, environ: dict[str, str], user_home: Path
) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "file").write_text("the person's")
    old = made(cache_folder(tmp_path / "old", environ), days_ago=40)
    (old / "link").symlink_to(precious)  # what a command in the cache could leave
    (old / "pip/file-link").symlink_to(precious / "file")
    # A top-level entry that is a link, named like a cache, is not removed either.
    (old.parent / ("0" * 64)).symlink_to(precious)
    assert sweep(environ, 30) == [old.name]
    assert (precious / "file").read_text() == "the person's"
    assert (old.parent / ("0" * 64)).is_symlink()


def test_a_read_only_tree_is_swept_too(tmp_path: Path, environ: dict[str, str]) -> None:
    # Go makes its module cache read-only.
    old = made(cache_folder(tmp_path / "old", environ), days_ago=40)
    module = old / "go-mod/example.com/m@v1"
    module.mkdir(parents=True)
    (module / "go.mod").write_text("module m\n")
    for path in (module, module.parent, module.parent.parent):
        path.chmod(0o555)
    assert sweep(environ, 30) == [old.name]
    assert not old.exists()


def test_a_cache_without_its_marker_goes_by_its_own_age(
    tmp_path: Path, environ: dict[str, str]
) -> None:
    old = made(cache_folder(tmp_path / "old", environ), days_ago=40)
    (old.parent / (old.name + MARKER)).unlink()
    when = time.time() - 40 * DAY
    os.utime(old, (when, when))
    stray = old.parent / ("f" * 64 + MARKER)  # a marker whose cache is gone
    stray.touch()
    os.utime(stray, (when, when))
    other = old.parent / "not-a-cache"
    other.mkdir()
    os.utime(other, (when, when))
    assert sweep(environ, 30) == [old.name]
    assert not old.exists() and not stray.exists() and other.exists()


def test_nothing_to_sweep_before_the_first_cache(environ: dict[str, str]) -> None:
    assert sweep(environ, 30) == []
    assert sweep_in_background(environ, 30).daemon


def test_the_background_sweep_removes_the_old(tmp_path: Path, environ: dict[str, str]) -> None:
    old = made(cache_folder(tmp_path / "old", environ), days_ago=40)
    sweep_in_background(environ, 30).join()  # waits on the sweep's end, not on a clock
    assert not old.exists()
