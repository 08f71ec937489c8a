"""Narrowing a writable root around WISP_HOME (policy.md §5.2), for the helper: the standard
library only, as the helper imports this on every command that runs without the namespaces."""

from __future__ import annotations

import os


def is_within(path: str, root: str) -> bool:
    """Whether canonical ``path`` is ``root`` or lies beneath it."""
    if path == root:
        return True
    return path.startswith(root if root.endswith("/") else root + "/")


def narrow(root: str, protected: str) -> tuple[list[str], list[str]]:
    """Rules for ``root`` with ``protected`` carved out (§5.2): along the path from ``root``
    down to ``protected``, every sibling directory (all rights beneath) and every existing
    sibling file (file rights), while the directories on the path get none, so nothing new can
    be made directly in them. Symbolic links are skipped: a rule on one would follow it."""
    dirs: list[str] = []
    files: list[str] = []
    current = root
    for part in os.path.relpath(protected, root).split(os.sep):
        try:
            entries = list(os.scandir(current))
        except OSError:
            break  # unreadable: fewer rules, never more
        for entry in entries:
            if entry.name == part or entry.is_symlink():
                continue
            (dirs if entry.is_dir(follow_symlinks=False) else files).append(entry.path)
        current = os.path.join(current, part)
        if not os.path.isdir(current) or os.path.islink(current):
            break
    return dirs, files
