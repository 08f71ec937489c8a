"""The reply parser against the corpus: every raw reply in tests/models/text_calls/corpus.toml
gives its calls, text and thinking, whether it arrives whole or in small pieces.

Fed in pieces, the text shown as it streamed, joined, must be exactly the expected text: a
call's text never reached the screen, so nothing shown ever had to be taken back.
"""

from __future__ import annotations

import random
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from wisp.agent.types import TextDelta, ThinkingDelta, ToolCallRequested, ToolSpec
from wisp.models.reply.stream import ReplyParser

CORPUS = Path(__file__).parent / "text_calls" / "corpus.toml"
CASES: list[dict[str, Any]] = tomllib.loads(CORPUS.read_text(encoding="utf-8"))["case"]

_OBJECT = "object"
SCHEMAS: dict[str, dict[str, Any]] = {
    "current_date": {"type": _OBJECT, "properties": {}},
    "read_file": {
        "type": _OBJECT,
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
    "run_command": {
        "type": _OBJECT,
        "properties": {"command": {"type": "string"}, "timeoutSeconds": {"type": "integer"}},
        "required": ["command"],
    },
    "write_file": {
        "type": _OBJECT,
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
}


def tools_for(case: dict[str, Any]) -> list[ToolSpec]:
    return [ToolSpec(name, f"The {name} tool.", SCHEMAS[name]) for name in case["tools"]]


def pieces(raw: str, split: int | None) -> list[str]:
    """``raw`` whole (``None``), in pieces of ``split`` characters, or (0) of seeded sizes 1-9."""
    if split is None:
        return [raw]
    if split == 0:
        sizes = random.Random(len(raw)).choices(range(1, 10), k=len(raw))
        out, at = [], 0
        for size in sizes:
            if at >= len(raw):
                break
            out.append(raw[at : at + size])
            at += size
        return out
    return [raw[at : at + split] for at in range(0, len(raw), split)]


def parse(case: dict[str, Any], split: int | None) -> tuple[str, str, list[ToolCallRequested]]:
    """(text shown, thinking, calls), the text joined from every delta as it streamed."""
    parser = ReplyParser(tools_for(case))
    events = [event for piece in pieces(case["raw"], split) for event in parser.text(piece)]
    events += parser.finish()
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    calls = [e for e in events if isinstance(e, ToolCallRequested)]
    return text, thinking, calls


def case_id(case: dict[str, Any]) -> str:
    return f"{CASES.index(case):03d}-{case['family']}"


def test_the_corpus_is_broad_enough() -> None:
    negatives = [case for case in CASES if case.get("negative")]
    assert len(CASES) >= 80
    assert len(Counter(case["family"] for case in CASES)) >= 10
    assert len(negatives) >= len(CASES) / 4
    assert all(not case["calls"] for case in negatives)
    assert any(case.get("recorded") for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=case_id)
@pytest.mark.parametrize("split", [None, 1, 2, 3, 4, 5, 6, 7, 0])
def test_each_reply_gives_its_calls_and_text_however_it_is_split(
    case: dict[str, Any], split: int | None
) -> None:
    text, thinking, calls = parse(case, split)
    expected = [
        ToolCallRequested(call["name"], call["arguments"], call.get("unparsed"))
        for call in case["calls"]
    ]
    assert (text, thinking, calls) == (case["text"], case.get("thinking", ""), expected)
