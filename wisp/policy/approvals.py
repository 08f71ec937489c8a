"""``approvals.json``: the standing approvals (``project`` and ``always``) under WISP_HOME
(docs/policy.md, "approvals.json").

Several wisps share the file, so every read loads it fresh and every change is a whole
read-edit-write under an exclusive ``flock`` on ``approvals.json.lock``: read, edit, drop the
expired entries, write a temporary file (0600) and rename it over the original. A revocation
by another process is therefore never undone by this one's next grant. Reads take a shared lock
on the same file; the rename alone already keeps them from seeing half a file.

The calls block (a lock, a disk write): the gate runs them with ``asyncio.to_thread``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Literal

import msgspec

from wisp.errors import WispError
from wisp.home import ensure_private_dir, locked, open_lock, read_if_there, replace_atomically
from wisp.policy.types import LEVEL_ORDER, Level

APPROVALS_FILE = "approvals.json"
"""Its name under WISP_HOME."""
DEFAULT_PERSIST_DAYS = 30

StandingScope = Literal["project", "always"]
_Time = Annotated[datetime, msgspec.Meta(tz=True)]  # ISO 8601 with its offset, written as Z


class ApprovalsFileError(WispError):
    """``approvals.json`` could not be read or written; the message names the file."""


class StoredApproval(msgspec.Struct, kw_only=True, rename="camel"):
    """One entry of ``approvals.json``: a pattern the person approved beyond this process."""

    id: str
    """Short random hex, for ``wisp approvals revoke``."""
    pattern: str
    working_directory: str | None
    """The directory of a ``project`` approval; null for ``always``."""
    scope: StandingScope
    level: Level
    """The verdict when granted: the entry covers that level and below."""
    granted_at: _Time
    expires_at: _Time
    source: str = "chat"
    """Which face granted it: ``chat``, ``mcp``, ``respond`` …"""

    def covers(self, pattern: str, directory: Path, level: Level) -> bool:
        """Whether this entry approves ``pattern`` at ``level`` in ``directory``."""
        return (
            self.pattern == pattern
            and (self.scope == "always" or self.working_directory == str(directory))
            and LEVEL_ORDER[self.level] >= LEVEL_ORDER[level]
        )


_DECODER = msgspec.json.Decoder(list[StoredApproval])


def _utc_now() -> datetime:
    return datetime.now(UTC)


class ApprovalStore:
    """The standing approvals in one ``approvals.json``; every call reads the file fresh."""

    def __init__(
        self,
        path: Path,
        *,
        persist_days: int = DEFAULT_PERSIST_DAYS,
        source: str = "chat",
        clock: Callable[[], datetime] = _utc_now,
    ) -> None:
        if not 1 <= persist_days <= 3650:
            raise ValueError(f"approval.persistDays: expected 1 to 3650, got {persist_days}")
        self.path = path
        self.persist_days = persist_days
        self.source = source
        self._clock = clock

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    def entries(self) -> list[StoredApproval]:
        """The unexpired entries, read fresh."""
        if not self.path.parent.is_dir():
            return []
        with self._locked(fcntl.LOCK_SH):
            return self._unexpired(self._read())

    def find(self, pattern: str, directory: Path, level: Level) -> StoredApproval | None:
        """The first unexpired entry for ``pattern`` that covers ``level`` in ``directory``."""
        return next((e for e in self.entries() if e.covers(pattern, directory, level)), None)

    def grant(
        self, pattern: str, directory: Path, level: Level, scope: StandingScope
    ) -> StoredApproval:
        """Add a standing approval and return it. A dangerous verdict is never stored:
        the gate keeps it for the session instead, so asking for one here is a bug."""
        if level == "dangerous":
            raise ValueError("a dangerous approval is never stored beyond the session")
        granted = self._clock().replace(microsecond=0)
        entry = StoredApproval(
            id=os.urandom(4).hex(),
            pattern=pattern,
            working_directory=str(directory) if scope == "project" else None,
            scope=scope,
            level=level,
            granted_at=granted,
            expires_at=granted + timedelta(days=self.persist_days),
            source=self.source,
        )
        with self._changing() as entries:
            entries.append(entry)
        return entry

    def revoke(self, approval_id: str) -> bool:
        """Remove the entry with ``approval_id``; False when there is none."""
        with self._changing() as entries:
            kept = [e for e in entries if e.id != approval_id]
            removed = len(kept) != len(entries)
            entries[:] = kept
        return removed

    def clear(self) -> int:
        """Remove every entry; return how many there were."""
        with self._changing() as entries:
            count = len(entries)
            entries.clear()
        return count

    @contextlib.contextmanager
    def _changing(self) -> Iterator[list[StoredApproval]]:
        """The unexpired entries to edit in place, written back when the block ends."""
        try:
            ensure_private_dir(self.path.parent)
        except OSError as exc:
            raise ApprovalsFileError(f"{self.path}: cannot create its folder: {exc}") from exc
        with self._locked(fcntl.LOCK_EX):
            entries = self._unexpired(self._read())
            yield entries
            self._write(entries)

    @contextlib.contextmanager
    def _locked(self, operation: int) -> Iterator[None]:
        try:
            fd = open_lock(self.lock_path)
        except OSError as exc:
            raise ApprovalsFileError(f"{self.lock_path}: cannot open the lock: {exc}") from exc
        with locked(fd, operation):
            yield

    def _read(self) -> list[StoredApproval]:
        try:
            data = read_if_there(self.path)
        except OSError as exc:
            raise ApprovalsFileError(f"{self.path}: cannot read it: {exc}") from exc
        if not data.strip():
            return []
        try:
            return _DECODER.decode(data)
        except msgspec.DecodeError as exc:
            raise ApprovalsFileError(
                f"{self.path}: {exc}; fix or remove the file (wisp approvals clear)"
            ) from exc

    def _write(self, entries: list[StoredApproval]) -> None:
        data = msgspec.json.format(msgspec.json.encode(entries, order="sorted"), indent=2)
        try:
            replace_atomically(self.path, data + b"\n")
        except OSError as exc:
            raise ApprovalsFileError(f"{self.path}: cannot write it: {exc}") from exc

    def _unexpired(self, entries: list[StoredApproval]) -> list[StoredApproval]:
        now = self._clock()
        return [entry for entry in entries if entry.expires_at > now]
