"""Programs wisp runs for itself, not for the model (the status line's git): each found by an
absolute path outside the writable roots, and run confined like the model's commands
(docs/sandbox.md, "Threat model").

A program on ``PATH`` inside a writable root (an activated ``.venv/bin`` in the working
directory) could have been written by a confined command; wisp must never run it unconfined.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from wisp.sandbox.writable import WritableSet

if TYPE_CHECKING:
    from wisp.tools.command_runner import CommandRunner


def find_program(name: str, writable: WritableSet, search_path: str) -> str | None:
    """The real path of the first ``name`` on ``search_path`` that neither lies in a writable
    root nor is reached through one; relative ``PATH`` entries are skipped."""
    for folder in search_path.split(os.pathsep):
        if not os.path.isabs(folder) or writable.contains(folder):
            continue
        candidate = os.path.join(folder, name)
        real = os.path.realpath(candidate)
        if not (os.path.isfile(real) and os.access(real, os.X_OK)) or writable.contains(real):
            continue
        return real
    return None


def own_argv(
    runner: CommandRunner, name: str, args: Sequence[str], search_path: str
) -> list[str] | None:
    """The argv that runs ``name`` for wisp, confined with the network off; None when there is
    no such program outside the writable roots, or commands are not confined here (no
    Landlock, ``commandPolicy.sandbox.enabled: false``, ``--unsafe``): then wisp does without."""
    from wisp.sandbox.plan import confined_argv  # not on `wisp chat`'s hand-over path

    settings = runner.settings
    if settings.unsafe or not settings.sandbox_enabled:
        return None
    program = find_program(name, runner.writable, search_path)
    if program is None:
        return None
    argv, state = confined_argv(
        [program, *args], runner.writable, network_off=True, support=runner.support
    )
    return argv if state.sandbox else None


def helper_argv(
    runner: CommandRunner, name: str, args: Sequence[str], search_path: str
) -> list[str] | None:
    """``own_argv``, for a program a face cannot do without: where commands themselves run
    unconfined (``--unsafe``, the sandbox off, no Landlock), the program found outside the
    writable roots runs unconfined too, as they do; where they are confined and it cannot be,
    None."""
    confined = own_argv(runner, name, args, search_path)
    if confined is not None or runner.sandbox_state().sandbox:
        return confined
    program = find_program(name, runner.writable, search_path)
    return None if program is None else [program, *args]
