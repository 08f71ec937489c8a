"""A call written in the reply's text is run as a call, whichever backend's reply it is.

Each test runs the real `wisp` with a fresh WISP_HOME against the backend's server on loopback
(or the replay file), whose first reply carries a ```json fence naming `current_date`: the audit
log records the tool call, and the printed answer does not hold the JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hang import HANG
from tests.models import conftest as servers

WISP = str(Path(sys.executable).parent / "wisp")
QUESTION = "What is today's date?"
CALL_TEXT = 'Let me check.\n```json\n{"name": "current_date", "arguments": {}}\n```\n'
ANSWER = "Today is the date the tool gave."
AuditLines = Callable[[], list[dict[str, Any]]]


async def run_wisp(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    """`wisp ARGS…` without blocking the loop the loopback servers answer on."""
    process = await asyncio.create_subprocess_exec(
        WISP, *args, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), HANG)
    assert "Traceback" not in err.decode(), err.decode()
    return process.returncode or 0, out.decode(), err.decode()


def write_config(home: Path, data: dict[str, Any]) -> None:
    home.mkdir(mode=0o700, exist_ok=True)
    (home / "config.json").write_text(json.dumps(data))


def replies_in_turn(*replies: Any) -> Callable[[Any], Any]:
    """A route answering each request with the next reply (the last one again after that)."""
    queue: Iterator[Any] = iter(replies)
    last: list[Any] = []

    def route(_: Any) -> Any:
        last[:] = [next(queue, last[0] if last else None)]
        return last[0]

    return route


def assert_ran_the_call(code: int, out: str, err: str, audit_lines: AuditLines) -> None:
    assert code == 0, err
    calls = [line["details"] for line in audit_lines() if line["kind"] == "tool.call"]
    assert [call["tool"] for call in calls] == ["current_date"]
    assert ANSWER in out
    assert '"name"' not in out and "```" not in out


# -- script ------------------------------------------------------------------------------------


async def test_script_a_call_in_the_text_is_run(
    bare_env: dict[str, str], tmp_path: Path, audit_lines: AuditLines
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": CALL_TEXT}, {"text": ANSWER}]}))
    done = await run_wisp(bare_env, "-m", f"script:{script}", QUESTION)
    assert_ran_the_call(*done, audit_lines)


async def test_script_a_call_of_no_offered_tool_fails_and_the_next_reply_is_the_answer(
    wisp_env: dict[str, str], tmp_path: Path, audit_lines: AuditLines
) -> None:
    # Qwen2.5-Coder-0.5B's recorded reply to a config change: a tool that does not exist. It
    # was printed as the answer; now the model is told what is offered and answers next.
    wrong = '{"name": "change_port", "arguments": {"port": "9090"}}'
    answer = "I can edit config.ini with edit_file."
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": wrong}, {"text": answer}]}))
    code, out, err = await run_wisp(
        wisp_env, "--yes", "-m", f"script:{script}", "In config.ini, change the port to 9090."
    )
    assert code == 0, err
    assert out.strip() == answer
    lines = audit_lines()
    calls = [line["details"] for line in lines if line["kind"] == "tool.call"]
    assert calls == [{"tool": "change_port", "arguments": {"port": "9090"}}]
    (result,) = [line["details"]["output"] for line in lines if line["kind"] == "tool.result"]
    assert result.startswith("error: there is no tool named change_port. The tools you have: ")
    assert "edit_file" in result and "run_command" in result


# -- Ollama ------------------------------------------------------------------------------------


def ollama_lines(text: str) -> Any:
    """An /api/chat reply streaming ``text`` a few characters a line, then done."""
    pieces = [text[at : at + 5] for at in range(0, len(text), 5)]
    lines = [servers.ollama_line(piece) for piece in pieces] + [servers.ollama_done(10, 5)]
    return servers.Reply(lines=[line + "\n" for line in lines], content_type="application/x-ndjson")


async def test_ollama_a_call_in_the_text_is_run(
    bare_env: dict[str, str], wisp_home: Path, ollama: Any, audit_lines: AuditLines
) -> None:
    ollama.install("qwen2.5:0.5b")
    ollama.server.routes[("POST", "/api/chat")] = replies_in_turn(
        ollama_lines(CALL_TEXT), ollama_lines(ANSWER)
    )
    write_config(wisp_home, {"ollama": {"baseURL": ollama.base_url}})
    done = await run_wisp(bare_env, "-m", "ollama:qwen2.5:0.5b", QUESTION)
    assert_ran_the_call(*done, audit_lines)
    assert ollama.chat_bodies()[0]["tools"]  # the tools were offered, the model wrote text


# -- OpenAI-compatible servers -----------------------------------------------------------------


def sse_reply(text: str) -> Any:
    """A /v1/chat/completions reply streaming ``text`` a few characters an event."""
    events = [
        {"choices": [{"index": 0, "delta": {"content": text[at : at + 5]}}]}
        for at in range(0, len(text), 5)
    ]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    lines = [f"data: {json.dumps(event)}\n\n" for event in events] + ["data: [DONE]\n\n"]
    return servers.Reply(lines=lines, content_type="text/event-stream")


LISTINGS: dict[str, dict[tuple[str, str], Any]] = {
    "openai": {("GET", "/v1/models"): {"data": [{"id": "tiny"}]}},
    "llamacpp": {("GET", "/v1/models"): {"data": [{"id": "tiny"}]}},
    "lmstudio": {
        ("GET", "/api/v1/models"): {
            "models": [{"key": "tiny", "capabilities": {"trained_for_tool_use": True}}]
        }
    },
}


@pytest.mark.parametrize("scheme", ["openai", "llamacpp", "lmstudio"])
async def test_openai_compatible_a_call_in_the_text_is_run(
    scheme: str,
    bare_env: dict[str, str],
    wisp_home: Path,
    loopback: Any,
    audit_lines: AuditLines,
) -> None:
    for route, body in LISTINGS[scheme].items():
        loopback.routes[route] = lambda _, body=body: servers.Reply(body=body)
    loopback.routes[("POST", "/v1/chat/completions")] = replies_in_turn(
        sse_reply(CALL_TEXT), sse_reply(ANSWER)
    )
    section: dict[str, Any] = {"baseURL": loopback.base_url}
    if scheme != "lmstudio":  # LM Studio reports what a model can do; the others are told
        section["models"] = {"tiny": {"capabilities": ["toolCalling"]}}
    write_config(wisp_home, {scheme: section})
    done = await run_wisp(bare_env, "-m", f"{scheme}:tiny", QUESTION)
    assert_ran_the_call(*done, audit_lines)
    bodies = [r.body for r in loopback.requests_to("/v1/chat/completions")]
    assert bodies[0]["tools"]  # the tools were offered, the model wrote text
