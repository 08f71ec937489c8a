"""The refusal check on Linux's messages (docs/sandbox.md, "When the sandbox refuses something").

A refused write just fails; nothing else reports it. When a confined command fails with a
refusal marker on stderr, read the paths its messages name, canonicalise them, and tell the
model whether the sandbox refused them. The text could be forged by the command: this changes
only what the model and the person are told, never what runs.
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Iterator, Sequence

import msgspec

from wisp.sandbox.narrowing import is_within
from wisp.sandbox.writable import WritableSet, canonical

MARKERS = ("Permission denied", "Read-only file system", "Operation not permitted")
NOT_WRITABLE = "is not writable"
NETWORK_MARKER = "Network is unreachable"
MAX_PATHS = 8
"""At most this many paths are kept (``sandboxPaths``)."""
SHOWN_PATHS = 3
"""At most this many are named to the model."""
ROOTS_BYTES = 240
"""About this much of the roots list is named to the model."""

_QUOTED = r"""(?:'(?P<{0}1>[^']*)'|"(?P<{0}2>[^"]*)"|‘(?P<{0}3>[^’]*)’)"""
_MARKER = "(?:" + "|".join(MARKERS) + ")"
_SHAPES = tuple(
    re.compile(pattern)
    for pattern in (
        # GNU coreutils: touch, cp, mkdir, rm, mv, ln.
        r"cannot (?:touch|create directory|create regular file|remove) " + _QUOTED.format("q"),
        r"cannot move .+? to " + _QUOTED.format("q"),
        # mv across mounts (the roots are mounts of their own in the mount namespace).
        r"inter-device move failed: .+? to " + _QUOTED.format("q") + r"; unable to remove",
        r"failed to create symbolic link " + _QUOTED.format("q"),
        # mktemp: "failed to create file via template 'TEMPLATE'" (and "directory").
        r"failed to create (?:file|directory) via template " + _QUOTED.format("q"),
        # Python: PermissionError: [Errno 13] Permission denied: 'PATH', and errno 30 and 1.
        r"\[Errno (?:13|30|1)\] " + _MARKER + r": " + _QUOTED.format("q"),
        # dash: "sh: 1: cannot create PATH: <marker>".
        r"^[^:\n]+: \d+: cannot create (?P<p>.+?): " + _MARKER,
        # bash: "sh: line 1: PATH: <marker>".
        r"^[^:\n]+: line \d+: (?P<p>.+?): " + _MARKER,
        # Any tool: "tool: 'PATH': <marker>" (GNU quotes a name with spaces or quotes).
        r"^[^:\s]+: " + _QUOTED.format("q") + r": " + _MARKER,
        # Any tool: "tool: PATH: <marker>" (a bare word or words here may be prose, not a path).
        r"^[^:\s]+: (?P<g>[^:\s]+?): " + _MARKER,
    )
)


class Verdict(enum.Enum):
    """What the check concluded (``command.outcome``'s ``sandboxRefusal``)."""

    REFUSED = "refused"  # a named path lies outside every root, or inside WISP_HOME
    NOT_THE_SANDBOX = "not-the-sandbox"  # every named path is writable: something else refused
    GUESS = "guess"  # a marker, but no path to check


class Refusal(msgspec.Struct, frozen=True):
    """The check's result: the verdict, the paths for the audit, the line for the model."""

    verdict: Verdict
    paths: list[str]
    """Real paths, at most 8 (``sandboxPaths``): for ``refused``, only those outside the roots;
    empty for ``guess``."""
    line: str
    """The one line appended to the model's result."""


def check_refusal(
    stderr: str,
    *,
    exit_status: int,
    working_directory: str | os.PathLike[str],
    writable: WritableSet,
    network_off: bool,
    narrowed_roots: Sequence[str] = (),
) -> Refusal | None:
    """The check for a **confined** command's result; None when it does not apply (the command
    succeeded, or its stderr carries no marker). Relative paths in a message are resolved
    against ``working_directory``, where the command ran.

    ``narrowed_roots`` (``SandboxState.narrowed_roots``): roots narrowed around ``WISP_HOME``,
    in which nothing new can be made directly in the folders on the way down to it; a path
    there counts as refused too."""
    if exit_status == 0:
        return None
    marker = first_marker(stderr, network_off=network_off)
    if marker is None:
        return None
    paths = named_paths(stderr, os.fspath(working_directory), writable.user_home)
    outside = [
        path
        for path in paths
        if not writable.contains(path) or writable.is_carved_out(path, narrowed_roots)
    ]
    installed = [path for path in paths if path not in outside and _installation_of(path)]
    if outside or installed:
        line = _refused_line(outside, writable, narrowed_roots, installed)
        return Refusal(Verdict.REFUSED, [*outside, *installed], line)
    if paths:
        return Refusal(Verdict.NOT_THE_SANDBOX, paths, _not_the_sandbox_line(paths))
    return Refusal(Verdict.GUESS, [], _guess_line(marker))


