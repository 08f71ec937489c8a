"""`wisp chat --json`'s `notify` lines, from a real subprocess: sent after a hello declaring
`notify` when a turn ends and when an approval or a question waits, and never without it
(docs/protocol.md, "`notify`")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_chat_json import Front
from wisp import protocol as p

TOUCH = {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch made.txt"}}]}
ASK = {"tool_calls": [{"name": "ask", "arguments": {"question": "Which one?", "options": ["a"]}}]}
REPLY = {"text": "Made the file.\n\nIt is empty."}


async def one_session(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, effects: list[str]
) -> Front:
    """A turn with an approval, then one with a question that fails (an empty reply), then
    /quit."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [TOUCH, REPLY, ASK, {"text": ""}]}))
    chat = await Front.start(wisp_script, wisp_env, tmp_path, "-m", f"script:{script}")
    await chat.send(p.ClientHello(effects=effects, client="test", version="1"))
    await chat.until(p.Status)
    await chat.send(p.Message(text="make the file"))
    approval = await chat.until(p.Approval)
    await chat.send(p.Answer(id=approval.id, decision="once"))
    await chat.until(p.Turn, phase="end")
    await chat.until(p.Status)
    await chat.send(p.Message(text="ask me"))
    question = await chat.until(p.Question)
    await chat.send(p.Answer(id=question.id, text="a"))
    await chat.until(p.Turn, phase="end")
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0
    return chat


def after(lines: list[p.Outbound], kind: type) -> list[p.Outbound]:
    """The line right after each line of `kind`."""
    return [lines[i + 1] for i, line in enumerate(lines[:-1]) if isinstance(line, kind)]


async def test_a_hello_with_notify_gets_a_notice_for_each_wait_and_each_turn_end(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, audit_lines
) -> None:
    chat = await one_session(wisp_script, wisp_env, tmp_path, ["approve", "ask", "notify"])
    notices = [line for line in chat.lines if isinstance(line, p.Notify)]
    assert [(n.title, n.body, n.sound) for n in notices] == [
        ("wisp: approval waiting", "[moderate] touch made.txt", True),
        ("wisp: turn finished", "Made the file.", False),
        ("wisp: question waiting", "Which one?", True),
        (
            "wisp: turn failed",
            "turn 2 failed after " + notices[-1].body.split(" after ")[-1],
            False,
        ),
    ]
    assert notices[-1].body.endswith(" s")
    # Each notice right after what it tells of.
    assert [type(line) for line in after(chat.lines, p.Approval)] == [p.Notify]
    assert [type(line) for line in after(chat.lines, p.Question)] == [p.Notify]
    ends = [line for line in chat.lines if isinstance(line, p.Turn) and line.phase == "end"]
    assert [after(chat.lines, p.Turn)[i] for i in (1, 3)] == [notices[1], notices[3]]
    assert len(ends) == 2
    recorded = [e["details"] for e in audit_lines() if e["kind"] == "notification"]
    assert [(d["source"], d["route"], d["outcome"], d["title"]) for d in recorded] == [
        ("approval", "host", "posted", "wisp: approval waiting"),
        ("inquiry", "host", "posted", "wisp: question waiting"),
    ]  # a turn's end has no source among the kind's, so it is not recorded


@pytest.mark.parametrize("effects", [["approve", "ask"], ["approve", "ask", "notify-me"]])
async def test_without_the_notify_effect_no_notice_is_sent(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, audit_lines, effects: list[str]
) -> None:
    chat = await one_session(wisp_script, wisp_env, tmp_path, effects)
    assert not any(isinstance(line, p.Notify) for line in chat.lines)
    assert not any(e["kind"] == "notification" for e in audit_lines())
