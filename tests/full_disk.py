"""A real full disk for a test: a tiny tmpfs mounted over a folder, unmounted after.

Mounting needs root (CI runs as root); elsewhere the test is skipped, saying why.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

SIZE = "64k"


@contextlib.contextmanager
def tiny_tmpfs(folder: Path) -> Iterator[Path]:
    """``folder`` (created) with a 64 KiB tmpfs mounted on it for the block's length."""
    if os.geteuid() != 0:
        pytest.skip("a full disk needs a tmpfs mount, and only root may mount one")
    if shutil.which("mount") is None:
        pytest.skip("no mount program to make a full disk with")
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE},mode=0700", "tmpfs", str(folder)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)
