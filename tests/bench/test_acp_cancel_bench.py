"""bench/acp_cancel.py run end to end for one round: a real `wisp acp` cancels mid-reply,
mid-command and while a command is asked about. No time is asserted, only that every case was
measured (and that the command asked about never ran)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench" / "acp_cancel.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_acp_cancel", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_acp_cancel"] = module
    spec.loader.exec_module(module)
    return module


async def test_one_round_measures_every_case() -> None:
    results = await _load().measure(1)
    assert {name: len(times) for name, times in results.items()} == {
        "baseline": 1, "mid-reply": 1, "command": 1, "asking": 1
    }  # fmt: skip
