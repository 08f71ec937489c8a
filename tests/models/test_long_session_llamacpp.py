"""A conversation that outgrows llama-cpp-python's server (`--n_ctx 2048`), through the real
`wisp chat --json`: the first overflow is recognised as one, the window is learnt, the turn is
condensed and asked again, and the next request fits; with `llamacpp.contextLength` set, wisp
condenses before it sends."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.cli.test_chat_json import Front
from tests.models.conftest import LlamaServer
from wisp import protocol as p
from wisp.store import ConversationStore, PendingEntry, transcripts

SMOLLM2 = "SmolLM2-135M-Instruct.Q4_1"
TIME = "2026-12-01T10:00:00.000Z"
PROSE = (
    "the harbour ferry left early with crates of apples and a crew of four while the "
    "weather held fair over the bay until the evening tide turned and the lights came on"
)
WORDS = PROSE.split(" ")


def long_transcript(home: Path) -> None:
    """Six earlier turns whose replies alone take about 2,700 tokens: more than the server's
    window, which nothing has told wisp."""
    store = ConversationStore()
    store.add(PendingEntry("instructions", "be brief"), turn=None, origin="carried", time=None)
    for number in range(1, 7):
        words = " ".join(random.Random(number).choices(WORDS, k=330))
        store.add_turn(
            [PendingEntry("prompt", f"note {number}?"), PendingEntry("response", words)],
            turn=number,
            time=TIME,
        )
    transcripts.save(store, home / "transcripts", "long")


@pytest.fixture
def llama_home(wisp_home: Path, llama_server: LlamaServer):
    def write(**llamacpp: object) -> None:
        section = {"baseURL": llama_server.base_url, **llamacpp}
        config = {
            "llamacpp": section,
            "agent": {"maxReplyTokens": 8},
            # The window is under test, not what a condensation keeps of the turns it drops:
            # distillation and the summary (tested on local) would add a call a condensation.
            "facts": {"enabled": False},
            "context": {"summaryBatch": 0},
        }
        wisp_home.mkdir(mode=0o700, exist_ok=True)
        (wisp_home / "config.json").write_text(json.dumps(config))
        long_transcript(wisp_home)

    return write


async def chat_on(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, server: LlamaServer
) -> Front:
    env = {**wisp_env, "WISP_LLAMACPP_API_KEY": server.key}
    chat = await Front.start(
        wisp_script, env, tmp_path, "-m", f"llamacpp:{SMOLLM2}", "--resume", "long"
    )
    await chat.until(p.Status)
    return chat


def condensations(chat: Front) -> list[p.Event]:
    return [
        line
        for line in chat.lines
        if isinstance(line, p.Event) and line.kind == "context.condensation"
    ]


async def test_the_first_overflow_teaches_the_window_and_the_turn_goes_on(
    llama_home, wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, llama_server
) -> None:
    llama_home()
    chat = await chat_on(wisp_script, wisp_env, tmp_path, llama_server)
    await chat.send(p.Message(text="Say hi."))
    end = await chat.until(p.Turn, phase="end")
    await chat.until(p.Status)

    assert end.outcome == "ok"
    (overflow,) = condensations(chat)
    assert overflow.details["reason"] == "overflow"
    assert overflow.details["contextSize"] == 2048  # learnt from the server's refusal
    assert overflow.details["tokenCount"] > 2048
    assert overflow.details["turnsAfter"] < overflow.details["turnsBefore"]
    assert overflow.text is not None and "of 2048 tokens" in overflow.text
    fills = [line for line in chat.lines if isinstance(line, p.ContextFill)]
    assert fills[-1].window == 2048 and fills[-1].tokens < 2048

    # The next request fits: no second overflow, and the turn ends with a reply.
    await chat.send(p.Message(text="Say bye."))
    end = await chat.until(p.Turn, phase="end")
    assert end.outcome == "ok"
    assert all(event.details["reason"] != "overflow" for event in condensations(chat)[1:])
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0


async def test_a_configured_window_is_condensed_to_before_sending(
    llama_home, wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, llama_server
) -> None:
    llama_home(contextLength=2048)
    chat = await chat_on(wisp_script, wisp_env, tmp_path, llama_server)
    await chat.send(p.Message(text="Say hi."))
    end = await chat.until(p.Turn, phase="end")

    assert end.outcome == "ok"
    (budget,) = condensations(chat)
    assert budget.details["reason"] == "budget" and budget.details["contextSize"] == 2048
    assert budget.details["fillAfter"] <= 0.85 * 2048
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0
