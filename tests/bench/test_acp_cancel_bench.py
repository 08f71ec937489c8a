"""bench/acp_cancel.py run end to end for one round: a real `wisp acp` cancels mid-reply,
mid-command and while a command is asked about. No time is asserted, only that every case was
measured (and that the command asked about never ran)."""

from __future__ import annotations

from tests.bench.scripts import load_bench


async def test_one_round_measures_every_case() -> None:
    results = await load_bench("acp_cancel").measure(1)
    assert {name: len(times) for name, times in results.items()} == {
        "baseline": 1, "mid-reply": 1, "command": 1, "asking": 1
    }  # fmt: skip
