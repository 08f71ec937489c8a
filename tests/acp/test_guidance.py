"""A guidance file in ``wisp acp``: shown whole in the client's permission dialog before the
session's first turn, the answer kept (docs/turn.md, "Guidance files")."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.acp.conftest import Spawn, chosen, write_script

GUIDANCE = "Answer in French.\n"


def choosing(option_id: str) -> Any:
    """The client's answer to every permission request: ``option_id``."""

    async def answer(options: list[Any]) -> Any:
        return chosen(option_id)

    return answer


def planted(tmp_path: Path) -> Path:
    guidance = tmp_path / "work" / "AGENTS.md"
    guidance.parent.mkdir(exist_ok=True)
    guidance.write_text(GUIDANCE)
    return guidance


def _text(text: str) -> Any:
    from acp import text_block

    return text_block(text)


async def test_the_client_is_shown_the_file_and_a_yes_is_kept_for_its_bytes(
    spawn: Spawn, tmp_path: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    guidance = planted(tmp_path)
    script = write_script(tmp_path, [{"text": "Bonjour."}, {"text": "Encore."}])
    async with spawn(["-m", f"script:{script}"]) as (conn, client):
        client.answer = choosing("yes")
        first = await conn.new_session(cwd=str(guidance.parent))
        await conn.prompt(session_id=first.session_id, prompt=[_text("hello")])
        [(_, tool_call, options)] = client.permissions
        assert str(guidance) in tool_call.title and "not accepted yet" in tool_call.title
        assert tool_call.content[0].content.text == GUIDANCE
        assert [o.option_id for o in options] == ["yes", "no"]

        client.forget()
        client.answer = None  # the same bytes are not asked about again
        second = await conn.new_session(cwd=str(guidance.parent))
        await conn.prompt(session_id=second.session_id, prompt=[_text("again")])
        assert not client.permissions

    starts = [e for e in audit_lines() if e["kind"] == "session.start"]
    sha = hashlib.sha256(GUIDANCE.encode()).hexdigest()
    [reopened] = [e for e in starts if e["details"].get("reason") == "guidance"]
    assert reopened["session"] == first.session_id
    assert sha in reopened["details"]["systemPromptExtension"]
    [later] = [e for e in starts if e["session"] == second.session_id]
    assert sha in later["details"]["systemPromptExtension"]


async def test_a_no_leaves_the_file_out_and_says_so(spawn: Spawn, tmp_path: Path) -> None:
    guidance = planted(tmp_path)
    script = write_script(tmp_path, [{"text": "Hello."}])
    async with spawn(["-m", f"script:{script}"]) as (conn, client):
        client.answer = choosing("no")
        session = await conn.new_session(cwd=str(guidance.parent))
        await conn.prompt(session_id=session.session_id, prompt=[_text("hello")])
    assert f"(guidance left out: {guidance}: refused when it was shown)" in client.message()
