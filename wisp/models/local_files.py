"""What wisp checked of each GGUF it loads for ``local:PATH`` (docs/models.md, "Local GGUF
checksums").

llama.cpp parses a GGUF in wisp's own process, unconfined; a file under a writable root (the
Hub cache in ``~/.cache``, the working directory) could have been rewritten by a confined
command. So wisp keeps the file's SHA-256 beside its entry in config.json
(``local.models."NAME".sha256``), taken when it first loads or checks it, and refuses a file
that no longer matches, with the way to accept it.

Hashing a 98 MB file takes about 0.25 s here and a 4 GB one seconds, so the file's stamp (size,
mtime, ctime, inode, device) is kept too: while it matches, the file is not read again. A
write changes ctime, which no one can set back by hand.

The default model is not recorded: it lies inside wisp's install, and what can rewrite it
can rewrite wisp.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import msgspec

from wisp.agent.types import ModelUnavailable
from wisp.config.paths import model_path, shell_word

CHUNK = 1 << 20


class FileStamp(msgspec.Struct, frozen=True):
    """What ``stat`` says of a file: any write, rename or replacement changes it."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    device: int

    @classmethod
    def of(cls, stat: os.stat_result) -> FileStamp:
        return cls(stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev)

    def as_list(self) -> list[int]:
        """As config.json keeps it: ``[size, mtimeNs, ctimeNs, inode, device]``."""
        return [self.size, self.mtime_ns, self.ctime_ns, self.inode, self.device]

    @classmethod
    def from_list(cls, value: object) -> FileStamp | None:
        if not isinstance(value, list) or len(value) != 5:
            return None
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in value):
            return None
        return cls(*value)


class FileRecord(msgspec.Struct, frozen=True):
    """The checksum wisp took of a model's file, where, and the file's stamp then."""

    path: str
    """The file's real path ("" when not recorded)."""
    sha256: str
    stamp: FileStamp | None
    """None when not recorded (a checksum written by hand): the file is hashed each load."""


class ModelFiles(Protocol):
    """Where the records live (the CLI keeps them in config.json, under ``local.models``)."""

    trusts_changes: bool
    """A changed file is recorded anew rather than refused: ``wisp models check``, the
    person's own word that the file is theirs."""

    def recorded(self, name: str) -> FileRecord | None: ...

    def record(self, name: str, record: FileRecord) -> None: ...


def sha256_of(fd: int) -> str:
    """The SHA-256 of the open file ``fd``, read from its start in 1 MiB chunks."""
    digest = hashlib.sha256()
    offset = 0
    while chunk := os.pread(fd, CHUNK, offset):
        digest.update(chunk)
        offset += len(chunk)
    return digest.hexdigest()


class CheckedFile(msgspec.Struct, frozen=True):
    """A model's file, open, checked against its record: load it by ``load_path``, which names
    the very file that was hashed (a name swapped for another file since cannot matter)."""

    fd: int
    real: str
    stamp: FileStamp

    @property
    def load_path(self) -> Path:
        proc = Path(f"/proc/self/fd/{self.fd}")
        return proc if proc.exists() else Path(self.real)  # Linux; elsewhere, by name

    def is_unchanged(self) -> bool:
        """Whether nothing has written to the file since it was checked."""
        return FileStamp.of(os.fstat(self.fd)) == self.stamp


@contextlib.contextmanager
def checked(path: Path, name: str, files: ModelFiles) -> Iterator[CheckedFile]:
    """Open ``path`` (the model ``name``) and check it against its record, recording it on
    first sight; ``ModelUnavailable`` when it differs from the record, naming it and the fix."""
    real = os.path.realpath(path)
    known = files.recorded(name)
    try:
        fd = os.open(real, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise ModelUnavailable(f"local: cannot read {real}: {exc.strerror or exc}") from exc
    try:
        stamp = FileStamp.of(os.fstat(fd))
        if known is None or known.path != real or known.stamp != stamp:
            _check_contents(fd, real, name, stamp, known, files)
        yield CheckedFile(fd, real, stamp)
    finally:
        os.close(fd)


def _check_contents(
    fd: int, real: str, name: str, stamp: FileStamp, known: FileRecord | None, files: ModelFiles
) -> None:
    """Hash the file (its stamp changed, or it is new) and hold it to the record."""
    digest = sha256_of(fd)
    if FileStamp.of(os.fstat(fd)) != stamp:
        raise ModelUnavailable(f"local: {real} changed while wisp was checking it; try again")
    if known is not None and known.sha256 != digest and not files.trusts_changes:
        raise ModelUnavailable(refusal(real, name, known))
    files.record(name, FileRecord(real, digest, stamp))


def refusal(real: str, name: str, known: FileRecord) -> str:
    """Why a changed file is not loaded, and how the person accepts it."""
    where = shell_word(model_path("local", name, "sha256"))
    if known.path in ("", real):
        what = f"{real} has changed since wisp recorded it"
    else:
        what = f"{real} is not the file wisp recorded as {name} ({known.path})"
    return (
        f"local: {what}: its SHA-256 is not {where} in config.json. A command may have "
        "rewritten it, so wisp will not load it. If you trust the file as it is now, record it "
        f"anew: wisp models check {shell_word('local:' + real)}"
    )
