"""A server no one here wrote: the MCP project's filesystem server, installed from npm once
into a cache the test runs share (``.ci/run`` installs Node.js and npm from Debian); where
either is missing or the registry cannot be reached, the tests that need it skip, saying why."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import pytest

FILESYSTEM_PACKAGE = "@modelcontextprotocol/server-filesystem@2026.8.31"
FILESYSTEM_SCRIPT = "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"


@pytest.fixture(scope="session")
def filesystem_server() -> list[str]:
    """The command that runs the npm filesystem server (its allowed folders to be added)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("needs Node.js and npm (apt-get install nodejs npm; .ci/run does)")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wisp-tests"
    cache.mkdir(parents=True, exist_ok=True)
    script = cache / FILESYSTEM_SCRIPT
    with (cache / "npm.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one install, whichever worker comes first
        if not script.exists():
            done = subprocess.run(
                [npm, "install", "--prefix", str(cache), "--no-audit", "--no-fund",
                 FILESYSTEM_PACKAGE],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if done.returncode != 0 or not script.exists():
                said = (done.stderr.strip().splitlines() or ["no output"])[-1]
                pytest.skip(f"npm could not install {FILESYSTEM_PACKAGE}: {said}")
    return [node, str(script)]
