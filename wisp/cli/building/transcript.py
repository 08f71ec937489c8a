"""A face's saved conversation: the name it is saved under, held while it is open, written
after each turn and read back on resume, with its facts, running summary, model and folder
(docs/store.md, "Saving and resuming"). Chat's ``--save``/``--resume``/``/save`` and ``wisp
acp``'s sessions (saved under their session id) keep theirs here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec

from wisp.agent.distilling import SummaryVersion
from wisp.agent.loop import Conversation
from wisp.facts.book import Fact, FactBook
from wisp.store import ConversationStore, transcripts


class Resumed(msgspec.Struct, frozen=True):
    """A saved conversation read back: its store, facts and running summary's versions, and
    the model it was on (None in a transcript saved before wisp kept it)."""

    store: ConversationStore
    facts: FactBook
    summaries: list[SummaryVersion]
    model: str | None

    def carried_from(self) -> list[str]:
        """The sessions its entries' sources point into (``session.start``'s
        ``carriedFrom``)."""
        return transcripts.carried_from(self.store)


class SavedTranscript:
    """The name a conversation is saved under: held while it is open, so a second wisp on it
    is refused (docs/store.md, "Saving and resuming")."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._hold: transcripts.TranscriptLock | None = None

    def hold(self, name: str) -> None:
        """Hold ``name`` from now on, letting go of the name held before;
        ``TranscriptError`` when another wisp holds it."""
        if self._hold is not None and self._hold.name == name:
            return
        hold = transcripts.hold(self.folder, name)
        self.release()
        self._hold = hold

    def exists(self, name: str) -> bool:
        """Whether a conversation is saved under ``name`` (never for a name that is not one)."""
        try:
            return transcripts.transcript_path(self.folder, name).is_file()
        except transcripts.TranscriptError:
            return False

    def save(self, conversation: Conversation, name: str) -> Path:
        self.hold(name)
        facts = list(conversation.facts.book)
        summaries = conversation.summary.versions
        saved_with = transcripts.SavedWith(
            model=conversation.model, working_directory=str(conversation.working_directory)
        )
        return transcripts.save(conversation.store, self.folder, name, facts, summaries, saved_with)

    def load(self, name: str) -> Resumed:
        """The saved conversation; ``TranscriptError`` when any of it cannot be read back."""
        saved = transcripts.load(self.folder, name)
        try:
            facts = msgspec.convert(saved.facts, list[Fact])
            summaries = msgspec.convert(saved.summaries, list[SummaryVersion])
        except msgspec.ValidationError as exc:
            raise transcripts.TranscriptError(
                f"transcript {name!r} cannot be resumed: {exc}; start a new conversation"
            ) from exc
        return Resumed(saved.store, FactBook(facts), summaries, saved.saved_with.model)

    def listed(self) -> Iterator[transcripts.Listed]:
        """The conversations saved here, most recently saved first."""
        return transcripts.listed(self.folder)

    def release(self) -> None:
        if self._hold is not None:
            self._hold.release()
            self._hold = None
