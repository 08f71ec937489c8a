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
