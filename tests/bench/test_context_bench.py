"""bench/context.py, the long-session benchmarks, run end to end on tiny settings.

The chat benchmark drives a real ``wisp chat --json`` on scripted models (``script:`` with a
declared window counts each request's tokens as a server would), so what it records (turns,
condensations, the share of the window each request used) is checked against what the script
makes happen. The compose benchmark builds its conversations and times them; no time is
asserted, only that every figure is there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.bench.scripts import load_bench

bench = load_bench("context")


def script(path: Path, responses: list[dict[str, Any]], window: int) -> str:
    path.write_text(json.dumps({"responses": responses, "contextSize": window}))
    return f"script:{path}"


def test_a_chat_that_reads_a_file_a_turn_is_condensed_and_stays_under_the_budget(
    tmp_path: Path,
) -> None:
    turns, size = 12, 2048
    responses: list[dict[str, Any]] = []
    for number in range(1, turns + 1):
        _, word = bench.note_text(number, size)
        name = f"notes-{number:02}.txt"
        responses.append({"tool_calls": [{"name": "read_file", "arguments": {"path": name}}]})
        responses.append({"text": f"{name} holds the code word {word}."})
    model = script(tmp_path / "reads.json", responses, 2048)
    lines: list[str] = []

    report = bench.run_chat(
        model, turns=turns, window=2048, file_bytes=size, timeout=120, progress=lines.append
    )

    summary = report.summary
    assert report.tools and summary["failed"] == []
    assert summary["ok"] == summary["reads"] == summary["codeWordsAnswered"] == turns
    assert summary["requests"] == 2 * turns  # the call, then the reply: each reported
    assert summary["condensations"] >= 1 and summary["overflows"] == 0
    assert summary["underBudget"] and 0 < summary["maxUsed"] < bench.BUDGET
    assert summary["maxTokens"] == max(r["tokens"] for t in report.turns for r in t.requests)
    # One line a turn, and the condensations named where they happened.
    assert len(lines) == turns + 1 and lines[1].startswith("turn 1/12: ok")
    assert any("condensed (budget:" in line for line in lines)


def test_a_model_offered_no_tools_gets_each_file_in_its_prompt(tmp_path: Path) -> None:
    responses = [{"text": "It is about the ferry."}, {"error": "the model refused the request"}]
    model = script(tmp_path / "text.json", responses, 8192)

    report = bench.run_chat(
        model, turns=2, window=8192, file_bytes=1024, timeout=120, no_tools=True,
        progress=lambda _: None,
    )  # fmt: skip

    assert not report.tools
    first, second = report.turns
    assert (first.outcome, second.outcome) == ("ok", "error")
    # The prompt carried the file: its request counts more than the file's 1,024 bytes.
    assert first.requests[0]["tokens"] > 1024 // 4
    assert second.errors and "refused" in second.errors[0]
    assert report.summary["failed"] == [(2, "error", second.errors)]


def test_composing_is_timed_early_late_and_at_the_same_fill(tmp_path: Path) -> None:
    report = bench.run_compose(
        at=[3, 40], window=4096, file_bytes=1536, rounds=1, profile=True, matched=True
    )

    early, matched, late = report.points
    assert (early.turn, late.turn) == (3, 40) and early.turn < matched.turn < late.turn
    assert matched.live == late.live > early.live and late.condensations > 0
    assert matched.entries < late.entries
    summary = report.summary
    assert summary["ratioMedian"] > 0 and set(summary["ratios"]) == {"40/3", f"40/{matched.turn}"}
    assert all(point.us and point.parts["messages"] > 0 for point in report.points)
    assert "compositions, by own time" in report.profile


def test_kept_measures_what_distillation_and_the_summary_cost_and_save(tmp_path: Path) -> None:
    turns, size = 12, 2048
    responses: list[dict[str, Any]] = []
    for number in range(1, turns + 1):
        name = f"notes-{number:02}.txt"
        responses.append({"tool_calls": [{"name": "read_file", "arguments": {"path": name}}]})
        responses.append(
            {"text": f"{name} holds the code word {bench.note_text(number, size)[1]}."}
        )
    answer = {"facts": [{"subject": "entity", "name": "ferry", "value": "FERRY-01"}]}
    routed = {
        "distill": [{"text": json.dumps(answer)}] * 9,
        "summary": [{"text": "Notes were read."}] * 9,
    }
    path = tmp_path / "kept.json"
    path.write_text(json.dumps({"responses": responses, "contextSize": 2048, "routed": routed}))
    lines: list[str] = []

    report = bench.run_chat(
        f"script:{path}", turns=turns, window=2048, file_bytes=size, timeout=120, kept=True,
        progress=lines.append,
    )  # fmt: skip

    summary = report.summary
    assert summary["ok"] == turns and summary["condensations"] >= 1
    assert summary["distillations"] == summary["condensations"]
    assert summary["distillationFailures"] == [] and summary["factsDistilled"] == 1
    assert summary["summaries"] >= 1 and summary["summaryFailures"] == []
    assert summary["sideSecondsPerCondensation"] >= 0
    assert summary["summaryTokens"] == len("Notes were read.") // 4
    assert summary["tokensSavedPerRequest"] == summary["droppedTokens"] - summary["summaryTokens"]
    assert summary["droppedTokens"] > 0
    assert any("side calls" in line for line in lines)
    # Without --kept, facts and the summary are off: condensing's own figures.
    assert bench.chat_config(2048)["context"] == {"summaryBatch": 0}
