"""The model's commands' own cache (docs/sandbox.md, "The cache"): one per working folder,
``$XDG_CACHE_HOME/wisp/sandbox/<SHA-256 of the folder's real path>`` (else under ``~/.cache``),
made safely, pointed at by the caches' variables, and swept when unused.

The rest of the person's cache is no writable root: what pip, uv or go would leave there, a
program the person runs later, unconfined, would read. Each folder's cache has a marker beside
it, ``<digest>.used``, touched at every session start there: a command can write in its cache
but not beside it, so it cannot make another folder's cache look unused, nor its own look used.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import threading
import time
from collections.abc import Iterator, Mapping

__all__ = [
    "CACHE_VARIABLES",
    "cache_environment",
    "cache_folder",
    "person_cache",
    "prepare",
    "sweep",
    "sweep_in_background",
]

CACHE_VARIABLES = (
    ("XDG_CACHE_HOME", ""),
    ("PIP_CACHE_DIR", "pip"),
    ("UV_CACHE_DIR", "uv"),
    ("npm_config_cache", "npm"),
    ("YARN_CACHE_FOLDER", "yarn"),
    ("GOCACHE", "go-build"),
    ("GOMODCACHE", "go-mod"),
    ("PRE_COMMIT_HOME", "pre-commit"),
)
"""Each variable the model's commands get, and the folder it names inside their cache. Only
caches, which a program fills again when they are empty: not ``CARGO_HOME`` or ``HF_HOME``,
which hold configuration, programs and tokens besides. The variables name the folders each
program would pick under ``XDG_CACHE_HOME`` anyway; set, they also override a person's own
``PIP_CACHE_DIR`` (or a default outside the cache: npm's ``~/.npm``, go's ``~/go/pkg/mod``),
which the model's commands could not write."""

MARKER = ".used"
"""The suffix of a folder's marker: ``<digest>.used``, its mtime the folder's last use."""

_DIGEST = re.compile(r"[0-9a-f]{64}")
_DAY = 86_400
_PLACE = ("wisp", "sandbox")
"""Where the folders' caches lie in the person's cache."""


def person_cache(environ: Mapping[str, str]) -> str:
    """The person's cache: ``$XDG_CACHE_HOME`` when it is an absolute path (the XDG spec
    ignores a relative one), else ``~/.cache``."""
    given = environ.get("XDG_CACHE_HOME", "").strip()
    if os.path.isabs(given):
        return given
    home = environ.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".cache")


def cache_folder(working_directory: str | os.PathLike[str], environ: Mapping[str, str]) -> str:
    """The model's commands' cache for ``working_directory``: named by the SHA-256 of its real
    path, so two folders never share one and the same folder always finds its own again.

    Only the person's cache is resolved (it may be a link of theirs): a link below it is not
    followed here, and ``prepare`` refuses it."""
    real = os.path.realpath(os.fspath(working_directory))
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()
    return os.path.join(os.path.realpath(person_cache(environ)), *_PLACE, digest)


def cache_environment(folder: str) -> dict[str, str]:
    """The variables that point the caches of the model's commands at ``folder``."""
    return {name: os.path.join(folder, sub) if sub else folder for name, sub in CACHE_VARIABLES}


def prepare(folder: str) -> None:
    """Make ``folder`` (a ``cache_folder``), mode 0700, and touch its marker.

    The person's cache may be a symbolic link (theirs to make); below it, each folder is opened
    by its descriptor without following a link, and must be a real folder of this user's:
    ``OSError`` otherwise, and the cache is not used."""
    sandbox_path, digest = os.path.split(folder)
    with _sandbox_folder(os.path.dirname(os.path.dirname(sandbox_path)), create=True) as fd:
        os.close(_own_folder(fd, digest, create=True))
        marker = os.open(
            digest + MARKER,
            os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK,
            0o600,
            dir_fd=fd,
        )
        try:
            os.utime(marker)
        finally:
            os.close(marker)


