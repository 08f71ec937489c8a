"""Saving and resuming a conversation: ``transcripts/<name>.json`` (agent.md §2.5).

One file holds every entry, active or dropped, so a resumed conversation keeps its entry
numbers: a citation of an old entry still points at it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec

from wisp.errors import WispError
from wisp.home import ensure_private_dir, replace_atomically
from wisp.store.entries import Entry, decode_value
from wisp.store.store import ConversationStore

VERSION = 1
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class TranscriptError(WispError):
    """A transcript cannot be saved or resumed."""


class _Transcript(msgspec.Struct):
    version: int
    entries: list[dict[str, Any]]


def transcript_path(folder: Path, name: str) -> Path:
    if not _NAME.match(name) or name.startswith("."):
        raise TranscriptError(
            f"{name!r} is not a transcript name: use letters, digits, '.', '_' and '-'"
        )
    return folder / f"{name}.json"


def save(store: ConversationStore, folder: Path, name: str) -> Path:
    """Write the store atomically, mode 0600."""
    path = transcript_path(folder, name)
    ensure_private_dir(folder)
    body = msgspec.json.encode({"version": VERSION, "entries": store.entries})
    replace_atomically(path, body)
    return path


def load(folder: Path, name: str) -> ConversationStore:
    """The saved store, checked; its entries' origin becomes ``resumed``."""
    path = transcript_path(folder, name)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise TranscriptError(f"no transcript named {name!r} in {folder}") from None
    try:
        entries = _checked_entries(raw)
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
    return ConversationStore(entries)


def _checked_entries(raw: bytes) -> list[Entry]:
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
    return entries


def carried_from(store: ConversationStore) -> list[str]:
    """The distinct sessions a resumed store's sources point into, sorted."""
    return sorted({source.session for entry in store for source in entry.sources})
