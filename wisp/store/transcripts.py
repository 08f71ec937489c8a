"""Saving and resuming a conversation: ``transcripts/<name>.json`` (docs/store.md,
"Saving and resuming"), chat's named conversations and ``wisp acp``'s sessions alike.

One file holds every entry, active or dropped, so a resumed conversation keeps its entry
numbers: a citation of an old entry still points at it. While a wisp has a named conversation
open it holds ``transcripts/<name>.lock`` (``hold``), so a second wisp on the same name is
refused instead of one of the two conversations being silently overwritten.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from wisp.errors import WispError
from wisp.home import ensure_private_dir, open_private, replace_atomically
from wisp.store.entries import Entry, decode_value
from wisp.store.store import ConversationStore

VERSION = 1
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class TranscriptError(WispError):
    """A transcript cannot be saved or resumed."""


class SavedWith(msgspec.Struct, frozen=True, rename="camel", omit_defaults=True):
    """What the conversation ran with when it was saved: the model it was on and its working
    folder (absent in transcripts saved before wisp kept them)."""

    model: str | None = None
    working_directory: str | None = None


class _Transcript(msgspec.Struct, rename="camel"):
    version: int
    entries: list[dict[str, Any]]
    saved_with: SavedWith = SavedWith()
    facts: list[dict[str, Any]] = []
    """The conversation's facts, every version (docs/turn.md, "Facts"); absent before wisp
    kept facts."""
    summaries: list[dict[str, Any]] = []
    """The running summary's versions kept (docs/turn.md, "The running summary"); absent
    before wisp wrote one."""


class Transcript(NamedTuple):
    """A saved conversation: its store, and its facts and summaries as saved (for the caller to
    read back), and what it ran with."""

    store: ConversationStore
    facts: list[dict[str, Any]]
    summaries: list[dict[str, Any]]
    saved_with: SavedWith


def transcript_path(folder: Path, name: str) -> Path:
    if not _NAME.match(name) or name.startswith("."):
        raise TranscriptError(
            f"{name!r} is not a transcript name: use letters, digits, '.', '_' and '-'"
        )
    return folder / f"{name}.json"


def save(
    store: ConversationStore,
    folder: Path,
    name: str,
    facts: Sequence[msgspec.Struct] = (),
    summaries: Sequence[msgspec.Struct] = (),
    saved_with: SavedWith | None = None,
) -> Path:
    """Write the store and its conversation's facts, running summary and model and folder
    atomically, mode 0600. A failure (a full disk, a folder that cannot be written) is one
    ``TranscriptError`` naming the file and the cause; the old file stays."""
    path = transcript_path(folder, name)
    saved = {
        "version": VERSION, "entries": store.entries, "facts": list(facts),
        "summaries": list(summaries), "savedWith": saved_with or SavedWith(),
    }  # fmt: skip
    body = msgspec.json.encode(saved)
    try:
        ensure_private_dir(folder)
        replace_atomically(path, body)
    except OSError as exc:
        raise TranscriptError(f"cannot save {path}: {_cause(exc)}") from exc
    return path


def load(folder: Path, name: str) -> Transcript:
    """The saved store, checked, its entries' origin now ``resumed``; and its facts and
    summaries as saved, for the caller to check as it reads them."""
    path = transcript_path(folder, name)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise TranscriptError(f"no transcript named {name!r} in {folder}") from None
    except OSError as exc:
        raise TranscriptError(f"cannot read {path}: {_cause(exc)}") from exc
    try:
        transcript, entries = _checked_entries(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as exc:
        raise TranscriptError(
            f"transcript {name!r} cannot be resumed: {exc}; start a new conversation"
        ) from exc
    for entry in entries:
        if entry.origin == "turn":
            entry.origin = "resumed"
        if entry.dropped_at is not None:
            entry.dropped_at = 0
        if entry.referenced_at is not None:
            entry.referenced_at = 0
    return Transcript(
        ConversationStore(entries), transcript.facts, transcript.summaries, transcript.saved_with
    )


def _checked_entries(raw: bytes) -> tuple[_Transcript, list[Entry]]:
    transcript = msgspec.json.decode(raw, type=_Transcript)
    if transcript.version != VERSION:
        raise ValueError(f"version {transcript.version} (this wisp reads {VERSION})")
    entries: list[Entry] = []
    for position, item in enumerate(transcript.entries, start=1):
        entry = msgspec.convert(item, Entry)
        if entry.id != position:
            raise ValueError(f"entry {position} is numbered {entry.id}")
        entry.value = decode_value(entry.kind, entry.value)
        entries.append(entry)
    return transcript, entries


class _ListedEntry(msgspec.Struct):
    kind: str
    value: Any


class _Listed(msgspec.Struct, rename="camel"):
    """What a listing reads of a transcript: what it ran with and its entries' kinds and
    values (the first prompt is its title)."""

    version: int
    entries: list[_ListedEntry]
    saved_with: SavedWith = SavedWith()


class Listed(msgspec.Struct, frozen=True):
    """A saved conversation as a list shows it."""

    name: str
    working_directory: str | None
    title: str | None
    """The first line of its first prompt, cut to ``TITLE_CHARACTERS``."""
    updated: str
    """When it was last saved: ISO 8601 UTC."""


TITLE_CHARACTERS = 80


def listed(folder: Path) -> Iterator[Listed]:
    """Every transcript in ``folder`` that reads, most recently saved first; one that does not
    read (or is being replaced) is left out, as a resume would refuse it."""
    found: list[tuple[float, Path]] = []
    with contextlib.suppress(OSError):
        for path in folder.glob("*.json"):
            if not _NAME.match(path.stem):  # not a name a transcript is saved under
                continue
            with contextlib.suppress(OSError):
                found.append((path.stat().st_mtime, path))
    for mtime, path in sorted(found, reverse=True):
        try:
            saved = msgspec.json.decode(path.read_bytes(), type=_Listed)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            continue
        if saved.version != VERSION:
            continue
        updated = datetime.fromtimestamp(mtime, UTC).isoformat(timespec="seconds")
        yield Listed(
            name=path.stem,
            working_directory=saved.saved_with.working_directory,
            title=_title(saved.entries),
            updated=updated.replace("+00:00", "Z"),
        )


def _title(entries: list[_ListedEntry]) -> str | None:
    prompt = next((e.value for e in entries if e.kind == "prompt"), None)
    if not isinstance(prompt, str) or not prompt.strip():
        return None
    line = prompt.strip().splitlines()[0]
    return line if len(line) <= TITLE_CHARACTERS else line[: TITLE_CHARACTERS - 1] + "…"


def carried_from(store: ConversationStore) -> list[str]:
    """The distinct sessions a resumed store's sources point into, sorted."""
    return sorted({source.session for entry in store for source in entry.sources})


