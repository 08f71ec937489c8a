"""``wisp mcp``'s respond result carries the third line under a reply, ``claimed but not
done: …``, in ``structuredContent`` (docs/mcp.md), through the official SDK's client."""

from __future__ import annotations

from pathlib import Path

from tests.mcp.conftest import Connect, write_script

DATE_THEN_CLAIM = [
    {"tool_calls": [{"name": "current_date", "arguments": {}}]},
    {"text": "I ran the tests and they pass."},
    {"text": "It is the first of the month."},
]


async def test_respond_carries_the_verification_line(connect: Connect, tmp_path: Path) -> None:
    script = write_script(tmp_path, DATE_THEN_CLAIM)
    async with connect(["-m", f"script:{script}"]) as client:
        claimed = await client.call_tool("respond", {"prompt": "run the tests"})
        thread = claimed.structured_content["thread_id"]
        plain = await client.call_tool("respond", {"prompt": "date?", "thread_id": thread})

    assert not claimed.is_error
    result = claimed.structured_content
    assert result["ran"] == "ran: current_date"
    assert result["verification"] == "claimed but not done: ran the tests (no command ran)"
    assert plain.structured_content["verification"] is None
