"""Atomic replacement of a file, by path and through a folder's descriptor."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wisp.home import replace_atomically, replace_in_folder


def test_replace_atomically_writes_with_the_mode_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text("old")
    replace_atomically(path, b"new", 0o640)
    assert path.read_text() == "new"
    assert path.stat().st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["config.json"]


def test_replace_in_folder_acts_on_the_folder_held_not_on_its_path(tmp_path: Path) -> None:
    # The folder's path swapped for a link after it was opened: the write stays in the folder.
    (tmp_path / "d").mkdir()
    (tmp_path / "elsewhere").mkdir()
    folder = os.open(tmp_path / "d", os.O_PATH | os.O_DIRECTORY)
    try:
        (tmp_path / "d").rename(tmp_path / "moved")
        (tmp_path / "d").symlink_to(tmp_path / "elsewhere")
        replace_in_folder(folder, "a.txt", b"x")
    finally:
        os.close(folder)
    assert (tmp_path / "moved/a.txt").read_bytes() == b"x"
    assert os.listdir(tmp_path / "elsewhere") == []


def test_a_failed_replacement_removes_its_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()  # a folder stands where the file would go: the rename fails
    folder = os.open(tmp_path, os.O_PATH | os.O_DIRECTORY)
    try:
        with pytest.raises(IsADirectoryError):
            replace_in_folder(folder, "sub", b"x")
    finally:
        os.close(folder)
    assert os.listdir(tmp_path) == ["sub"]
