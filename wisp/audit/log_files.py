"""The audit log's files on disk: audit.jsonl and the files rotated out of it, found and opened.

A rotation renames audit.jsonl to audit.1.jsonl (and each audit.N.jsonl one number up), so the
oldest file has the highest number. Readers open every file before reading any: a rotation while
they read then renames files they already hold, instead of moving lines from a file not yet read
into one already read.
"""

from __future__ import annotations

import os
import resource
from collections.abc import Callable
from pathlib import Path

from wisp.audit.file_sink import rotated_indices

__all__ = ["Warn", "log_files", "open_all", "partial_line", "rotated_files"]

Warn = Callable[[str], None]


def log_files(logs_dir: Path) -> list[Path]:
    """The audit files, oldest first: audit.N.jsonl … audit.1.jsonl, then audit.jsonl."""
    rotated = sorted(rotated_indices(logs_dir), reverse=True)
    files = [logs_dir / f"audit.{index}.jsonl" for index in rotated]
    current = logs_dir / "audit.jsonl"
    if current.exists():
        files.append(current)
    return files


def rotated_files(logs_dir: Path) -> list[tuple[Path, int]]:
    """(path, inode) of each rotated file, newest (audit.1.jsonl) first."""
    files: list[tuple[Path, int]] = []
    for index in sorted(rotated_indices(logs_dir)):
        path = logs_dir / f"audit.{index}.jsonl"
        try:
            files.append((path, os.stat(path).st_ino))
        except FileNotFoundError:
            continue
    return files


def open_all(paths: list[Path], warn: Warn) -> list[tuple[Path, int]]:
    """Each path that still exists, opened for reading (a file descriptor); the caller closes
    them. A file that cannot be read is named in a warning and left out."""
    _allow_open_files(len(paths) + 64)
    opened: list[tuple[Path, int]] = []
    for path in paths:
        try:
            opened.append((path, os.open(path, os.O_RDONLY | os.O_CLOEXEC)))
        except FileNotFoundError:
            continue  # removed by a rotation since the listing: its lines are in a newer file
        except OSError as exc:
            warn(f"{path}: cannot read: {exc.strerror}")
    return opened


def partial_line(path: Path) -> str:
    """The warning for a file whose last line has no newline yet."""
    return f"{path}: partial line at the end (a writer stopped mid-line); skipped"


def _allow_open_files(count: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and count > soft:
        wanted = count if hard == resource.RLIM_INFINITY else min(count, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
