"""The activity tracker: which recorded events change what a running turn is doing, changes
only, typed commands, stopping, and the plain chat's working line."""

from __future__ import annotations

from typing import Any

import pytest

from tests.recorded import typed
from wisp import protocol as p
from wisp.chat.activity import ActivityTracker
from wisp.chat.activity import activity as Activity

# The argument a call's line shows, by tool (as the tests write calls: "⚙ TOOL ARGUMENT").
_SHOWN = {"run_command": "command", "read_file": "path", "inspect": "what", "ask": "question"}


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def at(self, seconds: float) -> None:
        """Moves to ``seconds`` after the start (100.0)."""
        self.now = 100.0 + seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def tracker(clock: Clock) -> ActivityTracker:
    return ActivityTracker(clock=clock)


def event(
    tracker: ActivityTracker, kind: str, line: str | None = None, **details: Any
) -> p.Activity | None:
    """The tracker's answer to a recorded ``kind`` event; a call may be written as its line."""
    if line is not None:
        tool, _, argument = line.removeprefix("⚙ ").partition(" ")
        key = _SHOWN.get(tool)
        details = {"tool": tool, "arguments": {key: argument} if key else None, **details}
    return tracker.on_event(typed(kind, **details))


def running(doing: str, seconds: float, **flags: bool) -> p.Activity:
    return Activity(doing, turn_seconds=seconds, stoppable=True, **flags)


# -- the table -------------------------------------------------------------------------------


def test_a_turn_starts_waiting_for_the_model(tracker):
    assert tracker.start_turn() == Activity(
        "waiting for the model", asking=False, turn_seconds=0.0, stoppable=True
    )


def test_a_tool_call_shows_its_line_without_the_gear(tracker, clock):
    tracker.start_turn()
    clock.at(1.2)
    changed = event(tracker, "tool.call", "⚙ read_file README.md", tool="read_file")
    assert changed == running("read_file README.md", 1.2)


def test_a_run_command_call_reads_running(tracker, clock):
    tracker.start_turn()
    clock.at(1.9)
    changed = event(tracker, "tool.call", "⚙ run_command git push", tool="run_command")
    assert changed == running("running git push", 1.9)


def test_a_tool_call_without_text_is_worded_from_its_details(tracker):
    tracker.start_turn()
    changed = event(tracker, "tool.call", None, tool="ask", arguments={"question": "Which?"})
    assert changed is not None
    assert changed.doing == "ask Which?"


def test_an_approval_request_asks(tracker, clock):
    tracker.start_turn()
    event(tracker, "tool.call", "⚙ run_command git push")
    clock.at(2.0)
    assert event(tracker, "approval.requested") == running(
        "waiting for your approval", 2.0, asking=True
    )


def test_a_question_asks(tracker, clock):
    tracker.start_turn()
    event(tracker, "tool.call", "⚙ ask Which environment?")
    clock.at(1.2)
    assert event(tracker, "inquiry.requested") == running(
        "waiting for your answer", 1.2, asking=True
    )


def test_thinking_sets_its_flag(tracker, clock):
    tracker.start_turn()
    clock.at(0.4)
    assert event(tracker, "model.reasoning", phase="start") == running(
        "thinking", 0.4, thinking=True
    )


def test_thinking_ends_waiting_for_the_model(tracker, clock):
    tracker.start_turn()
    event(tracker, "model.reasoning", phase="start")
    clock.at(4.6)
    assert event(tracker, "model.reasoning", phase="end") == running("waiting for the model", 4.6)


def test_condensing_the_context(tracker, clock):
    tracker.start_turn()
    clock.at(0.3)
    assert event(tracker, "context.condensation") == running("condensing the context", 0.3)


@pytest.mark.parametrize(
    "kind", ["tool.result", "command.outcome", "approval.decided", "inquiry.settled", "error"]
)
def test_these_events_go_back_to_waiting_for_the_model(tracker, clock, kind):
    tracker.start_turn()
    event(tracker, "tool.call", "⚙ run_command make")
    event(tracker, "approval.requested")
    clock.at(6.3)
    assert event(tracker, kind) == running("waiting for the model", 6.3)


@pytest.mark.parametrize(
    "kind", ["classifier.verdict", "policy.decision", "file.write", "prompt", "session.start"]
)
def test_other_events_leave_the_activity_as_it_is(tracker, kind):
    tracker.start_turn()
    event(tracker, "tool.call", "⚙ run_command make")
    assert event(tracker, kind) is None
    assert tracker.current is not None
    assert tracker.current.doing == "running make"


def test_turn_seconds_are_kept_to_a_tenth(tracker, clock):
    tracker.start_turn()
    clock.at(1.94)
    changed = event(tracker, "tool.call", "⚙ inspect config")
    assert changed is not None
    assert changed.turn_seconds == 1.9


# -- only when it changes --------------------------------------------------------------------


def test_the_same_activity_again_is_no_change(tracker, clock):
    tracker.start_turn()
    clock.at(3.0)
    assert event(tracker, "tool.result") is None


def test_no_change_keeps_when_the_activity_began(tracker, clock):
    tracker.start_turn()
    clock.at(1.0)
    event(tracker, "tool.call", "⚙ run_command make")
    clock.at(2.0)
    event(tracker, "tool.call", "⚙ run_command make")
    assert tracker.current == running("running make", 1.0)


def test_a_flag_alone_is_a_change(tracker, clock):
    tracker.start_turn()
    event(tracker, "tool.call", "⚙ thinking")  # a tool named so: the same text, no flag
    clock.at(0.5)
    assert event(tracker, "model.reasoning", phase="start") == running(
        "thinking", 0.5, thinking=True
    )