def first_marker(stderr: str, *, network_off: bool) -> str | None:
    """The refusal marker found first in ``stderr``, or None."""
    markers = (*MARKERS, NOT_WRITABLE, *((NETWORK_MARKER,) if network_off else ()))
    found = [(stderr.find(marker), marker) for marker in markers if marker in stderr]
    return min(found)[1] if found else None


def named_paths(stderr: str, working_directory: str, user_home: str) -> list[str]:
    """The paths named on marker lines, made absolute against ``working_directory`` (where the
    command ran), ``~`` expanded, canonicalised, de-duplicated, at most 8.

    A message shape that names a file (``cannot create PATH``, ``cannot touch 'PATH'``) counts
    a bare relative name too (``out/x`` through a symlink); the catch-all ``tool: X: marker``
    counts X only when it looks like a path (absolute, ``~/``, ``./``, ``../``, or with a /)."""
    paths: dict[str, None] = {}
    for candidate, is_named_file in _candidates(stderr):
        if candidate.startswith("~/"):
            candidate = user_home + candidate[1:]
        elif not is_named_file and not (
            candidate.startswith(("/", "./", "../")) or "/" in candidate
        ):
            continue
        paths[canonical(os.path.join(working_directory, candidate))] = None
        if len(paths) == MAX_PATHS:
            break
    return list(paths)


def _candidates(stderr: str) -> Iterator[tuple[str, bool]]:
    """(path, whether the message's shape says it names a file) per marker line."""
    for line in stderr.splitlines():
        if not any(marker in line for marker in (*MARKERS, NOT_WRITABLE)):
            continue
        for shape in _SHAPES:
            match = shape.search(line)
            if match is not None:
                name, value = next(
                    (name, value) for name, value in match.groupdict().items() if value is not None
                )
                yield value, name != "g"
                break


def _installation_of(path: str) -> str | None:
    """The part of wisp's own installation that holds ``path``, if one does: never writable by
    commands, even inside a root (docs/sandbox.md, "Threat model")."""
    from wisp.sandbox.plan import install_paths  # not on the helper's path

    return next((part for part in install_paths() if is_within(path, part)), None)


def _refused_line(
    outside: list[str],
    writable: WritableSet,
    narrowed_roots: Sequence[str],
    installed: Sequence[str] = (),
) -> str:
    """Outside the roots (or in ``WISP_HOME``): the roots; carved out of a narrowed root: why,
    and how to keep the roots whole; in wisp's installation: why, and what to do."""
    narrowed = [
        path
        for path in outside
        if writable.contains(path) and writable.is_carved_out(path, narrowed_roots)
    ]
    elsewhere = [path for path in outside if path not in narrowed]
    parts = []
    if elsewhere:
        parts.append(f"{_named(elsewhere)}; commands may write only under {_roots(writable)}")
    if narrowed:
        folders = list(dict.fromkeys(os.path.dirname(path) for path in narrowed))
        parts.append(
            f"{_named(narrowed)}: nothing new can be made directly in {_named(folders)} while "
            f"WISP_HOME ({writable.protected}) lies inside it; "
            + writable.narrowing_fix(narrowed_roots)
        )
    if installed:
        holders = list(dict.fromkeys(_installation_of(path) or path for path in installed))
        parts.append(
            f"{_named(list(installed))}: it is part of wisp's own installation "
            f"({_named(holders)}), which commands may never change (wisp runs it next, "
            "unconfined); give the project's packages a virtual environment of their own"
        )
    return "sandbox: refused writing to " + "; and to ".join(parts)


def _not_the_sandbox_line(paths: list[str]) -> str:
    verb = "is" if len(paths) == 1 else "are"
    return (
        f"sandbox: not the sandbox: {_named(paths)} {verb} inside the writable roots, so something "
        "else refused it (file permissions, attributes, or a read-only mount)"
    )


def _guess_line(marker: str) -> str:
    return (
        f"sandbox: the sandbox may have refused this ({marker}, no path to check: a network "
        "connection, a process, or a file the error does not name); no policy rule denied it"
    )


def _named(paths: list[str]) -> str:
    shown = ", ".join(paths[:SHOWN_PATHS])
    more = len(paths) - SHOWN_PATHS
    return f"{shown} (and {more} more)" if more > 0 else shown


def _roots(writable: WritableSet) -> str:
    """The roots, cut to about ``ROOTS_BYTES`` at a whole root."""
    text = ""
    for root in writable.roots:
        joined = f"{text}, {root}" if text else root
        if len(joined.encode()) > ROOTS_BYTES:
            return f"{text}, …" if text else joined
        text = joined
    return text
