"""A side call made for the routed model's window, and streamed to whoever shows it: the real
``SideCalls`` and ``Router`` over a ``script:`` model named for the task."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wisp.agent.side_calls import SideCalls
from wisp.agent.types import ChatRequest, Message
from wisp.audit.kinds import ModelRouted
from wisp.config import Config
from wisp.models.script import resolve
from wisp.routing.router import Router


class Kept:
    """A recorder that keeps what it is handed."""

    def __init__(self) -> None:
        self.details: list[Any] = []

    def record(self, details: Any) -> None:
        self.details.append(details)


def routed_calls(tmp_path: Path, reply: str, recorder: Kept) -> SideCalls:
    script = tmp_path / "draft.json"
    routed = {"draft": [{"text": reply}]}
    script.write_text(json.dumps({"responses": [], "routed": routed, "contextSize": 2048}))
    config = Config(tmp_path / "config.json", {"routing": {"tasks": {"draft": f"script:{script}"}}})
    router = Router(lambda: config, lambda selection: resolve(selection.removeprefix("script:")))
    return SideCalls(recorder, router, lambda: None)  # type: ignore[arg-type]


async def test_a_request_is_made_for_the_routed_models_window(tmp_path: Path) -> None:
    recorder = Kept()
    windows: list[int | None] = []

    def fitted(window: int | None) -> ChatRequest:
        windows.append(window)
        return ChatRequest([Message(role="user", content="x" * (window or 0))])

    answer = await routed_calls(tmp_path, "Done.", recorder).ask("draft", fitted)
    assert (answer.text, answer.failure, windows) == ("Done.", None, [2048])
    (routed,) = [d for d in recorder.details if isinstance(d, ModelRouted)]
    assert routed.input_bytes == answer.bytes > 2048  # the request as sent, not before


async def test_the_reply_is_shown_piece_by_piece_as_it_streams(tmp_path: Path) -> None:
    pieces: list[str] = []
    calls = routed_calls(tmp_path, "Add calc.sub\n\nIt subtracts.", Kept())
    request = ChatRequest([Message(role="user", content="the diff")])
    answer = await calls.ask("draft", request, shown=pieces.append)
    assert len(pieces) > 1 and "".join(pieces) == answer.text == "Add calc.sub\n\nIt subtracts."
