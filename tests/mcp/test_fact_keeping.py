"""Facts a ``wisp mcp`` caller (or wisp's own model there) proposes to keep for good wait for
the person on the desk: kept with ``wisp facts keep`` at a terminal, a fact reaches a new
conversation's first request; dropped, it stays the thread's; unanswered, it is handed over
when the server stops, and ``wisp facts keep`` then keeps it itself."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import WISP
from tests.hang import HANG
from tests.mcp.conftest import Connect, write_config, write_script
from tests.models.conftest import loopback, ollama  # noqa: F401

TWO_FACTS = [
    {"subject": "release", "name": "codename", "value": "BLUE HERON", "class": "permanent"},
    {"subject": "staging", "name": "host", "value": "stage-7.internal", "class": "permanent"},
]


async def proposals(home: Path, count: int) -> list[Any]:
    """The fact proposals filed under ``home/pending``, once there are ``count``."""
    from wisp.desk.channel import list_waiting
    from wisp.desk.fact import FACT

    async with asyncio.timeout(HANG):
        while len(waiting := list_waiting(home, FACT)) < count:
            await asyncio.sleep(0.01)
    return waiting


async def facts_command(env: dict[str, str], *args: str, stdin: int | None) -> tuple[int, str]:
    """The real ``wisp facts ARGS``: its exit status and its stdout and stderr together."""
    process = await asyncio.create_subprocess_exec(
        str(WISP), "facts", *args, env=env, stdin=stdin, stdout=-1, stderr=-2
    )
    async with asyncio.timeout(HANG):
        out, _ = await process.communicate()
    return process.returncode or 0, out.decode()


async def until_logged(audit_lines: Callable[[], list[dict]], kind: str, count: int) -> list[dict]:
    """The details of the ``kind`` events in the log, once there are ``count``."""
    async with asyncio.timeout(HANG):
        while len(found := [e["details"] for e in audit_lines() if e["kind"] == kind]) < count:
            await asyncio.sleep(0.02)
    return found


async def first_request_of_a_new_conversation(env: dict[str, str], server: Any) -> str:
    """A one-shot ``wisp`` against the loopback Ollama: the messages of the turn's first request
    (after the assessment's own), as text."""
    process = await asyncio.create_subprocess_exec(
        str(WISP), "-m", "ollama:qwen2.5:0.5b", "What is the codename?", env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=-1, stderr=-1,
    )  # fmt: skip
    async with asyncio.timeout(HANG):
        _, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    turns = [body for body in server.chat_bodies() if "tools" in body]
    return json.dumps(turns[0]["messages"])


async def test_a_kept_fact_reaches_a_new_conversation_and_a_dropped_one_does_not(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    terminal: int,
    audit_lines: Callable[[], list[dict]],
    ollama: Any,  # noqa: F811
    notification_service: Any,
) -> None:
    ollama.install("qwen2.5:0.5b")
    ollama.reply_with(ollama.line("BLUE HERON."), ollama.done())
    write_config(wisp_home, {"ollama": {"baseURL": ollama.base_url}})
    script = write_script(tmp_path, [{"text": "Noted."}])
    async with connect(["-m", f"script:{script}"]) as client:
        said = await client.call_tool("respond", {"prompt": "remember these", "facts": TWO_FACTS})
        assert not said.is_error, said.content
        keep, drop = sorted(await proposals(wisp_home, 2), key=lambda p: p.subject)
        assert (keep.subject, drop.subject) == ("release", "staging")

        code, listed = await facts_command(wisp_env, "pending", stdin=terminal)
        assert code == 0 and "release codename = BLUE HERON" in listed and keep.id in listed
        code, out = await facts_command(wisp_env, "keep", keep.id, stdin=terminal)
        assert code == 0, out
        assert "kept for every conversation: release codename = BLUE HERON" in out
        code, out = await facts_command(wisp_env, "drop", drop.id, stdin=terminal)
        assert code == 0 and "dropped: staging host" in out
        settled = await until_logged(audit_lines, "approval.settled", 2)

    kept = next(s for s in settled if s["decision"] == "keep")
    assert kept["kind"] == "fact" and kept["outcome"] == "answered" and kept["via"] == "cli"
    assert (kept["fact"], kept["subject"], kept["name"], kept["value"], kept["source"]) == (
        "c1", "release", "codename", "BLUE HERON", "caller",
    )  # fmt: skip
    assert kept["kept"] == "p1" and kept["banner"] == "posted" and kept["seconds"] >= 0
    dropped = next(s for s in settled if s["decision"] == "drop")
    assert "kept" not in dropped
    events = audit_lines()
    pending = [e["details"] for e in events if e["kind"] == "approval.pending"]
    assert [(p["kind"], p["fact"], p["outcome"]) for p in pending] == [
        ("fact", "c1", "filed"), ("fact", "c2", "filed"),
    ]  # fmt: skip
    assert all(p["source"] == "caller" and p["thread"] and "command" not in p for p in pending)
    moves = [e["details"] for e in events if e["kind"] == "fact.scope.changed"]
    assert [(m["fact"], m["to"], m["now"], m["request"], m["by"]) for m in moves] == [
        ("c1", "permanent", "p1", "kept", "person"), ("c2", "thread", "c2", "dropped", "person"),
    ]  # fmt: skip
    assert all(m["proposed"] for m in moves)
    answered = [e for e in events if e["kind"] == "approval.answered"]
    assert [a["details"]["decision"] for a in answered] == ["keep", "drop"]
    starts = {e["session"]: e["details"] for e in events if e["kind"] == "session.start"}
    assert all(starts[a["session"]]["entryPoint"] == "facts" for a in answered)

    first = await first_request_of_a_new_conversation(wisp_env, ollama)
    assert "release codename: BLUE HERON" in first
    assert "stage-7" not in first


async def test_a_proposal_outlives_its_server_and_wisp_facts_keeps_it_itself(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    terminal: int,
    audit_lines: Callable[[], list[dict]],
) -> None:
    """The model's own permanent note is a proposal, never a permanent fact by itself."""
    note = {"name": "memory", "arguments": {"request": "note permanent: db port = 5433"}}
    script = write_script(tmp_path, [{"tool_calls": [note]}, {"text": "Noted."}])
    write_config(wisp_home, {"context": {"memory": True}})
    async with connect(["-m", f"script:{script}", "--tool", "memory"]) as client:
        started = await client.call_tool("respond", {"prompt": "note it", "tools": ["memory"]})
        assert not started.is_error, started.content
        [proposal] = await proposals(wisp_home, 1)
    from wisp.facts.shared import SharedFacts

    assert SharedFacts(wisp_home).read() == []  # the server stopped: nobody kept it
    handed = await until_logged(audit_lines, "approval.settled", 1)
    assert handed[0]["outcome"] == "handed-over" and handed[0]["source"] == "model"

    code, out = await facts_command(wisp_env, "keep", proposal.id, stdin=terminal)
    assert code == 0, out
    assert "the server that proposed it has stopped: kept here as p1" in out
    [kept] = SharedFacts(wisp_home).read()
    assert (kept.id, kept.subject, kept.name, kept.value) == ("p1", "db", "port", "5433")
    events = audit_lines()
    [last] = [e["details"] for e in events if e["kind"] == "approval.settled"][1:]
    assert last["decision"] == "keep" and last["kept"] == "p1" and "stopped" in last["reason"]
    [moved] = [e["details"] for e in events if e["kind"] == "fact.scope.changed"]
    assert moved["fact"].endswith("/c1") and moved["now"] == "p1" and moved["by"] == "person"


async def test_wisp_facts_answers_only_at_a_terminal(wisp_env: dict[str, str]) -> None:
    code, out = await facts_command(wisp_env, "keep", "3f9a1c2e", stdin=asyncio.subprocess.DEVNULL)
    assert code != 0 and "answers only at a terminal" in out


async def test_set_fact_scope_moves_at_once_but_only_asks_for_permanent(
    connect: Connect, tmp_path: Path, wisp_home: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    script = write_script(tmp_path, [{"text": "ok"}, {"text": "ok"}])
    fact = {"subject": "deploy", "name": "branch", "value": "release"}
    async with connect(["-m", f"script:{script}"]) as client:
        said = await client.call_tool(
            "respond", {"prompt": "hi", "thread_id": "t1", "facts": [fact]}
        )
        assert not said.is_error
        moved = await client.call_tool(
            "set_fact_scope", {"thread_id": "t1", "fact": "c1", "scope": "session"}
        )
        assert moved.structured_content == {"fact": "s1", "scope": "session", "proposed": False}
        asked = await client.call_tool(
            "set_fact_scope", {"thread_id": "t1", "fact": "s1", "scope": "permanent"}
        )
        assert asked.structured_content["proposed"] is True
        assert "waits for the person" in asked.content[0].text
        [proposal] = await proposals(wisp_home, 1)
        assert proposal.fact == "s1"
        again = await client.call_tool(
            "set_fact_scope", {"thread_id": "t1", "fact": "s1", "scope": "permanent"}
        )
        assert again.is_error and "proposed already" in again.content[0].text
    events = audit_lines()
    [move] = [e["details"] for e in events if e["kind"] == "fact.scope.changed"]
    assert (move["fact"], move["from"], move["to"], move["by"]) == (
        "c1",
        "thread",
        "session",
        "caller",
    )
    [recorded] = [e["details"] for e in events if e["kind"] == "fact.recorded"]
    assert (recorded["source"], recorded["method"], recorded["detail"]) == (
        "caller", "stated", "respond",
    )  # fmt: skip
