"""The embedded model's prompt cache across turns, through a real `wisp chat --json` on `local`.

A second turn after a first with no tool calls starts with everything the first one read and
wrote: llama-cpp-python keeps the longest common prefix of its last tokens, so the second
request evaluates only what is new (the end of the first reply's turn, the new message, the
generation prompt). Measured from what the audit log's ``response`` events report: the
request's prompt tokens (``input``), those taken from the cache (``cached``), the reply's
(``output``).
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hang import HANG
from wisp import protocol as p

pytest.importorskip("llama_cpp", reason="needs the local extra")

MOST = 1.1
"""Prompt tokens evaluated ÷ new tokens, at most."""
TURNS = ("What is the capital of France? One word.", "And of Spain? One word.")
"""Short answers: a reply cut for repeating itself reports no usage."""


async def chat_two_turns(wisp: Path, env: dict[str, str], cwd: Path, *texts: str) -> None:
    process = await asyncio.create_subprocess_exec(
        str(wisp), "chat", "--json", "-m", "local", env=env, cwd=cwd,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, limit=1 << 24,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None

    async def until_turn_ends() -> None:
        while True:
            raw = await asyncio.wait_for(process.stdout.readline(), HANG)  # type: ignore[union-attr]
            assert raw, "wisp closed stdout"
            line = p.decode_outbound(raw)
            if isinstance(line, p.Turn) and line.phase == "end":
                assert line.outcome == "ok", line
                return

    for text in texts:
        process.stdin.write(p.encode_line(p.Message(text=text)))
        await process.stdin.drain()
        await until_turn_ends()
    process.stdin.close()
    await asyncio.wait_for(process.communicate(), HANG)
    assert process.returncode == 0


async def test_a_second_turn_evaluates_only_its_new_tokens(
    wisp_script: Path,
    wisp_env: dict[str, str],
    tmp_path: Path,
    audit_lines: Callable[[], list[dict]],
) -> None:
    await chat_two_turns(wisp_script, wisp_env, tmp_path, *TURNS)
    first, second = [e["details"]["usage"] for e in audit_lines() if e["kind"] == "response"]
    assert not any(e["kind"] == "tool.call" for e in audit_lines())
    new = second["input"] - first["input"] - first["output"]
    evaluated = second["input"] - second["cached"]
    assert 0 < new < second["input"] // 2  # the second prompt holds the first turn
    assert evaluated / new <= MOST, (first, second)
