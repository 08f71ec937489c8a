"""Narrowing a writable root around WISP_HOME and wisp's installation, for the helper: the standard
library only, as the helper imports this on every command that runs without the namespaces."""

from __future__ import annotations

import os
from collections.abc import Sequence


def is_within(path: str, root: str) -> bool:
    """Whether canonical ``path`` is ``root`` or lies beneath it."""
    if path == root:
        return True
    return path.startswith(root if root.endswith("/") else root + "/")


def narrow(root: str, protected: str | Sequence[str]) -> tuple[list[str], list[str]]:
    """Rules for ``root`` with each ``protected`` path carved out: in every directory on
    the way from ``root`` down to one of them, each other directory (all rights beneath) and
    each existing other file (file rights), while the directories on the way and the protected
    paths get none, so nothing new can be made directly in them. Symbolic links are skipped: a
    rule on one would follow it."""
    guarded = [protected] if isinstance(protected, str) else list(protected)
    on_path = {root}
    for path in guarded:
        current = root
        for part in os.path.relpath(path, root).split(os.sep)[:-1]:
            current = os.path.join(current, part)
            if not os.path.isdir(current) or os.path.islink(current):
                break
            on_path.add(current)
    skipped = on_path | set(guarded)
    dirs: list[str] = []
    files: list[str] = []
    for folder in sorted(on_path):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # unreadable: fewer rules, never more
        for entry in entries:
            if entry.path in skipped or entry.is_symlink():
                continue
            (dirs if entry.is_dir(follow_symlinks=False) else files).append(entry.path)
    return dirs, files
