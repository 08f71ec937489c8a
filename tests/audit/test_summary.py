"""The one-line summaries of `wisp logs`."""

from __future__ import annotations

from wisp.audit.event import StoredEvent
from wisp.audit.summary import summary_line


def event(kind: str, turn: int | None = None, **details: object) -> StoredEvent:
    return StoredEvent(
        time="2026-11-30T12:54:01.250Z",
        session="5fd0cf21deadbeef",
        turn=turn,
        kind=kind,
        details=dict(details),
    )


def test_the_line_starts_with_time_short_session_and_turn() -> None:
    line = summary_line(event("prompt", 4, text="check the config"))
    assert line.startswith("2026-11-30 12:54:01.250  5fd0cf21  t4  prompt")
    assert line.endswith('"check the config"')


def test_a_config_change_shows_the_path_and_both_values() -> None:
    line = summary_line(event("config.change", path="audit.keepFiles", old=5, new=3, source="cli"))
    assert line.endswith("audit.keepFiles: 5 → 3 (cli)")


def test_an_unset_shows_what_the_value_was() -> None:
    line = summary_line(event("config.change", path="model", old="local", new=None, source="cli"))
    assert line.endswith("model: unset (was local) (cli)")


def test_a_command_outcome_shows_its_exit_status_and_command() -> None:
    line = summary_line(
        event("command.outcome", command="ls -la", exitStatus=2, timedOut=False, seconds=0.5)
    )
    assert line.endswith("exit 2 0.50s ls -la")


def test_an_unknown_kind_shows_its_first_fields() -> None:
    line = summary_line(event("future.kind", a=1, b="two", c=[3], d=None, e=5))
    assert line.split(None, 3)[3] == 'future.kind         a=1 b="two" c=[3] d=null (+1 more)'


def test_text_with_newlines_stays_on_one_line() -> None:
    line = summary_line(event("response", text="first\nsecond\n\nthird", seconds=1.5))
    assert "\n" not in line
    assert '"first second third" 1.50s' in line


def test_a_width_cuts_the_line_with_an_ellipsis() -> None:
    line = summary_line(event("prompt", text="x" * 500), width=80)
    assert len(line) == 80 and line.endswith("…")


def test_a_long_value_is_cut_so_the_line_stays_a_summary() -> None:
    line = summary_line(event("tool.result", tool="read_file", output="y" * 100_000, bytes=100_000))
    assert len(line) < 400
    assert line.endswith('y…"')


def test_a_condensation_shows_the_turns_and_the_fill() -> None:
    line = summary_line(
        event(
            "context.condensation",
            7,
            reason="budget",
            turnsBefore=6,
            turnsAfter=2,
            contextSize=8192,
            tokenCount=5300,
            fillBefore=5100,
            fillAfter=3900,
        )
    )
    assert line.endswith("budget: 6 → 2 turns, 5100 → 3900 of 8192 tokens")


def test_an_out_of_band_approval_shows_its_request_and_how_it_ended() -> None:
    filed = event("approval.pending", request="a1b2c3d4", outcome="filed", level="moderate",
                  command="git push")  # fmt: skip
    settled = event("approval.settled", request="a1b2c3d4", outcome="answered", via="cli",
                    decision="session", command="git push")  # fmt: skip
    assert summary_line(filed).endswith("a1b2c3d4 filed moderate git push")
    assert summary_line(settled).endswith("a1b2c3d4 answered cli session git push")


def test_an_mcp_result_shows_the_tool_and_its_text() -> None:
    line = summary_line(event("mcp.result", tool="respond", isError=False, text="Paris.",
                              seconds=1.5))  # fmt: skip
    assert line.endswith('respond 1.50s: "Paris."')


def test_a_parked_question_shows_how_long_it_waited() -> None:
    line = summary_line(event("inquiry.parked", inquiry="q1", question="Which?", waitedSeconds=45))
    assert line.endswith('after 45.00s: "Which?"')


def test_a_watch_run_shows_its_state_and_the_state_it_changed_from() -> None:
    details = {
        "command": "pytest -q", "run": 3, "trigger": "change", "exitStatus": 1,
        "timedOut": False, "state": "fail", "previous": "pass", "changed": True, "seconds": 1.2,
    }  # fmt: skip
    line = summary_line(event("watch.run", **details))
    assert line.endswith("run 3 change: fail (exit 1, was pass) 1.20s pytest -q")
    same = summary_line(event("watch.run", **{**details, "previous": "fail", "changed": False}))
    assert same.endswith("run 3 change: fail (exit 1) 1.20s pytest -q")