def test_events_before_a_turn_change_nothing(tracker):
    assert event(tracker, "tool.call", "⚙ read_file a") is None
    assert tracker.current is None


# -- typed commands --------------------------------------------------------------------------


def test_a_typed_command_runs_stoppable(tracker):
    assert tracker.start_typed("ollama pull qwen3:8b") == Activity(
        "running ollama pull qwen3:8b", turn_seconds=0.0, stoppable=True
    )


def test_a_long_typed_command_is_shortened(tracker):
    started = tracker.start_typed("y" * 150)
    assert started.doing == "running " + "y" * 100 + "…"


@pytest.mark.parametrize(
    ("kind", "details"),
    [("policy.decision", {}), ("command.outcome", {}), ("command.typed", {}), ("error", {})],
)
def test_events_do_not_change_a_typed_command(tracker, kind, details):
    started = tracker.start_typed("make")
    assert tracker.on_event(typed(kind, **details)) is None
    assert tracker.current == started


# -- stopping --------------------------------------------------------------------------------


def test_stopping_a_turn(tracker, clock):
    tracker.start_turn()
    event(tracker, "tool.call", "⚙ run_command ./deploy.sh staging")
    clock.at(5.6)
    assert tracker.stopping() == Activity(
        "stopping the turn", turn_seconds=5.6, stoppable=False, stopping=True
    )


def test_stopping_a_typed_command(tracker, clock):
    tracker.start_typed("ollama pull qwen3:8b")
    clock.at(41.7)
    assert tracker.stopping() == Activity(
        "stopping ollama pull qwen3:8b", turn_seconds=41.7, stopping=True
    )


def test_stopping_twice_is_no_change(tracker):
    tracker.start_turn()
    tracker.stopping()
    assert tracker.stopping() is None


def test_events_while_stopping_change_nothing(tracker):
    # After a stop, command.outcome and turn.stopped follow the stopping line, no new activity.
    tracker.start_turn()
    tracker.stopping()
    assert event(tracker, "command.outcome", exitStatus=-15, stopped=True) is None
    assert event(tracker, "tool.call", "⚙ read_file a") is None
    assert tracker.current is not None
    assert tracker.current.doing == "stopping the turn"
    assert tracker.current.stoppable is not True


def test_stopping_when_nothing_runs_does_nothing(tracker):
    assert tracker.stopping() is None


def test_the_end_is_doing_null(tracker):
    tracker.start_turn()
    assert tracker.end() == p.Activity(doing=None)
    assert tracker.current is None


def test_a_turn_after_a_typed_command_follows_events_again(tracker):
    tracker.start_typed("make")
    tracker.end()
    tracker.start_turn()
    changed = event(tracker, "tool.call", "⚙ read_file a")
    assert changed is not None
    assert changed.doing == "read_file a"


# -- the working line ------------------------------------------------------------------------


def test_working_line_while_thinking(tracker, clock):
    # The working line while the model thinks: `9 s · thinking (6 s)`.
    tracker.start_turn()
    clock.at(3.2)
    event(tracker, "model.reasoning", phase="start")
    assert tracker.working_line(clock.now + 6.5) == "9 s · thinking (6 s) · Ctrl-C stops it"


def test_working_line_reads_the_clock_by_default(tracker, clock):
    tracker.start_turn()
    clock.at(2.7)
    assert tracker.working_line() == "2 s · waiting for the model · Ctrl-C stops it"


def test_working_line_leaves_out_an_activity_begun_with_the_turn(tracker, clock):
    tracker.start_turn()
    clock.at(0.4)
    event(tracker, "tool.call", "⚙ run_command git status")
    clock.at(12.0)
    assert tracker.working_line() == "12 s · running git status · Ctrl-C stops it"


def test_working_line_leaves_out_the_same_seconds(tracker, clock):
    tracker.start_turn()
    clock.at(0.7)
    event(tracker, "tool.call", "⚙ run_command make")
    clock.at(5.9)  # 5 s of the turn, 5.2 s of make
    assert tracker.working_line() == "5 s · running make · Ctrl-C stops it"


def test_working_line_while_stopping(tracker, clock):
    tracker.start_typed("ollama pull qwen3:8b")
    clock.at(41.7)
    tracker.stopping()
    clock.at(43.0)
    assert tracker.working_line() == (
        "43 s · stopping ollama pull qwen3:8b (1 s) · Ctrl-C again kills it"
    )


def test_working_line_is_not_drawn_while_asking(tracker, clock):
    tracker.start_turn()
    event(tracker, "approval.requested")
    clock.at(4.0)
    assert tracker.working_line() is None


def test_working_line_is_not_drawn_when_nothing_runs(tracker):
    assert tracker.working_line() is None
    tracker.start_turn()
    tracker.end()
    assert tracker.working_line() is None


# -- writing the reply -------------------------------------------------------------------------


def test_streaming_text_is_writing_the_reply_once(tracker, clock):
    tracker.start_turn()
    clock.at(0.8)
    assert tracker.on_text() == running("writing the reply", 0.8)
    assert tracker.on_text() is None  # a change, not a line per fragment


def test_text_after_a_tool_result_is_writing_again(tracker, clock):
    tracker.start_turn()
    event(tracker, "tool.call", "⚙ read_file a")
    assert tracker.on_text() is None  # a call runs: text now is not what happens
    event(tracker, "tool.result", tool="read_file")
    clock.at(2.0)
    assert tracker.on_text() == running("writing the reply", 2.0)


def test_text_changes_nothing_while_stopping_or_for_a_typed_command(tracker):
    tracker.start_typed("make")
    assert tracker.on_text() is None
    tracker.end()
    tracker.start_turn()
    tracker.stopping()
    assert tracker.on_text() is None
