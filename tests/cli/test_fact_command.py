"""`/fact` in `wisp chat --json`: the person states, lists and deletes facts, each recorded."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_chat_json import Front
from wisp import protocol as p


async def answer(chat: Front, text: str) -> p.Note | p.Output:
    """What wisp says back to one slash command."""
    await chat.send(p.Message(text=text))
    while not isinstance(line := await chat.next(), p.Note | p.Output):
        pass
    return line


async def test_a_fact_stated_listed_and_deleted(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, audit_lines
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": "Noted."}]}))
    chat = await Front.start(wisp_script, wisp_env, tmp_path, "-m", f"script:{script}")
    await chat.until(p.Status)
    stated = await answer(chat, "/fact Deploy Branch = release")
    assert stated == p.Note(text="fact c1: deploy branch = release")
    await answer(chat, "/fact deploy branch = main")
    listed = await answer(chat, "/fact")
    assert listed == p.Output(text="c2   deploy branch = main  (person)")
    deleted = await answer(chat, "/fact delete c2")
    assert deleted == p.Note(text="fact c2 deleted: later requests leave it out")
    refused = await answer(chat, "/fact deploy = main")
    assert isinstance(refused, p.Note) and "SUBJECT NAME = VALUE" in refused.text
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0
    kinds = [(e["kind"], e["details"].get("id")) for e in audit_lines() if "fact" in e["kind"]]
    assert kinds == [
        ("fact.recorded", "c1"), ("fact.recorded", "c2"), ("fact.superseded", "c1"),
        ("fact.deleted", "c2"),
    ]  # fmt: skip
    recorded = next(e for e in audit_lines() if e["kind"] == "fact.recorded")
    assert recorded["details"]["source"] == "person" and recorded["details"]["detail"] == "/fact"


async def test_a_fact_the_model_notes_ends_its_turn_with_a_facts_note(
    wisp_script: Path, wisp_env: dict[str, str], wisp_home: Path, tmp_path: Path, audit_lines
) -> None:
    wisp_home.mkdir(parents=True, exist_ok=True)
    (wisp_home / "config.json").write_text(json.dumps({"context": {"memory": True}}))
    note = {"name": "memory", "arguments": {"request": "note db port = 5433"}}
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"tool_calls": [note]}, {"text": "Noted."}]}))
    chat = await Front.start(wisp_script, wisp_env, tmp_path, "-m", f"script:{script}")
    await chat.until(p.Status)
    await chat.send(p.Message(text="The database listens on 5433."))
    end = await chat.until(p.Turn, phase="end")
    assert end.facts == [
        p.TurnFact(
            id="c1", scope="thread", subject="db", name="port", value="5433", source="model",
            proposed=False,
        )
    ]  # fmt: skip
    assert await chat.next() == p.Note(text="1 new fact: c1 db port = 5433 (model)")
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0
    (recorded,) = [e for e in audit_lines() if e["kind"] == "fact.recorded"]
    assert (recorded["details"]["method"], recorded["details"]["detail"]) == ("noted", "memory")


async def test_facts_are_saved_with_the_transcript_and_come_back_with_it(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": "Noted."}]}))
    chat = await Front.start(
        wisp_script, wisp_env, tmp_path, "-m", f"script:{script}", "--save", "deploy"
    )
    await chat.until(p.Status)
    await answer(chat, "/fact deploy branch = release")
    await answer(chat, "/fact db port = 5432")
    await answer(chat, "/fact delete c2")
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0

    again = await Front.start(
        wisp_script, wisp_env, tmp_path, "-m", f"script:{script}", "--resume", "deploy"
    )
    await again.until(p.Status)
    assert await answer(again, "/fact") == p.Output(text="c1   deploy branch = release  (person)")
    assert await answer(again, "/fact db port = 5433") == p.Note(text="fact c3: db port = 5433")
    await again.send(p.Message(text="/quit"))
    assert await again.finish() == 0


async def test_a_fact_made_permanent_is_in_every_new_conversation_until_moved_back(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, audit_lines
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": "Noted."}]}))

    async def chat_saying(*lines: str) -> list[p.Note | p.Output]:
        chat = await Front.start(wisp_script, wisp_env, tmp_path, "-m", f"script:{script}")
        await chat.until(p.Status)
        said = [await answer(chat, line) for line in lines]
        await chat.send(p.Message(text="/quit"))
        assert await chat.finish() == 0
        return said

    _, kept = await chat_saying("/fact deploy branch = release", "/fact c1 permanent")
    assert kept == p.Note(text="fact c1 is now p1, kept for every conversation")
    listed, moved = await chat_saying("/fact", "/fact p1 thread")
    assert listed == p.Output(text="p1   deploy branch = release  (person)")
    assert moved == p.Note(text="fact p1 is now c1, this conversation's only")
    (empty,) = await chat_saying("/fact")
    assert isinstance(empty, p.Note) and empty.text.startswith("no facts yet")
    changed = [e["details"] for e in audit_lines() if e["kind"] == "fact.scope.changed"]
    assert changed[0] == {
        "fact": "c1", "from": "thread", "to": "permanent", "by": "person", "now": "p1",
        "subject": "deploy", "name": "branch", "source": "person", "value": "release",
        "proposed": False,
    }  # fmt: skip
    assert (changed[1]["fact"], changed[1]["to"], changed[1]["now"]) == ("p1", "thread", "c1")


async def test_a_front_end_states_a_fact_with_a_line_of_its_own(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": "Noted."}]}))
    chat = await Front.start(wisp_script, wisp_env, tmp_path, "-m", f"script:{script}")
    await chat.until(p.Status)
    await chat.send(p.StateFact(subject="release train", name="day", value="Tuesday"))
    assert await chat.until(p.Note) == p.Note(text="fact c1: release train day = Tuesday")
    await chat.send(p.StateFact(subject="db", name="", value="x"))
    refused = await chat.until(p.Note)
    assert "SUBJECT NAME = VALUE" in refused.text
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0


async def test_the_model_s_permanent_note_stays_a_proposal_until_the_person_answers(
    wisp_script: Path, wisp_env: dict[str, str], wisp_home: Path, tmp_path: Path, audit_lines
) -> None:
    from wisp.facts.shared import SharedFacts

    wisp_home.mkdir(parents=True, exist_ok=True)
    (wisp_home / "config.json").write_text(json.dumps({"context": {"memory": True}}))
    notes = [
        {"name": "memory", "arguments": {"request": "note permanent: db port = 5433"}},
        {"name": "memory", "arguments": {"request": "note permanent: db host = pg-2"}},
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"tool_calls": notes}, {"text": "Noted."}]}))
    chat = await Front.start(wisp_script, wisp_env, tmp_path, "-m", f"script:{script}")
    await chat.until(p.Status)
    await chat.send(p.Message(text="Keep the database's port and host for good."))
    end = await chat.until(p.Turn, phase="end")
    assert [(f.id, f.scope, f.proposed) for f in end.facts] == [
        ("c1", "thread", True), ("c2", "thread", True),
    ]  # fmt: skip
    note = await chat.next()
    assert isinstance(note, p.Note) and "(model, proposed permanent)" in note.text
    assert "/facts keep ID" in note.text
    assert SharedFacts(wisp_home).read() == []  # the model cannot make one permanent
    listed = await answer(chat, "/fact")
    assert "c1   db port = 5433  (model, proposed permanent)" in listed.text
    assert await answer(chat, "/facts keep c1") == p.Note(
        text="fact c1 is now p1, kept for every conversation"
    )
    assert await answer(chat, "/facts drop c2") == p.Note(text="fact c2 stays this conversation's")
    refused = await answer(chat, "/facts keep c2")
    assert isinstance(refused, p.Note) and "no longer proposed" in refused.text
    nothing = await answer(chat, "/facts keep 3f9a1c2e")
    assert isinstance(nothing, p.Note) and "no proposal 3f9a1c2e is waiting" in nothing.text
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0
    assert [f.id for f in SharedFacts(wisp_home).read()] == ["p1"]
    changed = [e["details"] for e in audit_lines() if e["kind"] == "fact.scope.changed"]
    assert [(c["fact"], c["to"], c["now"], c["proposed"]) for c in changed] == [
        ("c1", "permanent", "p1", True), ("c2", "thread", "c2", True),
    ]  # fmt: skip
    assert all("request" not in c for c in changed)  # answered in the conversation itself


async def test_a_fact_moved_to_the_session_outlives_new(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, audit_lines
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": "Noted."}]}))
    chat = await Front.start(wisp_script, wisp_env, tmp_path, "-m", f"script:{script}")
    await chat.until(p.Status)
    await answer(chat, "/fact deploy branch = release")
    await answer(chat, "/fact db port = 5433")
    moved = await answer(chat, "/fact c2 session")
    assert moved == p.Note(text="fact c2 is now s1, this session's (kept by /new)")
    await chat.send(p.Message(text="/new"))
    await chat.until(p.Note, text="new conversation")
    assert await answer(chat, "/fact") == p.Output(text="s1   db port = 5433  (person)")
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0
    [changed] = [e["details"] for e in audit_lines() if e["kind"] == "fact.scope.changed"]
    assert (changed["from"], changed["to"], changed["now"]) == ("thread", "session", "s1")
