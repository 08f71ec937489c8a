"""Fixtures every test may use: a fresh WISP_HOME, and the real `wisp` console script."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from tests.hang import HANG
from tests.notify.bus import notification_service, session_bus

__all__ = ["notification_service", "session_bus"]  # fixtures: a desktop's notification service

WISP = Path(sys.executable).parent / "wisp"

RunWisp = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(autouse=True)
def clean_environ(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The caller's wisp settings stay out of every test, and so does their cache: each wisp
    a test starts makes its folder's cache for commands there (docs/sandbox.md, "The cache").
    So does their desktop: a notification reaches a session bus only where a test starts one
    (tests/notify/bus.py)."""
    for name in ("WISP_HOME", "WISP_LOG", "WISP_NOTIFY", "DBUS_SESSION_BUS_ADDRESS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path_factory.getbasetemp() / "xdg-runtime"))


@pytest.fixture
def wisp_home(tmp_path: Path) -> Path:
    """A WISP_HOME that does not exist yet, as on a fresh machine."""
    return tmp_path / "wisp-home"


@pytest.fixture
def wisp_env(wisp_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("WISP_HOME", "WISP_LOG")}
    env["WISP_HOME"] = str(wisp_home)
    return env


@pytest.fixture
def wisp_script() -> Path:
    """The installed `wisp` console script, beside this Python."""
    return WISP


@pytest.fixture
def run_wisp(wisp_env: dict[str, str]) -> RunWisp:
    """Run the installed `wisp` script with the fresh home; returns the finished process."""

    def run(
        *args: str, input: str | None = None, timeout: float = HANG, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(WISP), *args],
            env=wisp_env,
            cwd=cwd,
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run


@pytest.fixture
def audit_lines(wisp_home: Path) -> Callable[[], list[dict]]:
    """Every line of every audit file under the home, oldest first, decoded."""
    from wisp.audit.log_files import log_files

    def read() -> list[dict]:
        return [
            msgspec.json.decode(line)
            for path in log_files(wisp_home / "logs")
            for line in path.read_bytes().splitlines()
        ]

    return read
