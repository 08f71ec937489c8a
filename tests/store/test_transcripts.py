"""Saving, resuming and holding a transcript, against real files (docs/store.md, "Saving and
resuming")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wisp.store import ConversationStore, PendingEntry, transcripts
from wisp.store.transcripts import TranscriptError


def _store() -> ConversationStore:
    store = ConversationStore()
    store.add(PendingEntry("instructions", "be brief"), turn=None, origin="carried", time=None)
    store.add_turn([PendingEntry("prompt", "hi"), PendingEntry("response", "hello")], turn=1,
                   time="2026-12-01T00:00:00Z")  # fmt: skip
    return store


def test_a_save_into_a_folder_that_is_a_file_is_one_error_naming_the_file(tmp_path) -> None:
    folder = tmp_path / "transcripts"
    folder.write_text("not a folder")
    with pytest.raises(TranscriptError) as caught:
        transcripts.save(_store(), folder, "notes")
    message = str(caught.value)
    assert str(folder / "notes.json") in message and "Not a directory" in message
    assert "\n" not in message


def test_a_resume_from_a_folder_that_is_a_file_is_one_error_naming_the_file(tmp_path) -> None:
    folder = tmp_path / "transcripts"
    folder.write_text("not a folder")
    with pytest.raises(TranscriptError, match="Not a directory") as caught:
        transcripts.load(folder, "notes")
    assert str(folder / "notes.json") in str(caught.value)


def test_a_saved_store_resumes_whole(tmp_path) -> None:
    path = transcripts.save(_store(), tmp_path / "transcripts", "notes")
    assert path.stat().st_mode & 0o777 == 0o600
    assert [e.text for e in transcripts.load(tmp_path / "transcripts", "notes").store] == [
        "be brief", "hi", "hello",
    ]  # fmt: skip


def test_a_held_conversation_is_refused_with_the_holders_pid(tmp_path) -> None:
    folder = tmp_path / "transcripts"
    held = transcripts.hold(folder, "shared")
    try:
        # flock belongs to the open file, so a second open is refused even in this process.
        with pytest.raises(TranscriptError) as caught:
            transcripts.hold(folder, "shared")
        assert f"pid {os.getpid()}" in str(caught.value)
        assert "'shared'" in str(caught.value)
        other = transcripts.hold(folder, "other")  # another name is free
        other.release()
    finally:
        held.release()
    transcripts.hold(folder, "shared").release()  # released: free again


def test_the_lock_file_sits_beside_the_transcript_and_is_private(tmp_path) -> None:
    folder = tmp_path / "transcripts"
    held = transcripts.hold(folder, "shared")
    try:
        lock = folder / "shared.lock"
        assert lock.read_text().strip() == str(os.getpid())
        assert lock.stat().st_mode & 0o777 == 0o600
        assert folder.stat().st_mode & 0o777 == 0o700
    finally:
        held.release()


def test_a_lock_that_cannot_be_made_is_no_hold_and_no_error(tmp_path: Path) -> None:
    # An unwritable transcripts/ must not stop the conversation: its saves say what failed.
    folder = tmp_path / "transcripts"
    folder.write_text("not a folder")
    held = transcripts.hold(folder, "shared")
    assert not held.is_held
    held.release()


def test_a_save_to_a_full_disk_is_one_error_and_leaves_no_temporary_file(tmp_path) -> None:
    from tests.full_disk import tiny_tmpfs

    store = _store()
    store.add_turn([PendingEntry("response", "x" * 100_000)], turn=2, time="2026-12-01T00:00:01Z")
    with tiny_tmpfs(tmp_path / "transcripts") as folder:
        with pytest.raises(TranscriptError) as caught:
            transcripts.save(store, folder, "big")
        assert str(folder / "big.json") in str(caught.value)
        assert "No space left on device" in str(caught.value)
        assert os.listdir(folder) == []


def test_a_transcript_keeps_its_model_and_folder_and_lists_by_its_first_prompt(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "transcripts"
    saved_with = transcripts.SavedWith(model="ollama:qwen3", working_directory="/work/app")
    transcripts.save(_store(), folder, "notes", saved_with=saved_with)
    older = folder / "old.json"  # saved before wisp kept the model and the folder
    older.write_text('{"version": 1, "entries": []}')
    os.utime(older, (0, 0))
    (folder / ".notes.json.tmp").write_text("{}")  # not a name a transcript is saved under
    (folder / "torn.json").write_text('{"version": 1, "entr')

    assert transcripts.load(folder, "notes").saved_with == saved_with
    assert transcripts.load(folder, "old").saved_with == transcripts.SavedWith()
    listed = list(transcripts.listed(folder))
    assert [(s.name, s.working_directory, s.title) for s in listed] == [
        ("notes", "/work/app", "hi"), ("old", None, None),
    ]  # fmt: skip
    assert listed[1].updated == "1970-01-01T00:00:00Z"
