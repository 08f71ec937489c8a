"""The status line's repository facts (wisp/chat/status.py): the branch read from the files with
no program run, and the line counts from a git found outside the writable roots, run confined,
so nothing a repository configures runs unconfined (docs/sandbox.md, "Threat model")."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from tests.hang import HANG
from wisp import protocol as p
from wisp.chat.status import read_branch
from wisp.sandbox.plan import probe_uncached

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        [*GIT, *args], cwd=repo, capture_output=True, text=True, check=True, timeout=HANG
    )
    return done.stdout.strip()


def make_repo(repo: Path, branch: str = "main") -> Path:
    repo.mkdir(exist_ok=True)
    git(repo, "init", "-q", "-b", branch)
    (repo / "f.txt").write_text("one\ntwo\n")
    git(repo, "add", "f.txt")
    git(repo, "commit", "-qm", "first")
    return repo


def marker_script(path: Path, marker: Path) -> Path:
    path.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    path.chmod(0o755)
    return path


async def first_status(wisp_script: Path, env: dict[str, str], cwd: Path) -> p.Status:
    """Start `wisp chat --json` in ``cwd``, read up to its first status, and quit."""
    script = cwd.parent / "script.json"
    script.write_text('{"responses": []}')
    process = await asyncio.create_subprocess_exec(
        str(wisp_script), "chat", "--json", "-m", f"script:{script}", env=env, cwd=cwd,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None and process.stdin is not None
    try:
        while True:
            raw = await asyncio.wait_for(process.stdout.readline(), HANG)
            assert raw, "wisp closed stdout"
            line = p.decode_outbound(raw)
            if isinstance(line, p.Status):
                return line
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.communicate(), HANG)


@pytest.fixture
def confining() -> None:
    if probe_uncached().landlock_abi is None:
        pytest.skip("this kernel has no Landlock")


def test_the_branch_is_read_from_head(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", branch="feature/x")
    (repo / "sub").mkdir()
    assert read_branch(repo / "sub") == "feature/x"


def test_a_detached_head_is_its_commit_s_first_eight_characters(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    commit = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "--detach")
    assert read_branch(repo) == commit[:8]


def test_a_worktree_s_branch_is_read_through_its_gitdir_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    assert (tmp_path / "side" / ".git").is_file()
    assert read_branch(tmp_path / "side") == "side"


def test_a_head_that_is_a_fifo_is_not_waited_on(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    os.mkfifo(repo / ".git" / "HEAD")
    assert read_branch(repo) is None


def test_outside_a_repository_there_is_no_branch(tmp_path: Path) -> None:
    assert read_branch(tmp_path) is None


async def test_the_line_counts_are_read_confined(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, confining: None
) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "f.txt").write_text("one\n2\nthree\n")
    status = await first_status(wisp_script, wisp_env, repo)
    assert (status.branch, status.dirty, status.added, status.removed) == ("main", True, 2, 1)


async def test_a_repository_s_fsmonitor_is_never_run(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, wisp_home: Path, confining: None
) -> None:
    repo = make_repo(tmp_path / "repo")
    marker = tmp_path / "fsmonitor-ran"
    hook = marker_script(tmp_path / "fsmonitor.sh", marker)
    git(repo, "config", "core.fsmonitor", str(hook))
    (repo / "f.txt").write_text("changed\n")
    status = await first_status(wisp_script, wisp_env, repo)
    assert status.branch == "main"
    assert not marker.exists()


async def test_a_repository_s_filter_runs_only_confined(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, wisp_home: Path, confining: None
) -> None:
    repo = make_repo(tmp_path / "repo")
    wisp_home.mkdir()
    marker = wisp_home / "filter-ran"  # WISP_HOME: never writable by a confined program
    git(repo, "config", "filter.evil.clean", f"touch {marker}; cat")
    (repo / ".gitattributes").write_text("* filter=evil\n")
    (repo / "f.txt").write_text("changed\n")
    status = await first_status(wisp_script, wisp_env, repo)
    assert status.branch == "main"
    assert not marker.exists()


async def test_a_git_planted_first_on_path_is_not_run(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, confining: None
) -> None:
    repo = make_repo(tmp_path / "repo")
    planted = repo / ".venv" / "bin"
    planted.mkdir(parents=True)
    marker = tmp_path / "planted-git-ran"
    marker_script(planted / "git", marker)
    (repo / "f.txt").write_text("one\n")
    env = {**wisp_env, "PATH": f"{planted}{os.pathsep}{wisp_env.get('PATH', os.defpath)}"}
    status = await first_status(wisp_script, env, repo)
    assert not marker.exists()
    assert (status.branch, status.removed) == ("main", 1)
