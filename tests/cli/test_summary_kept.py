"""The running summary outlives the process and the model: a conversation saved after a
condensation wrote a version is resumed with it, `/model` keeps it, and `/inspect context next`
shows it beside the turns (docs/turn.md, "The running summary"), through a real `wisp chat
--json` on the `script:` backend."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agent.test_distilling import FACTS, SUMMARY, WINDOW, prompt
from tests.cli.test_chat_json import Front
from wisp import protocol as p


def script(folder: Path, name: str, turns: int) -> Path:
    path = folder / name
    responses = [{"text": f"Turn {number}: noted."} for number in range(1, turns + 1)]
    routed = {"distill": [{"text": json.dumps(FACTS)}], "summary": [{"text": SUMMARY}]}
    path.write_text(json.dumps({"contextSize": WINDOW, "responses": responses, "routed": routed}))
    return path


async def context_next(chat: Front) -> str:
    await chat.send(p.Message(text="/inspect context next"))
    view = await chat.until(p.View)
    return view.text


async def test_a_saved_summary_comes_back_with_resume_and_stays_after_model(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path
) -> None:
    first = script(tmp_path, "first.json", 11)
    chat = await Front.start(
        wisp_script, wisp_env, tmp_path, "-m", f"script:{first}", "--save", "ferry"
    )
    await chat.until(p.Status)
    for number in range(1, 12):
        await chat.send(p.Message(text=prompt(number)))
        await chat.until(p.Turn, phase="end")
    shown = await context_next(chat)
    assert "## the running summary · " in shown and SUMMARY in shown
    assert "## facts in force · " in shown and "- entity ferry crates: 199" in shown
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0

    second = script(tmp_path, "second.json", 1)
    again = await Front.start(
        wisp_script, wisp_env, tmp_path, "-m", f"script:{first}", "--resume", "ferry"
    )
    await again.until(p.Status)
    assert SUMMARY in await context_next(again)
    await again.send(p.Message(text=f"/model script:{second}"))
    await again.until(p.Note)
    assert SUMMARY in await context_next(again)
    await again.send(p.Message(text="/quit"))
    assert await again.finish() == 0
