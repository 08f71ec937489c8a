"""``wisp acp``'s last message chunk of a turn carries the third line under a reply,
``claimed but not done: …``, with ``ran:`` (docs/acp.md), through the official SDK's client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.acp.conftest import Spawn, write_script

DATE_THEN_CLAIM = [
    {"tool_calls": [{"name": "current_date", "arguments": {}}]},
    {"text": "I have updated config.ini."},
]


def _text(text: str) -> Any:
    from acp import text_block

    return text_block(text)


async def test_the_last_chunk_has_ran_then_the_verification_line(
    spawn: Spawn, tmp_path: Path
) -> None:
    script = write_script(tmp_path, DATE_THEN_CLAIM)
    async with spawn(["-m", f"script:{script}"]) as (conn, client):
        session = await conn.new_session(cwd=str(tmp_path / "work"))
        response = await conn.prompt(session_id=session.session_id, prompt=[_text("update it")])

    assert response.stop_reason == "end_turn"
    chunks = [
        u.content.text for _, u in client.updates if u.session_update == "agent_message_chunk"
    ]
    assert chunks[-1] == (
        "\n\nran: current_date\nclaimed but not done: updated config.ini (no edit of config.ini)"
    )
