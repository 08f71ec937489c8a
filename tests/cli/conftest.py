"""Fixtures for running `wisp` as a person would, with nothing of the caller's environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Protocol

import pytest

from tests.hang import HANG

# The backends' servers, shared with tests/models: pytest gives a conftest's fixtures to its own
# folder only, so this one takes them in by name.
from tests.models.conftest import llama_server, loopback, ollama, refused_url  # noqa: F401


class WispCli(Protocol):
    def __call__(
        self, *args: str, setup: str | None = None
    ) -> subprocess.CompletedProcess[str]: ...


@pytest.fixture
def bare_env(wisp_home: Path, tmp_path: Path) -> dict[str, str]:
    """PATH, a HOME of its own and the fresh WISP_HOME: nothing else of the caller's but
    PYTHONPATH, which says whose wisp is tested (a git worktree's, not the installed one's)."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp_path / "user"),
        "WISP_HOME": str(wisp_home),
    }
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


@pytest.fixture
def wisp_cli(bare_env: dict[str, str]) -> WispCli:
    """Run the installed `wisp` script in ``bare_env``; a traceback on stderr fails the test.

    ``setup`` is shell run first in the same process (``umask 000``, ``ulimit -f 2``), which
    the exec'd wisp inherits: a ``preexec_fn`` is not safe in a test process with threads.
    """
    script = str(Path(sys.executable).parent / "wisp")

    def run(*args: str, setup: str | None = None) -> subprocess.CompletedProcess[str]:
        command = [script, *args]
        if setup is not None:
            command = ["sh", "-c", f'{setup}; exec "$0" "$@"', *command]
        result = subprocess.run(
            command, env=bare_env, capture_output=True, encoding="utf-8", timeout=HANG
        )
        assert "Traceback" not in result.stderr, result.stderr
        return result

    return run
