"""``wisp acp`` driven by the official SDK's client side: a turn as updates, approvals through
``session/request_permission``, cancelling, and the model as a session config option."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.acp.conftest import Spawn, cancelled, chosen, until, write_script
from tests.hang import HANG
from tests.mcp.conftest import approvals, waiting_request

DATE_THEN_REPLY = [
    {"tool_calls": [{"name": "current_date", "arguments": {}}]},
    {"text": "Today is a fine day to test."},
]
TOUCH = [
    {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch made.txt"}}]},
    {"text": "Done."},
]


async def test_a_turn_streams_its_call_and_reply(
    spawn: Spawn, tmp_path: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    script = write_script(tmp_path, DATE_THEN_REPLY)
    async with spawn(["-m", f"script:{script}"]) as (conn, client):
        session = await conn.new_session(cwd=str(tmp_path / "work"))
        response = await conn.prompt(session_id=session.session_id, prompt=[_text("date?")])

    assert response.stop_reason == "end_turn"
    kinds = client.kinds()
    assert "tool_call" in kinds and "tool_call_update" in kinds
    [start] = [u for _, u in client.updates if u.session_update == "tool_call"]
    assert start.title.startswith("current_date") and start.kind == "other"
    statuses = [
        u.status
        for _, u in client.updates
        if u.session_update == "tool_call_update" and u.tool_call_id == start.tool_call_id
    ]
    assert statuses == ["in_progress", "completed"]
    assert client.message().startswith("Today is a fine day to test.")
    assert all(sid == session.session_id for sid, _ in client.updates)
    events = audit_lines()
    [start_event] = [e for e in events if e["kind"] == "session.start"]
    assert start_event["details"]["entryPoint"] == "acp"
    assert start_event["session"] == session.session_id
    assert [e for e in events if e["kind"] == "session.end"]


async def test_allow_once_runs_the_command(
    spawn: Spawn, tmp_path: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    script = write_script(tmp_path, TOUCH)
    async with spawn(["-m", f"script:{script}"]) as (conn, client):
        client.answer = _answering("once")
        session = await conn.new_session(cwd=str(tmp_path / "work"))
        response = await conn.prompt(session_id=session.session_id, prompt=[_text("make it")])

    assert response.stop_reason == "end_turn"
    [(_, tool_call, options)] = client.permissions
    assert "touch made.txt" in tool_call.title
    assert "touch made.txt" in tool_call.content[0].content.text
    assert [o.kind for o in options] == [
        "allow_once",
        "allow_always",
        "allow_always",
        "allow_always",
        "reject_once",
    ]
    assert (tmp_path / "work" / "made.txt").exists()
    [decided] = [e for e in audit_lines() if e["kind"] == "approval.decided"]
    assert decided["details"]["decision"] == "approved"
    assert decided["details"]["scope"] == "once"


async def test_reject_once_refuses_and_the_turn_goes_on(spawn: Spawn, tmp_path: Path) -> None:
    script = write_script(tmp_path, TOUCH)
    async with spawn(["-m", f"script:{script}"]) as (conn, client):
        client.answer = _answering("deny")
        session = await conn.new_session(cwd=str(tmp_path / "work"))
        response = await conn.prompt(session_id=session.session_id, prompt=[_text("make it")])

    assert response.stop_reason == "end_turn"
    assert not (tmp_path / "work" / "made.txt").exists()
    assert client.message().startswith("Done.")
    [status] = [
        u.status
        for _, u in client.updates
        if u.session_update == "tool_call_update" and u.status not in ("in_progress", None)
    ]
    assert status == "failed"


async def test_cancel_while_the_permission_waits_runs_nothing(
    spawn: Spawn, tmp_path: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    script = write_script(tmp_path, TOUCH)
    async with spawn(["-m", f"script:{script}"]) as (conn, client):
        answered = asyncio.Event()

        async def on_cancel(options: list[Any]) -> Any:
            await answered.wait()  # as a client does: a cancel answers what waits, cancelled
            return cancelled()

        client.answer = on_cancel
        session = await conn.new_session(cwd=str(tmp_path / "work"))
        prompt = asyncio.create_task(
            conn.prompt(session_id=session.session_id, prompt=[_text("make it")])
        )
        async with asyncio.timeout(HANG):
            await client.asked.wait()
        await conn.cancel(session_id=session.session_id)
        answered.set()
        async with asyncio.timeout(HANG):
            response = await prompt

    assert response.stop_reason == "cancelled"
    assert not (tmp_path / "work" / "made.txt").exists()
    kinds = [e["kind"] for e in audit_lines()]
    assert "command.outcome" not in kinds
    assert "turn.stopped" in kinds


async def test_a_slow_reply_cancelled_mid_stream_then_the_next_prompt_works(
    spawn: Spawn, tmp_path: Path
) -> None:
    never = tmp_path / "never"  # never made: the reply waits after its first chunk
    script = write_script(
        tmp_path,
        [{"text": "Slowly, slowly, it goes on.", "wait_for_file": str(never)}, {"text": "Next."}],
    )
    async with spawn(["-m", f"script:{script}"]) as (conn, client):
        session = await conn.new_session(cwd=str(tmp_path / "work"))
        prompt = asyncio.create_task(
            conn.prompt(session_id=session.session_id, prompt=[_text("go")])
        )
        await until(lambda: client.message())
        await conn.cancel(session_id=session.session_id)
        async with asyncio.timeout(HANG):
            response = await prompt
        assert response.stop_reason == "cancelled"
        client.forget()
        following = await conn.prompt(session_id=session.session_id, prompt=[_text("again")])

    assert following.stop_reason == "end_turn"
    assert client.message().startswith("Next.")


async def test_the_model_option_switches_the_model(
    spawn: Spawn, tmp_path: Path, wisp_home: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    first = write_script(tmp_path, [{"text": "From the first."}], name="first")
    second = write_script(tmp_path, [{"text": "From the second."}], name="second")
    wisp_home.mkdir(parents=True, exist_ok=True)
    (wisp_home / "config.json").write_text(f'{{"model": "script:{second}"}}')
    async with spawn(["-m", f"script:{first}"]) as (conn, client):
        session = await conn.new_session(cwd=str(tmp_path / "work"))
        [option] = session.config_options
        assert option.category == "model"
        assert option.current_value == f"script:{first}"
        values = [choice.value for choice in option.options]
        assert f"script:{second}" in values
        changed = await conn.set_config_option(
            config_id=option.id, session_id=session.session_id, value=f"script:{second}"
        )
        assert changed.config_options[0].current_value == f"script:{second}"
        await conn.prompt(session_id=session.session_id, prompt=[_text("who?")])

    assert client.message().startswith("From the second.")
    events = audit_lines()
    prompt_at = next(i for i, e in enumerate(events) if e["kind"] == "prompt")
    resolved = [e for e in events[:prompt_at] if e["kind"] == "model.resolved"]
    assert resolved[-1]["details"]["model"] == f"script:{second}"


def _text(text: str) -> Any:
    from acp import text_block

    return text_block(text)


def _answering(option_id: str) -> Any:
    async def answer(options: list[Any]) -> Any:
        return chosen(option_id)

    return answer


async def test_two_sessions_each_write_only_in_their_own_folder(
    spawn: Spawn, tmp_path: Path, outside_tmp: Path
) -> None:
    script = write_script(
        tmp_path,
        [
            {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch made.txt"}}]},
            {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch ../x.txt"}}]},
            {"text": "Done."},
        ],
    )
    # Outside /tmp, which every command may write to: the folders' parent is neither's.
    folders = [outside_tmp / "a", outside_tmp / "b"]
    for folder in folders:
        folder.mkdir()
    async with spawn(["-m", f"script:{script}"]) as (conn, client):
        client.answer = _answering("once")
        for folder in folders:
            session = await conn.new_session(cwd=str(folder))
            response = await conn.prompt(session_id=session.session_id, prompt=[_text("go")])
            assert response.stop_reason == "end_turn"

    assert all((folder / "made.txt").exists() for folder in folders)
    assert not (outside_tmp / "x.txt").exists()
    assert not (tmp_path / "work" / "made.txt").exists()


def test_other_commands_never_load_the_sdk(wisp_env: dict[str, str]) -> None:
    import subprocess
    import sys

    code = (
        "import sys; from wisp.cli.main import main; main(['--help']); "
        "print('acp' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=wisp_env, capture_output=True, text=True, check=True
    )
    assert done.stderr.strip().endswith("False")


async def test_a_question_with_options_is_asked_as_a_permission(
    spawn: Spawn, tmp_path: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    question = {"question": "Which colour?", "options": ["red", "blue"]}
    script = write_script(
        tmp_path,
        [{"tool_calls": [{"name": "ask", "arguments": question}]}, {"text": "Blue it is."}],
    )
    async with spawn(["-m", f"script:{script}"]) as (conn, client):
        client.answer = _answering("1")
        session = await conn.new_session(cwd=str(tmp_path / "work"))
        response = await conn.prompt(session_id=session.session_id, prompt=[_text("pick")])

    assert response.stop_reason == "end_turn"
    [(_, tool_call, options)] = client.permissions
    assert "Which colour?" in tool_call.title
    assert [o.name for o in options] == ["red", "blue", "Decline"]
    [settled] = [e for e in audit_lines() if e["kind"] == "inquiry.settled"]
    assert settled["details"]["outcome"] == "answered"
    assert settled["details"]["via"] == "elicitation"
    assert "blue" in json.dumps(settled["details"])


async def test_wisp_approvals_answers_while_the_client_has_not(
    spawn: Spawn,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    terminal: int,
    audit_lines: Callable[[], list[dict]],
) -> None:
    script = write_script(tmp_path, TOUCH)
    async with spawn(["-m", f"script:{script}"]) as (conn, client):

        async def never(options: list[Any]) -> Any:
            await asyncio.Event().wait()

        client.answer = never
        session = await conn.new_session(cwd=str(tmp_path / "work"))
        prompt = asyncio.create_task(
            conn.prompt(session_id=session.session_id, prompt=[_text("make it")])
        )
        request = await waiting_request(wisp_home)
        await approvals(wisp_env, "approve", request.id, stdin=terminal)
        async with asyncio.timeout(HANG):
            response = await prompt

    assert response.stop_reason == "end_turn"
    assert client.permissions  # asked in the client too, and withdrawn there
    assert (tmp_path / "work" / "made.txt").exists()
    [settled] = [e for e in audit_lines() if e["kind"] == "approval.settled"]
    assert (settled["details"]["outcome"], settled["details"]["via"]) == ("answered", "cli")


def test_stdout_to_a_file_is_refused_in_words(wisp_env: dict[str, str], tmp_path: Path) -> None:
    import subprocess

    from tests.conftest import WISP

    with (tmp_path / "out").open("w") as out:
        done = subprocess.run(
            [str(WISP), "acp"], env=wisp_env, stdin=subprocess.DEVNULL, stdout=out,
            stderr=subprocess.PIPE, text=True, timeout=HANG,
        )  # fmt: skip
    assert done.returncode == 2
    assert "must be pipes" in done.stderr and "Traceback" not in done.stderr


async def test_reasoning_is_a_thought_and_a_capped_reply_ends_with_max_tokens(
    spawn: Spawn, tmp_path: Path, wisp_home: Path
) -> None:
    wisp_home.mkdir(parents=True, exist_ok=True)
    (wisp_home / "config.json").write_text('{"agent": {"maxReplyTokens": 16}}')
    long_reply = "Every word of this reply goes on and on, well past its cap. " * 8
    script = write_script(tmp_path, [{"thinking": "Let me think.", "text": long_reply}])
    async with spawn(["-m", f"script:{script}"]) as (conn, client):
        session = await conn.new_session(cwd=str(tmp_path / "work"))
        response = await conn.prompt(session_id=session.session_id, prompt=[_text("go")])

    assert response.stop_reason == "max_tokens"
    thoughts = [
        u.content.text for _, u in client.updates if u.session_update == "agent_thought_chunk"
    ]
    assert thoughts == ["Let me think."]
    assert "(the reply was cut: it ran past 16 tokens" in client.message()


async def test_a_linked_file_is_read_into_the_prompt_under_read_files_rules(
    spawn: Spawn, tmp_path: Path, wisp_home: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    from acp import resource_link_block

    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "notes.md").write_text("harbour: the ferry leaves at nine\n")
    wisp_home.mkdir(parents=True, exist_ok=True)
    (wisp_home / "config.json").write_text("{}")
    script = write_script(tmp_path, [{"text": "At nine."}])
    links = [
        resource_link_block("notes.md", f"file://{work}/notes.md"),
        resource_link_block("config", f"file://{wisp_home}/config.json"),
    ]
    async with spawn(["-m", f"script:{script}"]) as (conn, _client):
        session = await conn.new_session(cwd=str(work))
        prompt = [_text("when does it leave?"), *links]
        response = await conn.prompt(session_id=session.session_id, prompt=prompt)

    assert response.stop_reason == "end_turn"
    [sent] = [e["details"]["text"] for e in audit_lines() if e["kind"] == "prompt"]
    assert f"[linked: notes.md ({work}/notes.md)]\n1\tharbour: the ferry leaves at nine" in sent
    # WISP_HOME is never read for the model, linked or not.
    assert "it is inside WISP_HOME" in sent
