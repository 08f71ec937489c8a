"""Which guidance files count and how each is read (docs/turn.md, "Guidance files"): real
files, links, FIFOs and folders under a temporary tree."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from wisp.guidance import MAX_BYTES, GuidanceFile, LeftOut
from wisp.guidance.files import found


def test_the_files_run_from_the_repository_root_to_the_working_folder(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("above the repository\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("root\n")
    work = repo / "src" / "app"
    work.mkdir(parents=True)
    (work / "AGENTS.md").write_text("nearest\n")
    files = found(work, tmp_path / "home")
    assert [(f.path, f.text) for f in files if isinstance(f, GuidanceFile)] == [
        (str(repo / "AGENTS.md"), "root\n"),
        (str(work / "AGENTS.md"), "nearest\n"),
    ]


def test_outside_a_repository_only_the_working_folders_own_counts(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("a parent's\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "AGENTS.md").write_text("its own\n")
    [only] = found(work, tmp_path / "home")
    assert isinstance(only, GuidanceFile) and only.text == "its own\n"


def test_the_bytes_read_are_the_bytes_hashed(tmp_path: Path) -> None:
    data = "Use make check.\n\xff".encode("latin-1")
    (tmp_path / "AGENTS.md").write_bytes(data)
    [file] = found(tmp_path, tmp_path / "home")
    assert isinstance(file, GuidanceFile)
    assert (file.data, file.sha256, file.size) == (data, hashlib.sha256(data).hexdigest(), 17)
    assert file.text == "Use make check.\n\ufffd"  # shown and used alike


def test_a_file_larger_than_32_kib_is_left_out_whole(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"x" * (MAX_BYTES + 1))
    assert found(tmp_path, tmp_path / "home") == [
        LeftOut(str(tmp_path / "AGENTS.md"), "too large (more than 32 KiB)")
    ]
    (tmp_path / "AGENTS.md").write_bytes(b"x" * MAX_BYTES)
    [file] = found(tmp_path, tmp_path / "home")
    assert isinstance(file, GuidanceFile) and file.size == MAX_BYTES


def test_a_link_is_left_out_and_never_followed(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("a secret\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "AGENTS.md").symlink_to(secret)
    [file] = found(work, tmp_path / "home")
    assert file == LeftOut(str(work / "AGENTS.md"), "a symbolic link (it could point anywhere)")


def test_a_fifo_is_left_out_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "AGENTS.md")
    [file] = found(tmp_path, tmp_path / "home")
    assert file == LeftOut(str(tmp_path / "AGENTS.md"), "not a regular file (a FIFO)")


def test_a_file_in_wisp_home_is_never_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "AGENTS.md").write_text("from the home\n")
    assert found(home, home) == [LeftOut(str(home / "AGENTS.md"), "inside WISP_HOME")]


def test_no_file_is_nothing_to_say(tmp_path: Path) -> None:
    assert found(tmp_path, tmp_path / "home") == []
