"""A long conversation through the real `wisp chat`: condensing is recorded and shown, the meter
moves after every request, and `/inspect context` shows what a request carries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_chat_json import Front
from wisp import protocol as p

WINDOW = 4096


def reading_script(tmp_path: Path, turns: int) -> Path:
    log = tmp_path / "harbour.log"
    lines = [f"{n:04} the ferry left on time with all {n} crates aboard" for n in range(100)]
    log.write_text("\n".join(lines)[:2048])
    responses = []
    for number in range(1, turns + 1):
        responses.append({"tool_calls": [{"name": "read_file", "arguments": {"path": str(log)}}]})
        responses.append({"text": f"Turn {number}: read it, as entry 4 showed."})
    script = tmp_path / "reading.json"
    script.write_text(json.dumps({"contextSize": WINDOW, "responses": responses}))
    return script


@pytest.fixture
async def long_chat(wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path):
    chat = await Front.start(
        wisp_script, wisp_env, tmp_path, "-m", f"script:{reading_script(tmp_path, 24)}", "--yes"
    )
    await chat.until(p.Status)
    for number in range(1, 25):
        await chat.send(p.Message(text=f"read harbour.log ({number})"))
        end = await chat.until(p.Turn, phase="end")
        assert end.outcome == "ok"
        await chat.until(p.Status)
    yield chat
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0


async def test_condensing_is_recorded_and_shown(long_chat: Front, audit_lines, wisp_home) -> None:
    condensed = [
        line
        for line in long_chat.lines
        if isinstance(line, p.Event) and line.kind == "context.condensation"
    ]
    assert condensed
    first = condensed[0]
    assert first.text is not None and first.text.startswith("(context condensed, budget: ")
    assert first.text.endswith(f" of {WINDOW} tokens)")
    # The meter: a context line after every request, never past the budget.
    fills = [line for line in long_chat.lines if isinstance(line, p.ContextFill)]
    assert len(fills) >= 48 and all(fill.window == WINDOW for fill in fills)
    assert max(fill.used or 0 for fill in fills) < 0.85
    statuses = [line for line in long_chat.lines if isinstance(line, p.Status)]
    assert statuses[-1].context_used is not None and statuses[-1].context_used > 0.3
    # The audit log has every field, and the saved contexts before and after exist.
    (event, *_) = [e for e in audit_lines() if e["kind"] == "context.condensation"]
    details = event["details"]
    assert {
        "reason", "turnsBefore", "turnsAfter", "contextSize", "tokenCount", "target",
        "fillBefore", "fillAfter", "headroom", "steps", "floor", "savedBefore", "savedAfter",
    } <= set(details)  # fmt: skip
    before, after = Path(details["savedBefore"]), Path(details["savedAfter"])
    assert before.parent == wisp_home / "context"
    assert "## entry 2 " in before.read_text() and "## entry 2 " not in after.read_text()


async def test_inspect_context_views(long_chat: Front, wisp_home: Path) -> None:
    chat = long_chat
    await chat.send(p.Message(text="/inspect context next"))
    view = await chat.until(p.View)
    assert (view.kind, view.turn, view.turns) == ("context", None, 24)
    assert "free room of the 4,096-token window" in view.text
    assert "- dropped, not sent: turns 1-" in view.text
    assert "as its reference" in view.text

    await chat.send(p.Message(text="/inspect context 2"))
    view = await chat.until(p.View)
    assert (view.kind, view.turn) == ("context", 2)
    assert view.text.startswith("# The context turn 2 started with")
    assert "### entry 6 · prompt" in view.text and "entry 7 " not in view.text

    await chat.send(p.Message(text="/inspect context turns"))
    view = await chat.until(p.View)
    assert view.kind == "turns"
    assert "- turn 1 · entries 2-5 · " in view.text and "dropped in turn " in view.text

    await chat.send(p.Message(text="/inspect context 99"))
    note = await chat.until(p.Note)
    assert note.text == "no turn 99: this conversation's turns run from 1 to 24"
    await chat.send(p.Message(text="/inspect context sideways"))
    note = await chat.until(p.Note)
    assert note.text == "usage: /inspect context [next|turns|N]"

    await chat.send(p.Message(text="/inspect context"))
    note = await chat.until(p.Note)
    assert note.text.startswith("saved the next request's context: ")
    saved = sorted((wisp_home / "context").glob("*-turn25.*"))
    assert [path.suffix for path in saved] == [".json", ".md"]
    request = json.loads(saved[0].read_text())
    assert request["messages"][0]["role"] == "system" and request["tools"]


def test_the_plain_chat_notes_the_condensation(run_wisp, tmp_path: Path) -> None:
    script = reading_script(tmp_path, 24)
    prompts = "".join(f"read harbour.log ({n})\n" for n in range(1, 25))
    done = run_wisp("chat", "-m", f"script:{script}", "--yes", input=prompts)
    assert done.returncode == 0, done.stderr
    assert "(context condensed, budget: " in done.stderr  # wisp's own words: stderr
