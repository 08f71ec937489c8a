"""Where wisp keeps its files (docs/store.md, "Home and its files"), and the modes that keep them
private.

Everything lives under ``WISP_HOME`` (default ``~/.wisp``). Folders are 0700 and files with
conversation content 0600 *whatever the umask*: ``os.mkdir``/``os.open`` modes are masked by
the umask, so each is set again with ``chmod`` after creation.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

import msgspec

DIR_MODE = 0o700
FILE_MODE = 0o600


class Home(msgspec.Struct, frozen=True):
    """The paths under one ``WISP_HOME``."""

    root: Path

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Home:
        """The home named by ``WISP_HOME``, else ``~/.wisp``."""
        env = os.environ if environ is None else environ
        value = env.get("WISP_HOME", "").strip()
        root = Path(value).expanduser() if value else Path.home() / ".wisp"
        return cls(root.absolute())

    @property
    def config_file(self) -> Path:
        return self.root / "config.json"

    @property
    def logs_dir(self) -> Path:
        return self.root / "logs"

    @property
    def audit_file(self) -> Path:
        return self.logs_dir / "audit.jsonl"

    def ensure(self) -> Path:
        """Create the home folder (0700) if needed and return it."""
        return ensure_private_dir(self.root)


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` and its missing parents; the folders wisp creates are made 0700."""
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        # Another wisp may make it first; its mode is set just the same below.
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=DIR_MODE)
        os.chmod(folder, DIR_MODE)
    if not missing and path.is_dir() and path.stat().st_mode & 0o777 != DIR_MODE:
        os.chmod(path, DIR_MODE)
    return path


def open_private(path: Path, flags: int) -> int:
    """Open (creating if asked) a file that only its owner may read: mode 0600."""
    fd = os.open(path, flags, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_if_there(path: Path) -> bytes:
    """The file's bytes; empty when there is no such file (a store not yet written). Any other
    ``OSError`` is the caller's to name."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""


def open_lock(lock_path: Path) -> int:
    """A lock file opened (made private if new), for ``locked``: how the files several wisps
    change at once (config, approvals, facts) take turns. ``OSError`` for the caller to name."""
    return open_private(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC)


@contextlib.contextmanager
def locked(lock_fd: int, operation: int = fcntl.LOCK_EX) -> Iterator[None]:
    """``lock_fd`` (from ``open_lock``) locked with ``flock`` for the block, then closed."""
    try:
        fcntl.flock(lock_fd, operation)
        yield
    finally:
        os.close(lock_fd)  # closing the last descriptor releases the lock


def replace_atomically(path: Path, data: bytes, mode: int = FILE_MODE) -> None:
    """Write ``data`` to a temporary file beside ``path`` (mode ``mode``), flush it to disk and
    rename it over ``path``: a reader sees the old file or the new one, never half of either."""
    folder = os.open(path.parent, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        replace_in_folder(folder, path.name, data, mode)
    finally:
        os.close(folder)


def replace_in_folder(folder: int, name: str, data: bytes, mode: int = FILE_MODE) -> None:
    """``replace_atomically`` for the entry ``name`` of the folder open as ``folder``: the
    temporary file is made (``O_EXCL``, no link followed), renamed and on failure removed
    through that descriptor, so the folder cannot change under it between the steps."""
    fd, temporary = _make_temporary(folder, name)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary, dir_fd=folder)
        raise


def _make_temporary(folder: int, name: str) -> tuple[int, str]:
    """A new file ``.NAME.XXXXXXXX.tmp`` in ``folder`` (0600 until its mode is set) and its
    name."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        temporary = f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(temporary, flags, FILE_MODE, dir_fd=folder), temporary
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no temporary file name was free", name)


T = TypeVar("T")
R = TypeVar("R")


class KeptList(Generic[T]):
    """A list kept in a JSON file under ``WISP_HOME``, ``{"version": N, FIELD: [...]}``: read
    whole, and changed only under its lock file (held exclusive) and written atomically, so two
    wisps changing it at once lose neither change. Every failure is ``error`` naming the file."""

    def __init__(
        self,
        path: Path,
        item: type[T],
        *,
        field: str,
        version: int,
        error: Callable[[str], Exception],
    ) -> None:
        self.path = path
        self.lock_path = path.with_suffix(".lock")
        self.version = version
        self.field = field
        self.error = error
        self._shape: Any = msgspec.defstruct(
            "Kept",
            [("version", int), (field, list[item])],  # type: ignore[valid-type]
        )

    def read(self) -> list[T]:
        """Every item, in order; none when there is no file yet."""
        try:
            raw = read_if_there(self.path)
        except OSError as exc:
            raise self.error(f"cannot read {self.path}: {exc.strerror}") from exc
        if not raw:
            return []
        try:
            stored = msgspec.json.decode(raw, type=self._shape)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise self.error(f"{self.path} cannot be read: {exc}; move it aside") from exc
        if stored.version != self.version:
            raise self.error(
                f"{self.path}: version {stored.version} (this wisp reads {self.version})"
            )
        return getattr(stored, self.field)

    def change(self, change: Callable[[list[T]], R]) -> R:
        """``change`` applied to the items as they are now, under the lock; the list it leaves
        written back. Returns what ``change`` returns."""
        with self._locked():
            items = self.read()
            result = change(items)
            body = msgspec.json.encode(self._shape(self.version, items))
            try:
                replace_atomically(self.path, body)
            except OSError as exc:
                raise self.error(f"cannot write {self.path}: {exc.strerror}") from exc
            return result

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            ensure_private_dir(self.path.parent)
            fd = open_lock(self.lock_path)
        except OSError as exc:
            raise self.error(f"cannot lock {self.lock_path}: {exc.strerror}") from exc
        with locked(fd):
            yield
