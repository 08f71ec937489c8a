"""Opening beneath a folder's descriptor: a symbolic link anywhere on the way is refused, with
``openat2`` and with the walk by components that stands in where the kernel has none."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from tests.tools.swapping import swapping
from wisp.tools.beneath import (
    FOLDER_FLAGS,
    SwapRefused,
    make_folders_beneath,
    open_beneath,
    open_root,
    real_path_of,
)


@pytest.fixture(params=[False, True], ids=["openat2", "walk"])
def walk(request: pytest.FixtureRequest) -> bool:
    return request.param


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A root with ``d/f``, ``link`` (to a folder outside) and ``d/alias`` (to ``f``)."""
    folder = tmp_path / "root"
    (folder / "d").mkdir(parents=True)
    (folder / "d/f").write_text("text")
    (tmp_path / "outside").mkdir()
    (folder / "link").symlink_to(tmp_path / "outside")
    (folder / "d/alias").symlink_to("f")
    return folder


def _opened(root: Path, rest: str, flags: int, walk: bool) -> str:
    held = open_root(str(root))
    try:
        opened = open_beneath(held, rest, flags, walk=walk)
    finally:
        os.close(held)
    try:
        return real_path_of(opened)
    finally:
        os.close(opened)


@pytest.mark.parametrize("flags", [os.O_RDONLY, FOLDER_FLAGS], ids=["file", "folder"])
def test_a_path_without_links_opens(root: Path, walk: bool, flags: int) -> None:
    rest = "d/f" if flags == os.O_RDONLY else "d"
    assert _opened(root, rest, flags, walk) == str(root / rest)


@pytest.mark.parametrize(
    ("rest", "flags"),
    [
        ("link/x", os.O_RDONLY),
        ("link", FOLDER_FLAGS),
        ("d/alias", os.O_RDONLY),
        ("d/alias", FOLDER_FLAGS),
        ("../root/d/f", os.O_RDONLY),
    ],
)
def test_a_link_or_a_way_out_on_the_way_is_refused(
    root: Path, walk: bool, rest: str, flags: int
) -> None:
    with pytest.raises(SwapRefused):
        _opened(root, rest, flags, walk)


def test_a_missing_or_non_folder_component_fails_as_open_does(root: Path, walk: bool) -> None:
    with pytest.raises(FileNotFoundError):
        _opened(root, "nothing/f", os.O_RDONLY, walk)
    with pytest.raises(NotADirectoryError):
        _opened(root, "d/f/g", os.O_RDONLY, walk)


def test_a_root_reached_through_a_link_is_refused(root: Path) -> None:
    # A root is canonical: a link on its way means one was swapped in since it was resolved.
    with pytest.raises(SwapRefused):
        open_root(str(root / "link"))


def test_missing_folders_are_made_but_never_through_a_link(
    root: Path, tmp_path: Path, walk: bool
) -> None:
    held = open_root(str(root))
    try:
        made = make_folders_beneath(held, "a/b", walk=walk)
        os.close(made)
        with pytest.raises(SwapRefused):
            make_folders_beneath(held, "link/c", walk=walk)
    finally:
        os.close(held)
    assert (root / "a/b").is_dir()
    assert list((tmp_path / "outside").iterdir()) == []


def test_ten_thousand_opens_raced_by_a_swapping_command_never_leave_the_root(
    root: Path, tmp_path: Path, walk: bool
) -> None:
    # d and link (to a folder outside) exchanged in a loop: each open lands in the root or is
    # refused, whatever the interleaving.
    (tmp_path / "outside/f").write_text("outside")
    held = open_root(str(root))
    opened: list[str] = []
    try:
        with swapping((root / "d", root / "link")):
            for _ in range(10_000):
                with contextlib.suppress(SwapRefused):
                    descriptor = open_beneath(held, "d/f", os.O_RDONLY, walk=walk)
                    opened.append(real_path_of(descriptor))
                    os.close(descriptor)
    finally:
        os.close(held)
    assert {os.path.dirname(path) for path in opened} <= {str(root / "d"), str(root / "link")}
