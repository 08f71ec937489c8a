"""How soon `wisp acp` ends a prompt after `session/cancel` (docs/acp.md, "From a turn to
updates"). The target: under 2 s, as for an interrupt in chat (docs/performance.md, "Cancelling
a prompt under `wisp acp`").

    python bench/acp_cancel.py             # 11 interleaved rounds
    python bench/acp_cancel.py --rounds 3

Two real `wisp acp` processes (one with `--yes`, one asking), driven by the official SDK's
client side over stdio, on `script:` models, in a temporary WISP_HOME. Each round, on one
session of each:

- cancel, mid-reply: a prompt whose reply waits after its first chunk (a file that is never
  made); once the first `agent_message_chunk` has arrived, `session/cancel` is sent, and the time
  from sending it to the prompt's `cancelled` response is taken.
- cancel, a command running: a prompt whose model runs `sleep 30` (approved with `--yes`); once
  its `tool_call_update` `in_progress` has arrived, the same.
- cancel, asking: a prompt whose model runs `touch made.txt`, which the process without `--yes`
  asks about with `session/request_permission`; once asked, `session/cancel` is sent and the
  open request answered `cancelled` right after, as a client does; timed the same way. The
  file is never made.
- baseline: a prompt answered at once ("ok."), from sending it to its `end_turn` response: the
  cost of one round trip through the agent, measured in the same round.

Reported: median and minimum milliseconds of each, and each cancel's median ÷ the baseline's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

WISP = Path(sys.executable).parent / "wisp"
TARGET_SECONDS = 2.0


class Client:
    """Records session updates. A permission request is answered ``cancelled`` once the test
    has sent ``session/cancel`` (``cancel_sent``); only the asking process asks."""

    def __init__(self) -> None:
        self.kinds: list[str] = []
        self.changed = asyncio.Event()
        self.asked = asyncio.Event()
        self.cancel_sent = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        kind = update.session_update
        if kind == "tool_call_update":
            kind = f"tool_call_update {update.status}"
        self.kinds.append(kind)
        self.changed.set()

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        from acp.schema import DeniedOutcome, RequestPermissionResponse

        self.asked.set()
        await self.cancel_sent.wait()
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    def on_connect(self, conn: Any) -> None:
        pass

    async def until(self, kind: str) -> None:
        while kind not in self.kinds:
            self.changed.clear()
            await self.changed.wait()


def script(folder: Path, rounds: int) -> Path:
    never = folder / "never"  # never made: a reply waits after its first chunk
    responses: list[dict[str, Any]] = []
    for _ in range(rounds):
        responses.append({"text": "ok."})
        responses.append({"text": "Slowly, it goes on and on.", "wait_for_file": str(never)})
        sleep = {"name": "run_command", "arguments": {"command": "sleep 30"}}
        responses.append({"tool_calls": [sleep]})
    path = folder / "script.json"
    path.write_text(json.dumps({"responses": responses}))
    return path


def asking_script(folder: Path, rounds: int) -> Path:
    """Each round one call of a command that is asked about; the turn is cancelled there."""
    touch = {"name": "run_command", "arguments": {"command": "touch made.txt"}}
    path = folder / "asking.json"
    path.write_text(json.dumps({"responses": [{"tool_calls": [touch]}] * rounds}))
    return path


def text(words: str) -> Any:
    from acp.schema import TextContentBlock

    return TextContentBlock(type="text", text=words)


async def timed_prompt(conn: Any, session: str, words: str) -> float:
    started = time.perf_counter()
    response = await conn.prompt(session_id=session, prompt=[text(words)])
    assert response.stop_reason == "end_turn", response.stop_reason
    return time.perf_counter() - started


async def timed_cancel(conn: Any, client: Client, session: str, waits_for: str) -> float:
    client.kinds.clear()
    prompt = asyncio.create_task(conn.prompt(session_id=session, prompt=[text("go")]))
    await client.until(waits_for)
    started = time.perf_counter()
    await conn.cancel(session_id=session)
    response = await prompt
    elapsed = time.perf_counter() - started
    assert response.stop_reason == "cancelled", response.stop_reason
    return elapsed


async def timed_cancel_asking(conn: Any, client: Client, session: str) -> float:
    """From ``session/cancel`` to the ``cancelled`` response, the open request answered
    ``cancelled`` right after the cancel is sent."""
    client.asked.clear()
    client.cancel_sent.clear()
    prompt = asyncio.create_task(conn.prompt(session_id=session, prompt=[text("make it")]))
    await client.asked.wait()
    started = time.perf_counter()
    await conn.cancel(session_id=session)
    client.cancel_sent.set()
    response = await prompt
    elapsed = time.perf_counter() - started
    assert response.stop_reason == "cancelled", response.stop_reason
    return elapsed


async def measure(rounds: int) -> dict[str, list[float]]:
    from acp import PROTOCOL_VERSION, spawn_agent_process

    results: dict[str, list[float]] = {
        "baseline": [], "mid-reply": [], "command": [], "asking": []
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        home = folder / "home"
        home.mkdir(mode=0o700)
        work = folder / "work"
        work.mkdir()
        env = {"WISP_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(folder)}
        if "PYTHONPATH" in os.environ:  # a worktree's wisp measured, not the installed one
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        client, asking_client = Client(), Client()
        agent = (str(WISP), "acp", "-m", f"script:{script(folder, rounds)}", "--yes")
        asking = (str(WISP), "acp", "-m", f"script:{asking_script(folder, rounds)}")
        async with (
            spawn_agent_process(client, *agent, env=env, cwd=str(folder)) as (conn, _),
            spawn_agent_process(asking_client, *asking, env=env, cwd=str(work)) as (asks, _),
        ):
            await conn.initialize(protocol_version=PROTOCOL_VERSION)
            await asks.initialize(protocol_version=PROTOCOL_VERSION)
            session = (await conn.new_session(cwd=str(folder), mcp_servers=[])).session_id
            asked = (await asks.new_session(cwd=str(work), mcp_servers=[])).session_id
            for number in range(rounds):
                results["baseline"].append(await timed_prompt(conn, session, "say ok"))
                reply = await timed_cancel(conn, client, session, "agent_message_chunk")
                results["mid-reply"].append(reply)
                command = await timed_cancel(conn, client, session, "tool_call_update in_progress")
                results["command"].append(command)
                cancelled = await timed_cancel_asking(asks, asking_client, asked)
                results["asking"].append(cancelled)
                print(
                    f"round {number + 1}/{rounds}: baseline {results['baseline'][-1] * 1000:.0f} "
                    f"ms, mid-reply {reply * 1000:.0f} ms, command {command * 1000:.0f} ms, "
                    f"asking {cancelled * 1000:.0f} ms",
                    file=sys.stderr,
                )
        assert not (work / "made.txt").exists(), "a command cancelled while asked about ran"
    return results


def report(results: dict[str, list[float]]) -> None:
    baseline = statistics.median(results["baseline"])
    print(f"{'case':<12} {'median ms':>10} {'min ms':>8} {'÷ baseline':>11}  target")
    for name, times in results.items():
        median = statistics.median(times)
        ratio = "" if name == "baseline" else f"{median / baseline:.1f}"
        target = "" if name == "baseline" else f"< {TARGET_SECONDS:.0f} s: "
        if target:
            target += "met" if median < TARGET_SECONDS else "MISSED"
        print(f"{name:<12} {median * 1000:>10.0f} {min(times) * 1000:>8.0f} {ratio:>11}  {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    report(asyncio.run(measure(args.rounds)))


if __name__ == "__main__":
    main()
