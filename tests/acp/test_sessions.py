"""``wisp acp``'s saved sessions, driven by the official SDK's client side: a session saved after
each turn, loaded again by a new ``wisp acp`` process (its history replayed, its model and its
conversation going on), listed by folder, and an id nothing is saved under refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.acp.conftest import Spawn, until, write_script
from tests.models.conftest import FakeOllama, Reply

FERRY = "when does the ferry leave?"
ANSWER = "The ferry leaves at nine."


def _text(text: str) -> Any:
    from acp import text_block

    return text_block(text)


def _replies(ollama: FakeOllama, *replies: list[str]) -> None:
    """Each ``/api/chat`` request answered with the next reply's lines, in order."""
    waiting = list(replies)

    def chat(_: Any) -> Reply:
        lines = waiting.pop(0)
        return Reply(lines=[line + "\n" for line in lines], content_type="application/x-ndjson")

    ollama.server.routes[("POST", "/api/chat")] = chat


def _configure(wisp_home: Path, ollama: FakeOllama) -> str:
    ollama.install("qwen3:8b")
    wisp_home.mkdir(parents=True, exist_ok=True)
    # No assessment: every request to the model is a turn's, answered in order.
    config = {"ollama": {"baseURL": ollama.base_url}, "assessment": {"enabled": False}}
    (wisp_home / "config.json").write_text(json.dumps(config))
    return "ollama:qwen3:8b"


async def test_a_loaded_session_replays_its_history_and_goes_on_with_it(
    spawn: Spawn,
    tmp_path: Path,
    wisp_home: Path,
    ollama: FakeOllama,
    audit_lines: Callable[[], list[dict]],
) -> None:
    model = _configure(wisp_home, ollama)
    date_call = {"name": "current_date", "arguments": {}}
    _replies(
        ollama,
        [ollama.line(tool_calls=[date_call]), ollama.done()],
        [ollama.line(ANSWER), ollama.done()],
        [ollama.line("At nine, as I said."), ollama.done()],
    )
    work = str(tmp_path / "work")
    async with spawn(["-m", model]) as (conn, _client):
        session = await conn.new_session(cwd=work)
        first = await conn.prompt(session_id=session.session_id, prompt=[_text(FERRY)])
        assert first.stop_reason == "end_turn"
    saved_id = session.session_id

    # Another process, started on another model: the session comes back on its own.
    other = write_script(tmp_path, [{"text": "From the wrong model."}])
    async with spawn(["-m", f"script:{other}"]) as (conn, client):
        loaded = await conn.load_session(cwd=work, session_id=saved_id)
        await until(lambda: "agent_message_chunk" in client.kinds())
        replayed = list(client.updates)
        client.forget()
        again = await conn.prompt(session_id=saved_id, prompt=[_text("and the last one?")])

    assert all(sid == saved_id for sid, _ in replayed)
    updates = [update for _, update in replayed]
    assert [u.session_update for u in updates] == [
        "user_message_chunk",
        "tool_call",
        "agent_message_chunk",
    ]
    assert updates[0].content.text == FERRY
    call = updates[1]
    assert call.title.startswith("current_date") and call.status == "completed"
    assert call.content  # the output the call gave, as the live turn showed it
    assert updates[2].content.text == ANSWER
    [option] = loaded.config_options
    assert option.current_value == model

    assert again.stop_reason == "end_turn"
    assert client.message().startswith("At nine, as I said.")
    # The next prompt's request carried the earlier turn: its prompt, its call and its answer.
    [*_, last] = ollama.chat_bodies()
    contents = [message.get("content", "") for message in last["messages"]]
    assert FERRY in contents and ANSWER in contents
    assert any(message.get("tool_calls") for message in last["messages"])
    assert contents[-1].endswith("and the last one?")

    starts = [e for e in audit_lines() if e["kind"] == "session.start"]
    assert starts[0]["session"] == saved_id
    assert starts[-1]["details"]["resume"] == saved_id
    assert starts[-1]["details"]["carriedFrom"] == [saved_id]
    assert starts[-1]["details"]["model"] == model


async def test_an_unknown_session_is_an_error_naming_it(spawn: Spawn, tmp_path: Path) -> None:
    from acp import RequestError

    script = write_script(tmp_path, [{"text": "Hello."}])
    async with spawn(["-m", f"script:{script}"]) as (conn, client):
        for unknown in ("0123456789abcdef", "../../config"):
            with pytest.raises(RequestError) as raised:
                await conn.load_session(cwd=str(tmp_path / "work"), session_id=unknown)
            assert unknown in str(raised.value)
            assert raised.value.data["sessionId"] == unknown
        assert client.updates == []


async def test_sessions_are_listed_by_folder_with_their_first_prompt(
    spawn: Spawn, tmp_path: Path
) -> None:
    script = write_script(tmp_path, [{"text": "One."}, {"text": "Two."}, {"text": "Three."}])
    folders = [tmp_path / "a", tmp_path / "b"]
    for folder in folders:
        folder.mkdir()
    async with spawn(["-m", f"script:{script}"]) as (conn, _client):
        started = await conn.initialize(protocol_version=1)
        capabilities = started.agent_capabilities
        assert capabilities.load_session is True
        assert capabilities.session_capabilities.list is not None
        ids = []
        for folder, words in zip(folders, ("first in a", "first in b"), strict=True):
            session = await conn.new_session(cwd=str(folder))
            await conn.prompt(session_id=session.session_id, prompt=[_text(words)])
            ids.append(session.session_id)
        await conn.prompt(session_id=ids[0], prompt=[_text("second in a")])
        unsaved = await conn.new_session(cwd=str(folders[0]))  # no turn yet: nothing saved
        in_a = await conn.list_sessions(cwd=str(folders[0]))
        everywhere = await conn.list_sessions()

    [listed] = in_a.sessions
    assert (listed.session_id, listed.cwd, listed.title) == (ids[0], str(folders[0]), "first in a")
    assert listed.updated_at
    assert {s.session_id for s in everywhere.sessions} == set(ids)
    assert unsaved.session_id not in {s.session_id for s in everywhere.sessions}


async def test_a_session_open_in_another_wisp_acp_is_refused(spawn: Spawn, tmp_path: Path) -> None:
    from acp import RequestError

    script = write_script(tmp_path, [{"text": "Saved."}])
    work = str(tmp_path / "work")
    async with spawn(["-m", f"script:{script}"]) as (conn, _client):
        session = await conn.new_session(cwd=work)
        await conn.prompt(session_id=session.session_id, prompt=[_text("keep this")])
        async with spawn(["-m", f"script:{script}"]) as (second, _other):
            with pytest.raises(RequestError) as raised:
                await second.load_session(cwd=work, session_id=session.session_id)
    assert "open in another wisp" in json.dumps(raised.value.data)
