"""A turn's stream as ACP updates, in process: an edit's diff and location, the window's fill,
a long output cut, and the stop reasons."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wisp.acp.updates import OUTPUT_CHARACTERS, TurnUpdates, cut_output, stop_reason
from wisp.agent.events import ContextFill, TurnResult
from wisp.agent.runaway import RunawayGuard
from wisp.audit.event import AuditEvent
from wisp.audit.kinds import Details, ToolCall, ToolResult


def _event(details: Details, kind: str, call: str = "c1") -> AuditEvent:
    return AuditEvent(
        id="e", time="t", version="v", pid=1, session="s", turn=1, call=call,
        kind=kind, details=details,
    )  # fmt: skip


def test_an_edit_shows_its_diff_and_file(tmp_path: Path) -> None:
    updates = TurnUpdates(tmp_path)
    arguments = {"path": "notes.md", "mode": "replace", "find": "old", "content": "new"}
    started = updates.updates(_event(ToolCall(tool="edit_file", arguments=arguments), "tool.call"))
    assert [u.session_update for u in started] == ["tool_call", "tool_call_update"]
    assert started[0].kind == "edit"
    assert started[0].locations[0].path == str(tmp_path / "notes.md")
    assert updates.current_call == "c1"
    result = ToolResult(tool="edit_file", output="replaced at line 1", bytes=18, seconds=0.0)
    [done] = updates.updates(_event(result, "tool.result"))
    assert done.status == "completed"
    diff: Any = done.content[0]
    assert (diff.type, diff.path, diff.old_text, diff.new_text) == (
        "diff",
        str(tmp_path / "notes.md"),
        "old",
        "new",
    )
    assert updates.current_call is None


def test_a_failed_call_is_failed(tmp_path: Path) -> None:
    updates = TurnUpdates(tmp_path)
    updates.updates(_event(ToolCall(tool="read_file", arguments={"path": "x"}), "tool.call"))
    result = ToolResult(tool="read_file", output="error: no such file", bytes=19, seconds=0.0)
    [done] = updates.updates(_event(result, "tool.result"))
    assert done.status == "failed"


def test_the_window_fill_is_a_usage_update_when_the_window_is_known(tmp_path: Path) -> None:
    updates = TurnUpdates(tmp_path)
    [usage] = updates.updates(ContextFill(tokens=120, window=4096))
    assert (usage.session_update, usage.used, usage.size) == ("usage_update", 120, 4096)
    assert updates.updates(ContextFill(tokens=120, window=None)) == []


def test_a_long_output_keeps_its_head_and_tail() -> None:
    text = "a" * OUTPUT_CHARACTERS + "b" * 10
    cut = cut_output(text)
    assert cut.startswith("a") and cut.endswith("b" * 10) and "not shown" in cut
    assert cut_output("short") == "short"


def test_stop_reasons() -> None:
    assert stop_reason(TurnResult(turn=1, outcome="ok")) == "end_turn"
    assert stop_reason(TurnResult(turn=1, outcome="stopped")) == "cancelled"
    why = RunawayGuard(1).add("a reply far past its cap of one token")  # the real cut's words
    capped = TurnResult(turn=1, outcome="ok", cut=why)
    assert stop_reason(capped) == "max_tokens"
    repeating = TurnResult(turn=1, outcome="ok", cut="it kept repeating itself")
    assert stop_reason(repeating) == "end_turn"


def test_a_stored_conversation_replays_as_the_turns_showed_it(tmp_path: Path) -> None:
    from wisp.acp.history import history_updates
    from wisp.store import ConversationStore, PendingEntry, ToolOutputValue
    from wisp.tool_call import ToolCall as Call

    store = ConversationStore()
    calls = [
        Call("a1", "run_command", {"command": "make test"}),
        Call("a2", "run_command", {"command": "git push"}),
        Call("a3", "read_file", {"path": "notes.md"}),
        Call("a4", "edit_file", {"path": "notes.md", "mode": "write", "content": "new"}),
    ]
    outputs = [
        ToolOutputValue("a1", "run_command", "exit status: 2\nstderr:\nno rule"),
        ToolOutputValue("a2", "run_command", "error: command not approved: declined"),
        ToolOutputValue("a3", "read_file", "1\tharbour"),
        ToolOutputValue("a4", "edit_file", "wrote 3 bytes"),
    ]
    for kind, value in [
        ("instructions", "You are wisp."),
        ("prompt", "test, push, read"),
        ("reasoning", "Let me see."),
        ("toolCalls", calls),
        *[("toolOutput", output) for output in outputs],
        ("response", "Tests fail; not pushed."),
    ]:
        store.add(PendingEntry(kind, value), turn=1, time=None)  # type: ignore[arg-type]

    updates = history_updates(store, tmp_path)

    assert [u.session_update for u in updates] == [
        "user_message_chunk", "agent_thought_chunk", *["tool_call"] * 4, "agent_message_chunk",
    ]  # fmt: skip
    replayed = updates[2:6]
    assert [u.status for u in replayed] == ["failed", "failed", "completed", "completed"]
    assert [u.tool_call_id for u in replayed] == ["a1", "a2", "a3", "a4"]
    assert replayed[0].title == "run_command make test" and replayed[0].kind == "execute"
    assert replayed[0].content[0].content.text.startswith("exit status: 2")
    assert replayed[2].locations[0].path == str(tmp_path / "notes.md")
    assert replayed[3].content[0].type == "diff"  # an edit's diff first, as it was live
    assert updates[-1].content.text == "Tests fail; not pushed."