def sweep(environ: Mapping[str, str], days: int, *, now: float | None = None) -> list[str]:
    """Remove the folders' caches whose marker (or, with none, the folder itself) is older
    than ``days`` days; their digests, sorted.

    Only real folders of this user's named by a digest are removed, without following any
    symbolic link in them (``shutil.rmtree`` by descriptors); whatever cannot be removed is
    left for a later sweep."""
    limit = (time.time() if now is None else now) - days * _DAY
    try:
        with _sandbox_folder(person_cache(environ), create=False) as fd:
            old = list(_old_entries(fd, limit))
            for name in old:
                _remove(fd, name)
            return sorted(name for name in old if _DIGEST.fullmatch(name))
    except OSError:
        return []  # no caches yet, or not ours: nothing to sweep


def sweep_in_background(environ: Mapping[str, str], days: int) -> threading.Thread:
    """``sweep`` in a thread of its own, off the session's start: listing is cheap, but a
    removal may take a while. A daemon, so it never keeps wisp from exiting (what it leaves
    half removed, a later sweep finishes)."""
    thread = threading.Thread(
        target=sweep, args=(dict(environ), days), name="wisp cache sweep", daemon=True
    )
    thread.start()
    return thread


def _old_entries(fd: int, limit: float) -> Iterator[str]:
    """The digests whose cache is older than ``limit``, and old markers left without one."""
    uid = os.geteuid()
    for entry in os.scandir(fd):
        name = entry.name
        digest = name.removesuffix(MARKER)
        if not _DIGEST.fullmatch(digest):
            continue
        info = entry.stat(follow_symlinks=False)
        if info.st_uid != uid:
            continue
        if name == digest and stat.S_ISDIR(info.st_mode):
            if _last_use(fd, name, info.st_mtime) < limit:
                yield name
        elif name != digest and info.st_mtime < limit and not _exists(fd, digest):
            yield name


def _last_use(fd: int, digest: str, folder_mtime: float) -> float:
    try:
        return os.stat(digest + MARKER, dir_fd=fd, follow_symlinks=False).st_mtime
    except OSError:
        return folder_mtime


def _exists(fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=fd, follow_symlinks=False)
    except OSError:
        return False
    return True


def _remove(fd: int, name: str) -> None:
    """Remove the entry ``name`` of ``fd``, a cache's folder or a marker, following no link."""
    if not _DIGEST.fullmatch(name):
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=fd)
        return
    # Go makes its module cache read-only: open every folder to this user first, through
    # descriptors (os.fwalk follows no link), or rmtree could not empty them.
    with contextlib.suppress(OSError):
        for _path, _dirs, _files, folder in os.fwalk(name, dir_fd=fd, follow_symlinks=False):
            with contextlib.suppress(OSError):
                os.fchmod(folder, 0o700)
    shutil.rmtree(name, ignore_errors=True, dir_fd=fd)
    with contextlib.suppress(OSError):
        os.unlink(name + MARKER, dir_fd=fd)


@contextlib.contextmanager
def _sandbox_folder(base: str, *, create: bool) -> Iterator[int]:
    """A descriptor of ``base/wisp/sandbox``, each folder below ``base`` checked (and made,
    when ``create``) by ``_own_folder``."""
    if create:
        os.makedirs(base, mode=0o700, exist_ok=True)
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in _PLACE:
            inner = _own_folder(fd, name, create=create)
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def _own_folder(fd: int, name: str, *, create: bool) -> int:
    """A descriptor of the folder ``name`` in ``fd``, made mode 0700 when missing and
    ``create``: never through a symbolic link, and only a folder of this user's, set to 0700."""
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o700, dir_fd=fd)
    inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
    try:
        info = os.fstat(inner)
        if info.st_uid != os.geteuid():
            raise PermissionError(f"{name} in the cache belongs to user {info.st_uid}")
        if stat.S_IMODE(info.st_mode) != 0o700:
            os.fchmod(inner, 0o700)
    except OSError:
        os.close(inner)
        raise
    return inner
