"""``wisp mcp``'s ``scan`` and ``redact`` driven by the official SDK's client: findings by
kind and place, the text redacted byte for byte, the thorough pass routed, and an audit log
that never holds the text handed in or a value found (docs/mcp.md, "scan and redact")."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.mcp.conftest import Connect, write_config, write_script

AWS_KEY = "AKIA" + "2E0A8F3B244C9986"
EMAIL = "ana.lima@" + "acme-corp.net"
TEXT = f"deploy:\n  key: {AWS_KEY}\n  owner: {EMAIL}\n  door code 4471-blue-heron\n"


async def test_scan_names_each_finding_by_kind_and_place_never_by_value(
    connect: Connect, audit_lines: Callable[[], list[dict]]
) -> None:
    async with connect([]) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert {"scan", "redact"} <= tools
        found = await client.call_tool("scan", {"text": TEXT, "source": "deploy.yaml"})
        clean = await client.call_tool("scan", {"text": "nothing to see here\n"})
    assert not found.is_error
    assert found.content[0].text == "2 findings: aws-access-key at 2:8; email at 3:10"
    assert found.structured_content == {
        "findings": [
            {"kind": "aws-access-key", "line": 2, "column": 8, "start": 15, "end": 35},
            {"kind": "email", "line": 3, "column": 10, "start": 45, "end": 45 + len(EMAIL)},
        ],
        "total": 2,
        "kinds": {"aws-access-key": 1, "email": 1},
        "thorough": False,
        "failedChunks": 0,
    }
    assert TEXT[15:35] == AWS_KEY
    assert clean.content[0].text == "nothing found" and clean.structured_content["total"] == 0
    events = audit_lines()
    scans = [e["details"] for e in events if e["kind"] == "secrets.scan"]
    assert [(s["source"], s["findings"], s["kinds"]) for s in scans] == [
        ("deploy.yaml", 2, {"aws-access-key": 1, "email": 1}),
        ("mcp", 0, {}),
    ]
    logged = "\n".join(json.dumps(e) for e in events)
    assert AWS_KEY not in logged and EMAIL not in logged and "4471-blue-heron" not in logged
    (request, _) = [e["details"] for e in events if e["kind"] == "mcp.request"]
    assert request["arguments"] == {
        "text": f"[{len(TEXT)} bytes, not logged]",
        "source": "deploy.yaml",
    }


async def test_redact_keeps_every_other_byte_and_records_what_it_replaced(
    connect: Connect, audit_lines: Callable[[], list[dict]]
) -> None:
    async with connect([]) as client:
        redacted = await client.call_tool("redact", {"text": TEXT})
    expected = TEXT.replace(AWS_KEY, "[REDACTED:aws-access-key]").replace(EMAIL, "[REDACTED:email]")
    assert redacted.content[0].text == expected
    assert redacted.structured_content["text"] == expected
    assert redacted.structured_content["kinds"] == {"aws-access-key": 1, "email": 1}
    events = audit_lines()
    (redaction,) = [e["details"] for e in events if e["kind"] == "redaction"]
    assert redaction["bytes"] == len(TEXT) and redaction["bytesOut"] == len(expected)
    assert redaction["replaced"] == {"aws-access-key": 1, "email": 1}
    logged = "\n".join(json.dumps(e) for e in events)
    assert AWS_KEY not in logged and EMAIL not in logged


async def test_thorough_on_a_thread_is_routed_and_recorded_under_it(
    connect: Connect, tmp_path: Path, wisp_home: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    named = {"findings": [{"kind": "password", "value": "4471-blue-heron"}]}
    scanner = tmp_path / "scanner.json"
    scanner.write_text(
        json.dumps({"responses": [], "routed": {"scan": [{"text": json.dumps(named)}]}})
    )
    write_config(wisp_home, {"routing": {"tasks": {"scan": f"script:{scanner}"}}})
    thread_model = write_script(tmp_path, [{"text": "ok"}])
    async with connect(["-m", f"script:{thread_model}"]) as client:
        said = await client.call_tool("respond", {"prompt": "hi", "thread_id": "t1"})
        assert not said.is_error
        found = await client.call_tool("scan", {"text": TEXT, "thorough": True, "thread_id": "t1"})
        unknown = await client.call_tool("scan", {"text": TEXT, "thread_id": "t9"})
    assert [f["kind"] for f in found.structured_content["findings"]] == [
        "aws-access-key", "email", "password",
    ]  # fmt: skip
    assert found.structured_content["thorough"] is True
    assert unknown.is_error and unknown.content[0].text == "unknown thread t9"
    events = audit_lines()
    thread_session = next(
        e["session"] for e in events
        if e["kind"] == "session.start" and e["details"]["entryPoint"] == "mcp-thread"
    )  # fmt: skip
    (scan,) = [e for e in events if e["kind"] == "secrets.scan"]
    (routed,) = [e for e in events if e["kind"] == "model.routed"]
    assert scan["session"] == routed["session"] == thread_session
    assert scan["details"]["thorough"] is True and scan["details"]["failedChunks"] == 0
    assert routed["details"]["task"] == "scan"


async def test_thorough_with_no_thread_fails_its_chunks_but_keeps_the_rules_findings(
    connect: Connect, tmp_path: Path, wisp_home: Path, audit_lines: Callable[[], list[dict]]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"responses": [], "routed": {"redact": [{"error": "down"}] * 2}}))
    write_config(wisp_home, {"routing": {"tasks": {"redact": f"script:{broken}"}}})
    async with connect([]) as client:
        redacted = await client.call_tool("redact", {"text": TEXT, "thorough": True})
    assert not redacted.is_error
    assert redacted.structured_content["failedChunks"] == 1
    assert "[REDACTED:aws-access-key]" in redacted.content[0].text
    events = audit_lines()
    server = next(e["session"] for e in events if e["kind"] == "session.start")
    (redaction,) = [e for e in events if e["kind"] == "redaction"]
    assert redaction["session"] == server and redaction["details"]["failedChunks"] == 1
    assert len([e for e in events if e["kind"] == "model.routed"]) == 2
