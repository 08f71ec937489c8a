"""The writable set (docs/sandbox.md, "What is confined"): its roots, real-path containment, and the
narrowing of a root that holds WISP_HOME."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from wisp.sandbox.writable import WritableSet, narrow


def build(tmp_path: Path, **environ: str) -> WritableSet:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return WritableSet.build(
        working_directory=work,
        home=tmp_path / "home",
        environ={"HOME": str(tmp_path / "user"), **environ},
        extra_roots=["~/.cargo/registry", "relative/"],
    )


def test_roots_are_the_working_directory_temp_cache_and_configured(tmp_path: Path) -> None:
    writable = build(tmp_path, TMPDIR=str(tmp_path / "tmp"))
    real = os.path.realpath(tmp_path)
    digest = hashlib.sha256(f"{real}/work".encode()).hexdigest()
    assert writable.roots == (
        f"{real}/work",
        f"{real}/tmp",
        "/tmp",
        f"{real}/user/.cache/wisp/sandbox/{digest}",
        f"{real}/user/.cargo/registry",
        f"{real}/work/relative",
    )
    assert writable.cache == writable.roots[3]


def test_the_rest_of_the_cache_is_the_person_s(tmp_path: Path, user_home: Path) -> None:
    writable = WritableSet.build(
        working_directory=tmp_path, home=tmp_path / "home", environ={"HOME": str(user_home)}
    )
    cache = os.path.realpath(user_home / ".cache")
    assert writable.contains(f"{writable.cache}/pip/x")
    assert not writable.contains(f"{cache}/x")
    person = writable.for_person()  # a ! command's
    assert person.contains(f"{cache}/x") and person.roots == (*writable.roots, cache)
    assert person.for_person() == person


def test_each_working_folder_has_its_own_cache(tmp_path: Path, user_home: Path) -> None:
    for name in ("work", "other"):
        (tmp_path / name).mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "work")
    environ = {"HOME": str(user_home)}

    def cache(folder: str) -> WritableSet:
        return WritableSet.build(
            working_directory=tmp_path / folder, home=tmp_path / "home", environ=environ
        )

    ours, other, alias = cache("work"), cache("other"), cache("alias")
    assert other.cache != ours.cache and alias.cache == ours.cache  # by the real path
    assert not other.contains(f"{ours.cache}/x")


@pytest.fixture
def user_home() -> Iterator[Path]:
    """A home folder outside /tmp (a root of its own), in a folder of its own."""
    holder = Path(tempfile.mkdtemp(dir="/var/tmp"))
    (holder / "user").mkdir()
    yield holder / "user"
    shutil.rmtree(holder)


@pytest.mark.parametrize("where", ["user", "/", "holder"])
def test_a_working_folder_holding_the_home_folder_is_no_root(
    tmp_path: Path, user_home: Path, where: str
) -> None:
    # The home folder itself, /, or a folder that holds the home folder.
    folder = {"user": user_home, "/": Path("/"), "holder": user_home.parent}[where]
    writable = WritableSet.build(
        working_directory=folder, home=tmp_path / "home", environ={"HOME": str(user_home)}
    )
    assert not writable.working_writable
    assert os.path.realpath(folder) not in writable.roots
    assert not writable.contains(user_home / ".bashrc")
    assert writable.contains("/tmp/x")  # temp and the cache still are


def test_allow_home_keeps_the_home_folder_a_root(tmp_path: Path, user_home: Path) -> None:
    writable = WritableSet.build(
        working_directory=user_home,
        home=tmp_path / "home",
        environ={"HOME": str(user_home)},
        allow_home=True,
    )
    assert writable.working_writable and writable.contains(user_home / ".bashrc")


def test_xdg_cache_home_replaces_the_default_cache(tmp_path: Path) -> None:
    writable = build(tmp_path, XDG_CACHE_HOME=str(tmp_path / "cache"))
    assert writable.cache.startswith(f"{os.path.realpath(tmp_path)}/cache/wisp/sandbox/")
    assert writable.cache in writable.roots
    assert writable.person_cache == f"{os.path.realpath(tmp_path)}/cache"


def test_roots_are_real_paths(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    writable = WritableSet.build(
        working_directory=tmp_path / "alias/", home=tmp_path / "home", environ={"HOME": "/"}
    )
    assert writable.roots[0] == os.path.realpath(tmp_path / "real")


def test_contains_judges_the_real_target(tmp_path: Path) -> None:
    writable = build(tmp_path)
    (tmp_path / "work" / "out").symlink_to("/etc/passwd")
    assert writable.contains(tmp_path / "work" / "new-file")
    assert not writable.contains(tmp_path / "work" / "out")
    assert not writable.contains("/etc/passwd")
    assert writable.contains("/dev/null")


def test_a_symlink_outside_pointing_inside_is_writable(tmp_path: Path) -> None:
    writable = WritableSet.build(
        working_directory=tmp_path / "work", home="/nonexistent", environ={"HOME": "/"}
    )
    (tmp_path / "work").mkdir()
    inward = Path("/var/tmp") / f"wisp-inward-{os.getpid()}"
    inward.unlink(missing_ok=True)
    inward.symlink_to(tmp_path / "work")
    try:
        assert writable.contains(inward / "file")
    finally:
        inward.unlink()


def test_wisp_home_is_never_writable_even_inside_a_root(tmp_path: Path) -> None:
    writable = build(tmp_path)
    assert writable.contains(tmp_path / "elsewhere")  # under /tmp, a root
    assert not writable.contains(tmp_path / "home")
    assert not writable.contains(tmp_path / "home" / "config.json")


def test_the_roots_holding_wisp_home_are_found(tmp_path: Path) -> None:
    writable = build(tmp_path)
    assert writable.roots_holding_home() == ("/tmp",)


def test_a_root_inside_wisp_home_is_not_given_to_landlock(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    writable = WritableSet.build(
        working_directory=home / "project", home=home, environ={"HOME": "/"}
    )
    roots, _ = writable.landlock_roots()
    assert str(home / "project") in writable.roots
    assert str(home / "project") not in roots


def test_landlock_gets_device_folders_as_roots_and_device_files_as_files(tmp_path: Path) -> None:
    roots, files = build(tmp_path).landlock_roots()
    assert "/dev/shm" in roots
    assert {"/dev/null", "/dev/zero"} <= set(files)


def test_the_persons_terminals_are_never_writable(tmp_path: Path) -> None:
    # A command's own ptys live in the devpts of its mount namespace, made writable there by the
    # helper; the terminals outside it (docs/sandbox.md, "The person's terminal") never are.
    writable = build(tmp_path)
    roots, files = writable.landlock_roots()
    for path in ("/dev/tty", "/dev/pts", "/dev/pts/0", "/dev/console", "/dev/ptmx"):
        assert path not in roots + files
        assert not writable.contains(path)


def test_narrowing_grants_the_siblings_and_not_the_path(tmp_path: Path) -> None:
    (tmp_path / "a" / "home").mkdir(parents=True)
    (tmp_path / "a" / "side").mkdir()
    (tmp_path / "a" / "file").write_text("x")
    (tmp_path / "top").mkdir()
    (tmp_path / "link").symlink_to("/etc")
    dirs, files = narrow(str(tmp_path), str(tmp_path / "a" / "home"))
    assert sorted(dirs) == [str(tmp_path / "a" / "side"), str(tmp_path / "top")]
    assert files == [str(tmp_path / "a" / "file")]


def test_narrowing_toward_a_missing_home_stops_where_the_path_ends(tmp_path: Path) -> None:
    (tmp_path / "side").mkdir()
    dirs, files = narrow(str(tmp_path), str(tmp_path / "missing" / "home"))
    assert (dirs, files) == ([str(tmp_path / "side")], [])


def test_an_entry_made_on_the_way_to_wisp_home_is_carved_out(tmp_path: Path) -> None:
    writable = build(tmp_path)
    narrowed = writable.roots_holding_home()
    assert writable.is_carved_out(tmp_path / "new", narrowed)
    assert not writable.is_carved_out(tmp_path / "side" / "new", narrowed)
    assert not writable.is_carved_out(tmp_path / "new", ())