class TranscriptLock:
    """The hold on one named conversation: an fcntl lock on ``<name>.lock`` beside its
    transcript. The kernel drops it when the process ends, however it ends (kill -9 too)."""

    def __init__(self, name: str, fd: int | None) -> None:
        self.name = name
        self._fd = fd

    @property
    def is_held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        # The file stays: removing it would let a third wisp lock a new file while a second
        # still waits on (and then locks) the removed one.
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor drops the flock
            self._fd = None


def hold(folder: Path, name: str) -> TranscriptLock:
    """Hold the conversation ``name`` for this process, or raise ``TranscriptError`` naming
    the pid that holds it. Where the lock file cannot be made (the folder cannot be written)
    there is nothing to hold: no other wisp can save there either, and each save will say
    why it failed, so the conversation goes on unheld."""
    path = transcript_path(folder, name).with_suffix(".lock")
    try:
        ensure_private_dir(folder)
        fd = open_private(path, os.O_RDWR | os.O_CREAT)
    except OSError:
        return TranscriptLock(name, None)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise TranscriptError(
            f"the conversation {name!r} is open in another wisp ({holder}); "
            "end that one first, or use another name"
        ) from None
    except OSError:
        os.close(fd)
        return TranscriptLock(name, None)
    with contextlib.suppress(OSError):  # a full disk: held all the same, without the pid
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return TranscriptLock(name, fd)


def _holder(fd: int) -> str:
    """``pid N`` from a held lock file (its holder writes it just after locking)."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    return f"pid {text}" if text.isdigit() else "pid not yet written"


def _cause(exc: OSError) -> str:
    """The cause in the system's words (``No space left on device``), without the path the
    message names already."""
    return exc.strerror or str(exc)
