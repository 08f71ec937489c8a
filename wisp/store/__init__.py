"""The conversation store: numbered entries, saving and resuming."""

from wisp.store.entries import Entry, EntryKind, ReplyCut, Source, ToolOutputValue
from wisp.store.store import ConversationStore, PendingEntry

__all__ = [
    "ConversationStore", "Entry", "EntryKind", "PendingEntry", "ReplyCut", "Source",
    "ToolOutputValue",
]  # fmt: skip
