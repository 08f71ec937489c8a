"""Finding the programs wisp-tui runs for itself (a clipboard program; wisp, when no path names
it): never one in a folder a confined command can write to (docs/sandbox.md, "Threat model").

An activated ``.venv/bin`` in the working directory comes first on ``PATH``, and the model's
commands may write there; what wisp-tui runs, runs unconfined. wisp-tui knows the backend only
by its protocol, so it avoids the sandbox's default writable roots (docs/sandbox.md): the
working directory, ``$TMPDIR`` and ``/tmp``, and the user cache. Roots added in config.json
(``commandPolicy.sandbox.writableRoots``) are not known here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence


def writable_folders(env: Mapping[str, str], cwd: str) -> tuple[str, ...]:
    """The sandbox's default writable roots for ``env`` and working directory ``cwd``, real."""
    home = env.get("HOME") or os.path.expanduser("~")
    cache = env.get("XDG_CACHE_HOME", "").strip() or os.path.join(home, ".cache")
    tmpdir = env.get("TMPDIR", "").strip()
    folders = [cwd, *([tmpdir] if tmpdir else []), "/tmp", cache]
    return tuple(dict.fromkeys(os.path.realpath(os.path.join(cwd, f)) for f in folders))


def find_program(name: str, env: Mapping[str, str], avoid: Sequence[str]) -> str | None:
    """The first ``name`` on ``env``'s ``PATH`` whose folder and real file both lie outside
    ``avoid``; relative ``PATH`` entries (``.``, empty) are skipped."""
    for folder in env.get("PATH", os.defpath).split(os.pathsep):
        if not os.path.isabs(folder) or _is_inside(os.path.realpath(folder), avoid):
            continue
        candidate = os.path.join(folder, name)
        real = os.path.realpath(candidate)
        if os.path.isfile(real) and os.access(real, os.X_OK) and not _is_inside(real, avoid):
            return candidate  # as named: a program may read its own name
    return None


def _is_inside(path: str, folders: Sequence[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)
