"""``wisp mcp`` as a client sees it: the tools, a thread's turns, the result's fields, the
resources and the audit, in both protocol eras the SDK speaks."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.mcp.conftest import ERAS, LEGACY, STATELESS, Connect, write_config, write_script

DATE_THEN_CITE = [
    {"tool_calls": [{"name": "current_date", "arguments": {}}]},
    {"text": "See entries 40-45."},
    {"text": "As entry 2 says."},
]


async def test_lists_its_tools_with_their_schemas(connect: Connect, tmp_path: Path) -> None:
    script = write_script(tmp_path, DATE_THEN_CITE)
    async with connect(["-m", f"script:{script}"]) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert sorted(tools) == ["close_thread", "redact", "respond", "scan", "set_fact_scope"]
    respond = tools["respond"].input_schema
    assert respond["required"] == ["prompt"]
    assert set(respond["properties"]) == {
        "prompt",
        "thread_id",
        "instructions",
        "tools",
        "model",
        "schema",
        "commandTimeoutSeconds",
        "facts",
    }
    assert respond["properties"]["thread_id"]["pattern"] == "^[A-Za-z0-9._-]{1,64}$"
    assert tools["close_thread"].input_schema["required"] == ["thread_id"]
    scope = tools["set_fact_scope"].input_schema
    assert scope["required"] == ["thread_id", "fact", "scope"]
    assert scope["properties"]["scope"]["enum"] == ["thread", "session", "permanent"]


@pytest.mark.parametrize("mode", ERAS)
async def test_a_thread_answers_continues_and_closes(
    connect: Connect, tmp_path: Path, audit_lines: Callable[[], list[dict]], mode: str
) -> None:
    script = write_script(tmp_path, DATE_THEN_CITE)
    progress: list[str] = []

    async def follow(done: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with connect(["-m", f"script:{script}"], mode=mode) as client:
        first = await client.call_tool(
            "respond", {"prompt": "what is the date?"}, progress_callback=follow
        )
        thread = first.structured_content["thread_id"]
        second = await client.call_tool("respond", {"prompt": "and now?", "thread_id": thread})
        closed = await client.call_tool("close_thread", {"thread_id": thread})
        after = await client.call_tool("close_thread", {"thread_id": thread})

    assert not first.is_error
    assert first.content[0].text == "See entries 40-45."
    result = first.structured_content
    assert result["created"] is True
    assert result["text"] == "See entries 40-45."
    assert result["ran"] == "ran: current_date"
    assert result["unknownEntries"] == [40, 41, 42, 43, 44, 45]
    assert result["cited"].startswith("cited but not in this conversation: entries 40")
    assert result["refusals"] == []
    assert result["output"] is None and result["contextNote"] is None
    [call] = result["calls"]
    assert call["tool"] == "current_date" and call["arguments"] == {}
    assert "output" in call and call["bytes"] == len(call["output"].encode())
    assert "⚙ current_date {}" in progress
    # The script's third response: the same conversation went on (a new one would replay the
    # first), and entry 2 (the first prompt) exists in it.
    assert second.content[0].text == "As entry 2 says."
    assert second.structured_content["created"] is False
    assert second.structured_content["unknownEntries"] == []
    assert not closed.is_error
    assert after.is_error and after.content[0].text == f"unknown thread {thread}"

    events = audit_lines()
    [server] = [e for e in events if e["details"].get("entryPoint") == "mcp"]
    [opened] = [e for e in events if e["details"].get("entryPoint") == "mcp-thread"]
    assert opened["details"]["parent"] == server["session"]
    prompts = [e["details"]["text"] for e in events if e["kind"] == "prompt"]
    assert prompts == ["what is the date?", "and now?"]
    assert all(e["session"] == opened["session"] for e in events if e["kind"] == "prompt")
    requests = {e["call"]: e for e in events if e["kind"] == "mcp.request"}
    results = {e["call"]: e for e in events if e["kind"] == "mcp.result"}
    assert len(requests) == 4 and requests.keys() == results.keys()
    assert [r["details"]["tool"] for r in requests.values()].count("respond") == 2
    assert results[next(iter(requests))]["details"]["text"] == "See entries 40-45."
    ends = [e for e in events if e["kind"] == "session.end"]
    assert {"session": opened["session"], "reason": "closed"} in [
        {"session": e["session"], "reason": e["details"]["reason"]} for e in ends
    ]


async def test_only_a_threads_first_call_chooses_its_settings(
    connect: Connect, tmp_path: Path
) -> None:
    script = write_script(tmp_path, DATE_THEN_CITE)
    async with connect(["-m", f"script:{script}", "--tool", "current_date"]) as client:
        wider = await client.call_tool("respond", {"prompt": "x", "tools": ["run_command"]})
        first = await client.call_tool("respond", {"prompt": "date?", "thread_id": "one"})
        later = await client.call_tool(
            "respond", {"prompt": "again", "thread_id": "one", "model": "local"}
        )
        missing = await client.call_tool(
            "respond", {"prompt": "x", "model": f"script:{tmp_path / 'none.json'}"}
        )
    assert wider.is_error
    assert "run_command" in wider.content[0].text
    assert not first.is_error
    assert later.is_error
    assert "model: only when a thread starts" in later.content[0].text
    assert missing.is_error
    assert "none.json" in missing.content[0].text


async def test_bad_arguments_are_a_tool_error_from_2025_11_25(
    connect: Connect, tmp_path: Path
) -> None:
    script = write_script(tmp_path, DATE_THEN_CITE)
    async with connect(["-m", f"script:{script}"]) as client:
        bad = await client.call_tool("respond", {"prompt": "x", "thread_id": "no spaces"})
    assert bad.is_error
    assert "thread_id" in bad.content[0].text


async def test_approval_by_elicitation_runs_the_command_at_its_scope(
    connect: Connect, tmp_path: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    import mcp_types as types

    script = write_script(
        tmp_path,
        [
            {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch made.txt"}}]},
            {"text": "Made it."},
        ],
    )
    asked: list[types.ElicitRequestParams] = []

    async def person(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"scope": "session"})

    progress: list[str] = []

    async def follow(done: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with connect(["-m", f"script:{script}"], elicitation=person) as client:
        result = await client.call_tool(
            "respond", {"prompt": "make the file"}, progress_callback=follow
        )

    assert not result.is_error
    assert (tmp_path / "work" / "made.txt").exists()
    for line in (
        "⚙ run_command touch made.txt",
        "waiting for approval [moderate]: touch made.txt",
        "· approved (session)",
        "↳ exit 0",
    ):
        assert line in progress
    [dialog] = asked
    assert dialog.message.startswith("wisp: approve command? (moderate risk)")
    assert "touch made.txt" in dialog.message
    scope = dialog.requested_schema["properties"]["scope"]
    choices = [choice["const"] for choice in scope["oneOf"]]
    assert choices == ["once", "session", "project", "always"]
    assert scope["default"] == "once"
    [call] = result.structured_content["calls"]
    assert call["command"] == "touch made.txt" and call["exitStatus"] == 0
    events = audit_lines()
    [settled] = [e for e in events if e["kind"] == "approval.settled"]
    assert settled["details"]["outcome"] == "answered"
    assert settled["details"]["via"] == "elicitation"
    [decided] = [e for e in events if e["kind"] == "approval.decided"]
    assert decided["details"]["decision"] == "approved"
    assert decided["details"]["scope"] == "session"


async def test_a_declined_dialog_is_a_refusal_not_an_error(
    connect: Connect, tmp_path: Path
) -> None:
    import mcp_types as types

    script = write_script(
        tmp_path,
        [
            {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch made.txt"}}]},
            {"text": "It was refused."},
        ],
    )

    async def person(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async with connect(["-m", f"script:{script}"], elicitation=person) as client:
        result = await client.call_tool("respond", {"prompt": "make the file"})
    assert not result.is_error
    assert not (tmp_path / "work" / "made.txt").exists()
    [refusal] = result.structured_content["refusals"]
    assert refusal["command"] == "touch made.txt"


async def test_the_stateless_era_with_no_way_to_ask_refuses_saying_why(
    connect: Connect, tmp_path: Path, wisp_home: Path
) -> None:
    # Stateless: no dialog mid-call; out of band turned off leaves no way to approve.
    write_config(wisp_home, {"approval": {"outOfBand": False}})
    script = write_script(
        tmp_path,
        [
            {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch made.txt"}}]},
            {"text": "It was refused."},
        ],
    )

    async def person(context: object, params: object) -> object:
        raise AssertionError("the stateless era never asks mid-call")

    async with connect(["-m", f"script:{script}"], mode=STATELESS, elicitation=person) as client:
        result = await client.call_tool("respond", {"prompt": "make the file"})
    assert not result.is_error
    [refusal] = result.structured_content["refusals"]
    assert "approval.outOfBand" in refusal["reason"]
    assert not (tmp_path / "work" / "made.txt").exists()


@pytest.mark.parametrize("mode", ERAS)
async def test_yes_approves_as_in_chat(connect: Connect, tmp_path: Path, mode: str) -> None:
    script = write_script(
        tmp_path,
        [
            {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch made.txt"}}]},
            {"text": "Made it."},
        ],
    )
    async with connect(["-m", f"script:{script}", "--yes"], mode=mode) as client:
        result = await client.call_tool("respond", {"prompt": "make the file"})
    assert result.structured_content["refusals"] == []
    assert (tmp_path / "work" / "made.txt").exists()


async def test_a_threads_command_timeout_is_recorded_as_the_threads(
    connect: Connect, tmp_path: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    script = write_script(
        tmp_path,
        [
            {"tool_calls": [{"name": "run_command", "arguments": {"command": "ls"}}]},
            {"text": "Listed."},
        ],
    )
    async with connect(["-m", f"script:{script}"]) as client:
        await client.call_tool("respond", {"prompt": "list", "commandTimeoutSeconds": 7})
    events = audit_lines()
    [start] = [e for e in events if e["details"].get("entryPoint") == "mcp-thread"]
    assert start["details"]["commandTimeoutSeconds"] == 7
    [outcome] = [e for e in events if e["kind"] == "command.outcome"]
    assert outcome["details"]["timeoutSource"] == "thread"
    assert outcome["details"]["timeoutSeconds"] == 7


async def test_resources_show_threads_entries_outputs_config_and_status(
    connect: Connect, tmp_path: Path, wisp_home: Path
) -> None:
    write_config(wisp_home, {"openai": {"apiKey": "sk-secret-1234"}})
    (tmp_path / "work" / "big.txt").write_text("line of text\n" * 200)
    script = write_script(
        tmp_path,
        [
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "big.txt"}}]},
            {"text": "Read it."},
        ],
    )
    async with connect(["-m", f"script:{script}", "--yes"]) as client:
        result = await client.call_tool("respond", {"prompt": "read", "thread_id": "r"})
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
        threads = json.loads((await client.read_resource("wisp://threads")).contents[0].text)
        entries = json.loads((await client.read_resource("wisp://threads/r")).contents[0].text)
        [call] = result.structured_content["calls"]
        output = (await client.read_resource(call["outputURI"])).contents[0].text
        config = (await client.read_resource("wisp://config")).contents[0].text
        status = json.loads((await client.read_resource("wisp://status")).contents[0].text)
    assert {"wisp://threads", "wisp://config", "wisp://status", "wisp://threads/r"} <= listed
    assert [thread["thread_id"] for thread in threads] == ["r"]
    assert [entry["kind"] for entry in entries["entries"]][:2] == ["instructions", "prompt"]
    assert call["outputURI"] == f"wisp://threads/r/output/{call['id']}"
    assert "line of text" in output and len(output.encode()) > 1024
    assert "sk-secret-1234" not in config
    assert any(row["key"] == "approval.outOfBand" for row in json.loads(config))
    assert status["threads"] == ["r"]
    assert status["model"] == f"script:{script}"
    assert "mechanism" in status["sandbox"]


async def test_a_schema_is_asked_in_words_validated_and_asked_once_more(
    connect: Connect, tmp_path: Path
) -> None:
    schema = {
        "type": "object",
        "properties": {"colour": {"type": "string"}},
        "required": ["colour"],
    }
    script = write_script(
        tmp_path,
        [
            {"text": "The colour is blue."},
            {"text": '{"colour": "blue"}'},
            {"text": "no"},
            {"text": "still no"},
        ],
    )
    async with connect(["-m", f"script:{script}"]) as client:
        shaped = await client.call_tool(
            "respond", {"prompt": "a colour", "schema": schema, "thread_id": "s"}
        )
        missed = await client.call_tool(
            "respond", {"prompt": "another", "schema": schema, "thread_id": "s"}
        )
    assert not shaped.is_error
    assert shaped.structured_content["output"] == {"colour": "blue"}
    assert missed.is_error
    assert "did not fit the schema" in missed.content[0].text


async def test_the_least_recently_used_thread_beyond_32_is_evicted(
    connect: Connect, tmp_path: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    script = write_script(tmp_path, [{"text": "Hello."}])
    async with connect(["-m", f"script:{script}", "--no-tools"], mode=LEGACY) as client:
        for number in range(33):
            await client.call_tool("respond", {"prompt": "hi", "thread_id": f"t{number}"})
        threads = json.loads((await client.read_resource("wisp://threads")).contents[0].text)
    assert len(threads) == 32
    assert "t0" not in [thread["thread_id"] for thread in threads]
    events = audit_lines()
    ends = [e["details"]["reason"] for e in events if e["kind"] == "session.end"]
    assert ends.count("evicted") == 1


def test_other_commands_never_load_the_sdk(wisp_env: dict[str, str]) -> None:
    import subprocess
    import sys

    code = (
        "import sys; from wisp.cli.main import main; main(['--help']); "
        "print('mcp' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=wisp_env, capture_output=True, text=True, check=True
    )
    assert done.stderr.strip().endswith("False")


async def test_instructions_are_the_threads_own_or_the_servers(
    connect: Connect, tmp_path: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    script = write_script(tmp_path, [{"text": "Hello."}])
    async with connect(["-m", f"script:{script}", "-i", "Be brief."]) as client:
        await client.call_tool(
            "respond", {"prompt": "hi", "thread_id": "own", "instructions": "Say hello."}
        )
        await client.call_tool("respond", {"prompt": "hi", "thread_id": "given"})
        own = json.loads((await client.read_resource("wisp://threads/own")).contents[0].text)
    threads = [e for e in audit_lines() if e["details"].get("entryPoint") == "mcp-thread"]
    assert [e["details"]["instructions"] for e in threads] == ["Say hello.", "Be brief."]
    instructions = own["entries"][0]
    assert instructions["kind"] == "instructions"
    assert "Instructions for this conversation:\nSay hello." in instructions["value"]


async def test_bad_arguments_before_2025_11_25_are_invalid_params(
    connect: Connect, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mcp.client.session
    from mcp.shared.exceptions import MCPError

    # A client that speaks an older revision (the SDK's handshake offers its newest).
    monkeypatch.setattr(mcp.client.session, "LATEST_HANDSHAKE_VERSION", "2025-06-18")
    script = write_script(tmp_path, DATE_THEN_CITE)
    async with connect(["-m", f"script:{script}"]) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("respond", {"prompt": "x", "thread_id": "no spaces"})
    assert raised.value.code == -32602
    assert "thread_id" in raised.value.message


async def test_a_guidance_file_accepted_is_in_every_threads_instructions(
    connect: Connect, tmp_path: Path, wisp_home: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    # wisp mcp cannot ask: only a file the person accepted (in a chat, say) is used.
    from wisp.guidance import KeptAnswers

    guidance = tmp_path / "work" / "AGENTS.md"
    guidance.parent.mkdir(exist_ok=True)
    guidance.write_bytes(b"Use make check.\n")
    sha = hashlib.sha256(guidance.read_bytes()).hexdigest()
    KeptAnswers(wisp_home).keep(str(guidance), sha, accepted=True)
    script = write_script(tmp_path, [{"text": "Hello."}])
    async with connect(["-m", f"script:{script}"]) as client:
        await client.call_tool("respond", {"prompt": "hi", "thread_id": "own"})
        own = json.loads((await client.read_resource("wisp://threads/own")).contents[0].text)
    assert f"Guidance from {guidance}:\nUse make check." in own["entries"][0]["value"]
    [thread] = [e for e in audit_lines() if e["details"].get("entryPoint") == "mcp-thread"]
    assert sha in thread["details"]["systemPromptExtension"]
