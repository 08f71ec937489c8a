"""Streaming a reply (docs/tui.md, "The reply"): whole, in order, and never one Markdown append per
fragment."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual.await_complete import AwaitComplete

from wisp.protocol import Turn
from wisp_tui.app import WispApp
from wisp_tui.widgets import reply as reply_module
from wisp_tui.widgets.reply import Reply

from .conftest import app_env, write_script


class CountingReply(Reply):
    """The real reply, counting the appends that reach its Markdown."""

    made: ClassVar[list[CountingReply]] = []

    def __init__(self) -> None:
        super().__init__()
        self.appends = 0
        CountingReply.made.append(self)

    def append(self, markdown: str) -> AwaitComplete:
        self.appends += 1
        return super().append(markdown)


@pytest.fixture
def replies(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[CountingReply]]:
    """Every reply segment the transcript makes, as a CountingReply."""
    CountingReply.made = []
    monkeypatch.setattr(reply_module, "Reply", CountingReply)  # the transcript imports it late
    yield CountingReply.made


def numbered_words(count: int) -> str:
    """`w0001 w0002 …` in lines of ten: any lost or reordered fragment shows."""
    words = [f"w{number:04d}" for number in range(1, count + 1)]
    return "\n".join(" ".join(words[at : at + 10]) for at in range(0, count, 10))


async def send(pilot: Any, text: str) -> None:
    pilot.app.prompt.text = text
    await pilot.press("enter")


async def test_a_long_fast_reply_arrives_whole_and_in_order(
    make_app, wait_for, transcript_text, replies
):
    text = numbered_words(1500)  # 9,000 characters: 2,250 fragments, as fast as wisp writes
    app = make_app([{"text": text}])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await send(pilot, "go")
        await wait_for(pilot, lambda: app.status_bar.turn.number == 1 and not app.prompt.is_busy)
        assert "".join(reply.source for reply in replies) == text
        assert text in transcript_text(app)
        assert sum(reply.appends for reply in replies) < 100


async def test_a_reply_then_a_tool_line_then_more_reply_keep_their_order(
    make_app, wait_for, transcript_text
):
    first = numbered_words(300)
    app = make_app(
        [
            {"text": first, "tool_calls": [{"name": "current_date", "arguments": {}}]},
            {"text": "And that is the **end**."},
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await send(pilot, "go")
        await wait_for(pilot, lambda: "ran: current_date" in transcript_text(app))
        shown = transcript_text(app)
        assert first in shown  # whole: the tool line did not cut it short
        assert (
            shown.index("w0300")
            < shown.index("⚙ current_date")
            < shown.index("And that is the **end**.")
            < shown.index("ran: current_date")
        )


async def test_the_whole_reply_is_in_its_markdown_when_the_turn_ends(make_app, wait_for, replies):
    text = numbered_words(400)
    app = make_app([{"text": text}])
    at_end: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        turn_edge = app._turn_edge

        async def seen_at_the_edge(turn: Turn) -> None:
            await turn_edge(turn)
            if turn.phase == "end":  # the turn's handling is over: what does the widget hold?
                at_end.append("".join(reply.source for reply in replies))

        app._turn_edge = seen_at_the_edge  # type: ignore[method-assign]
        await send(pilot, "go")
        await wait_for(pilot, lambda: bool(at_end))
    assert at_end == [text]


async def test_fragments_at_a_models_pace_are_joined_into_few_appends(
    make_app, wait_for, transcript_text, replies, tmp_path
):
    text = numbered_words(40)  # 240 characters: 60 fragments, 20 ms apart (about 1.2 s)
    # The model holds the rest of its reply until the test has seen the first fragment.
    go_on = tmp_path / "go-on"
    app = make_app([{"text": text, "delay_ms": 20, "wait_for_file": str(go_on)}])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.status_bar.status is not None)
        await send(pilot, "go")
        await wait_for(pilot, lambda: bool(replies) and replies[0].source != "")
        first_seen = replies[0].source
        go_on.touch()
        await wait_for(pilot, lambda: app.status_bar.turn.number == 1 and not app.prompt.is_busy)
        assert "".join(reply.source for reply in replies) == text
        assert len(first_seen) < len(text)  # text showed while it streamed, not only at the end
        appends = sum(reply.appends for reply in replies)
        assert 2 <= appends <= 60 // 3  # at most 12 a second, never one per fragment


def gated_app(folder: Path, wisp: Path, responses: list[dict[str, Any]]) -> tuple[WispApp, Path]:
    """A WispApp whose wisp starts only when the test opens the gate (a FIFO) for writing."""
    work = folder / "work"
    script = write_script(work, responses)
    gate = folder / "gate"
    os.mkfifo(gate)
    command = folder / "gated-wisp"
    command.write_text(f'#!/bin/sh\nread _ < "{gate}"\nexec "{wisp}" "$@"\n')
    command.chmod(0o755)
    app = WispApp(
        ["-m", f"script:{script.name}"], env=app_env(folder), cwd=work, command=str(command)
    )
    return app, gate


def open_gate(gate: Path) -> bool:
    """Let the gated wisp start; False while its shell has not reached the gate yet."""
    try:
        descriptor = os.open(gate, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as error:
        if error.errno == errno.ENXIO:  # no reader yet
            return False
        raise
    os.write(descriptor, b"go\n")
    os.close(descriptor)
    return True


async def test_keys_typed_before_wisps_first_status_are_sent_after_it(
    tmp_path, wisp_script, wait_for, transcript_text
):
    app, gate = gated_app(tmp_path, wisp_script, [{"text": "Heard you."}])
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.focused is app.prompt.input  # ready before wisp has said anything
        await pilot.press("h", "i", "enter")
        assert app.status_bar.status is None  # wisp has not started: still `connecting…`
        await wait_for(pilot, lambda: open_gate(gate))
        await wait_for(pilot, lambda: "Heard you." in transcript_text(app))
        assert "› hi" in transcript_text(app)
