"""What a watch passes over (docs/watch.md, "Triggers"): folders and names no one edits, wisp's
home, what git ignores as git itself says, and files a tool made and removed within a batch."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from wisp.watch.ignore import GitIgnore, PassedOver
from wisp.watch.pending import Pending, Seen, counts, seen_in

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def plain_git(words: Sequence[str]) -> list[str]:
    """git from PATH, as the ignore rules' own tests may run it (the face confines it)."""
    return ["git", *words]


@pytest.mark.parametrize(
    "name",
    [
        ".git/index", "src/__pycache__/app.cpython-311.pyc", ".pytest_cache/v/cache/nodeids",
        "web/node_modules/x/index.js", ".venv/bin/python", "src/.app.py.swp", "notes.txt~",
        "src/.#app.py", "4913", "app.pyc",
    ],
)  # fmt: skip
def test_caches_version_control_and_editors_scratch_files_are_passed_over(
    tmp_path: Path, name: str
) -> None:
    assert PassedOver([tmp_path])(None, str(tmp_path / name)) is False


@pytest.mark.parametrize("name", ["app.py", "src/app.py", "notes/git.txt", "Makefile"])
def test_the_person_s_files_are_kept(tmp_path: Path, name: str) -> None:
    assert PassedOver([tmp_path])(None, str(tmp_path / name)) is True


def test_only_the_parts_beneath_the_watched_folder_count(tmp_path: Path) -> None:
    project = tmp_path / ".venv" / "project"  # a project kept somewhere oddly named
    assert PassedOver([project])(None, str(project / "app.py")) is True


def test_wisp_s_home_is_passed_over_even_inside_the_watched_folder(tmp_path: Path) -> None:
    home = tmp_path / "wisp-home"
    passed_over = PassedOver([tmp_path], [home])
    assert passed_over(None, str(home / "logs" / "audit.jsonl")) is False


@needs_git
async def test_git_says_what_it_ignores_nested_rules_and_tracked_files_included(
    tmp_path: Path,
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("*.log\nbuild/\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("*.tmp\n")
    (tmp_path / "kept.log").write_text("tracked, so git does not ignore it\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "-f", "kept.log"], check=True)
    paths = [tmp_path / name for name in (
        "a.log", "build/out.o", "sub/x.tmp", "x.tmp", "app.py", "kept.log", "sub/y.py",
    )]  # fmt: skip
    ignored = await (await GitIgnore.around([tmp_path / "sub"], plain_git)).ignored(paths)
    assert ignored == {tmp_path / "a.log", tmp_path / "build/out.o", tmp_path / "sub/x.tmp"}


@needs_git
async def test_a_folder_in_no_repository_ignores_nothing(tmp_path: Path) -> None:
    git = await GitIgnore.around([tmp_path], plain_git)
    assert git.repositories == []
    assert await git.ignored([tmp_path / "a.log"]) == set()


def counted(batch: set[tuple[int, str]]) -> dict[Path, Seen]:
    return {path: seen for path, seen in seen_in(batch).items() if counts(path, seen)}


def test_a_file_made_and_gone_within_a_batch_is_no_change(tmp_path: Path) -> None:
    (tmp_path / "kept.py").write_text("")
    made_and_gone = str(tmp_path / "pytest-cache-files-x1" / "README.md")
    removed = str(tmp_path / "old.py")  # it was there before the batch: a change
    batch = {(1, made_and_gone), (2, str(tmp_path / "kept.py")), (3, removed)}
    assert list(counted(batch)) == [tmp_path / "kept.py", tmp_path / "old.py"]


def test_a_file_gone_with_a_folder_renamed_away_is_no_change_of_its_own(tmp_path: Path) -> None:
    written = str(tmp_path / "build-tmp" / "out.txt")  # modified, never removed on its own
    assert counted({(2, written)}) == {}


def test_a_file_made_and_gone_across_two_batches_is_no_change_either(tmp_path: Path) -> None:
    made = tmp_path / "pytest-cache-files-x1"
    made.mkdir()
    (tmp_path / "app.py").write_text("")
    pending = Pending()
    pending.add(counted({(1, str(made)), (2, str(tmp_path / "app.py"))}))  # still there
    made.rmdir()  # renamed away before the run took the changes
    pending.add(counted({(3, str(made))}))
    assert pending.take() == [tmp_path / "app.py"]


def test_the_removal_of_a_file_made_and_gone_coming_after_the_run_took_it_is_no_change(
    tmp_path: Path,
) -> None:
    made = tmp_path / "pytest-cache-files-x1"
    made.mkdir()
    pending = Pending()
    pending.add(counted({(1, str(made))}))
    made.rmdir()
    assert pending.take() == []
    pending.add(counted({(3, str(made))}))  # the removal's batch, late
    assert not pending.arrived.is_set() and pending.take() == []
