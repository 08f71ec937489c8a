"""inspect: config with secrets hidden, status, approvals, audit summaries, its cap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from wisp import __version__
from wisp.agent.types import ToolContext
from wisp.audit import AuditLog, FileSink
from wisp.audit.kinds import Error, ToolCall
from wisp.config import Config
from wisp.tools.inspect import InspectTool


async def inspect(context: ToolContext, **arguments: Any) -> str:
    return await InspectTool().run(dict(arguments), context)


@pytest.fixture
def audit_log(conversation: Any, home: Path) -> AuditLog:
    """A real audit log under the home, which the conversation names as its audit file."""
    conversation.audit_file = home / "logs" / "audit.jsonl"
    sink = FileSink(conversation.audit_file, max_file_bytes=1 << 30, keep_files=5)
    return AuditLog(sink, session=conversation.session)


# -- config, status, approvals -----------------------------------------------------------------


async def test_config_shows_the_settings_in_force(context: ToolContext) -> None:
    shown = msgspec.json.decode(await inspect(context, what="config"))
    assert shown["audit"]["keepFiles"] == 5
    assert shown["context"]["memory"] is False


async def test_config_shows_a_stored_value_over_its_default(
    context: ToolContext, conversation: Any, home: Path
) -> None:
    conversation.config = Config(home / "config.json", {"audit": {"keepFiles": 2}})
    shown = msgspec.json.decode(await inspect(context, what="config"))
    assert shown["audit"]["keepFiles"] == 2


async def test_config_shows_api_keys_only_as_set_or_unset(
    context: ToolContext, conversation: Any, home: Path
) -> None:
    data = {"openai": {"apiKey": "sk-live-123"}, "other": {"token": ""}}
    conversation.config = Config(home / "config.json", data)
    result = await inspect(context, what="config")
    assert "sk-live-123" not in result
    shown = msgspec.json.decode(result)
    assert (shown["openai"]["apiKey"], shown["other"]["token"]) == ("set (config.json)", "unset")
    assert shown["llamacpp"]["apiKey"] == "unset"  # every key wisp reads is listed


async def test_config_hides_an_api_key_stored_inside_an_unknown_object(
    context: ToolContext, conversation: Any, home: Path
) -> None:
    data = {"plugin": {"auth": {"apiKey": "sk-live-456"}}}
    conversation.config = Config(home / "config.json", data)
    assert "sk-live-456" not in await inspect(context, what="config")


async def test_config_shows_a_model_entry_nested_under_its_whole_name(
    context: ToolContext, conversation: Any, home: Path
) -> None:
    entry = {"capabilities": ["guidedGeneration"], "verified": {"date": "2026-12-01"}}
    data = {"local": {"models": {"SmolLM2-135M-Instruct.Q4_1": entry}}}
    conversation.config = Config(home / "config.json", data)
    shown = msgspec.json.decode(await inspect(context, what="config"))
    assert shown["local"]["models"] == data["local"]["models"]


async def test_config_is_pretty_json(context: ToolContext) -> None:
    assert (await inspect(context, what="config")).startswith('{\n  "audit": {')


async def test_status_reports_the_conversation(context: ToolContext, conversation: Any) -> None:
    shown = msgspec.json.decode(await inspect(context, what="status"))
    assert shown == {
        "session": conversation.session,
        "entryPoint": None,
        "turn": 3,
        "model": "script:/tmp/replies.json",
        "tools": ["current_date", "read_file"],
        "sessionApprovals": [],
        "auditFile": None,
        "version": __version__,
        "sandbox": {"mechanism": None},
    }


async def test_approvals_is_an_empty_list(context: ToolContext) -> None:
    assert await inspect(context, what="approvals") == "[]"


async def test_an_unknown_view_is_an_error(context: ToolContext) -> None:
    result = await inspect(context, what="secrets")
    assert result == "error: unknown view 'secrets'; use config, status, approvals, or audit"


# -- audit -------------------------------------------------------------------------------------


async def test_audit_lists_one_summary_line_per_event_oldest_first(
    context: ToolContext, audit_log: AuditLog
) -> None:
    audit_log.record(ToolCall(tool="current_date", arguments={}))
    audit_log.record(Error(message="boom", context="turn"))
    lines = (await inspect(context, what="audit")).splitlines()
    assert len(lines) == 2
    assert "tool.call" in lines[0] and lines[0].endswith("current_date {}")
    assert "error" in lines[1] and lines[1].endswith("boom turn")


async def test_audit_shows_the_last_n(context: ToolContext, audit_log: AuditLog) -> None:
    for n in range(30):
        audit_log.record(Error(message=f"m{n}", context="turn"))
    lines = (await inspect(context, what="audit", last=3)).splitlines()
    assert [line.split()[-2] for line in lines] == ["m27", "m28", "m29"]


async def test_audit_shows_twenty_by_default(context: ToolContext, audit_log: AuditLog) -> None:
    for n in range(30):
        audit_log.record(Error(message=f"m{n}", context="turn"))
    assert len((await inspect(context, what="audit")).splitlines()) == 20


async def test_audit_filters_by_kind(context: ToolContext, audit_log: AuditLog) -> None:
    audit_log.record(ToolCall(tool="current_date", arguments={}))
    audit_log.record(Error(message="boom", context="turn"))
    result = await inspect(context, what="audit", kind="error")
    assert len(result.splitlines()) == 1 and "boom" in result


async def test_audit_filters_by_session(context: ToolContext, audit_log: AuditLog) -> None:
    audit_log.record(Error(message="mine", context="turn"))
    audit_log.for_session("ffff000011112222").record(Error(message="theirs", context="turn"))
    result = await inspect(context, what="audit", session="ffff")
    assert "theirs" in result and "mine" not in result


async def test_audit_with_nothing_matching_says_so(
    context: ToolContext, audit_log: AuditLog
) -> None:
    audit_log.record(Error(message="boom", context="turn"))
    assert await inspect(context, what="audit", kind="prompt") == "no matching audit events"


async def test_an_unknown_kind_is_an_error_listing_the_kinds(
    context: ToolContext, audit_log: AuditLog
) -> None:
    result = await inspect(context, what="audit", kind="tool.called")
    assert result.startswith("error: unknown kind 'tool.called'; kinds: session.start, ")
    assert "tool.call, tool.result" in result


async def test_audit_when_the_log_is_off_says_so(context: ToolContext) -> None:
    result = await inspect(context, what="audit")
    assert result == "error: the audit log is off (audit.enabled is false), so it has no events"


async def test_audit_is_capped_at_4_kib_with_a_marker(
    context: ToolContext, audit_log: AuditLog
) -> None:
    for n in range(100):
        audit_log.record(Error(message=f"{n} " + "x" * 300, context="turn"))
    result = await inspect(context, what="audit", last=100)
    assert len(result.encode()) <= 4096
    assert "[held back: lines " in result
    assert result.endswith("…")  # the newest event's line, cut to its width, is kept


async def test_audit_last_above_the_maximum_shows_a_hundred(
    context: ToolContext, audit_log: AuditLog
) -> None:
    for n in range(120):
        audit_log.record(Error(message=f"m{n}", context="t"))
    result = await inspect(context, what="audit", last=500)
    assert "m19 t" not in result and "m20 t" in result.split("\n")[0]


async def test_audit_last_below_one_is_an_error(context: ToolContext, audit_log: AuditLog) -> None:
    result = await inspect(context, what="audit", last=0)
    assert result == "error: last must be from 1 to 100, got 0"


async def test_a_setting_named_like_tokens_is_not_hidden(
    context: ToolContext, conversation: Any, home: Path
) -> None:
    conversation.config = Config(home / "config.json", {"agent": {"maxTokens": 512}})
    shown = msgspec.json.decode(await inspect(context, what="config"))
    assert shown["agent"]["maxTokens"] == 512
