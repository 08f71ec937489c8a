"""The lines wisp words for events: every audit kind's line, the `event` line's output object
(docs/protocol.md, "`event`"), the plain chat's output fold and its footer."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from tests.recorded import typed
from wisp.audit.kinds import ToolCall
from wisp.chat.event_text import event_text, shorten

LONG = "x" * 150
SHORTENED = "x" * 100 + "…"


def text_of(kind: str, call: str | None = "c1", **details: Any) -> str | None:
    return event_text(typed(kind, **details), call)


def event_text_of(kind: str, call: str | None, details: dict[str, Any]) -> str | None:
    return event_text(typed(kind, **details), call)


# -- shorten ---------------------------------------------------------------------------------


def test_shorten_keeps_100_characters_and_adds_an_ellipsis():
    assert shorten(LONG) == SHORTENED


def test_shorten_leaves_100_characters_alone():
    assert shorten("y" * 100) == "y" * 100


# -- tool.call -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("run_command", {"command": "git push"}, "⚙ run_command git push"),
        ("read_file", {"path": "README.md"}, "⚙ read_file README.md"),
        ("read_file", {"path": "README.md", "offset": 40}, "⚙ read_file README.md from line 40"),
        (
            "edit_file",
            {"path": "notes.md", "mode": "append", "content": "x"},
            "⚙ edit_file append notes.md",
        ),
        ("inspect", {"what": "config"}, "⚙ inspect config"),
        ("current_date", {"timeZone": "Asia/Tokyo"}, "⚙ current_date Asia/Tokyo"),
        (
            "ask",
            {"question": "Which environment?", "options": ["staging", "production"]},
            "⚙ ask Which environment?",
        ),
    ],
)
def test_tool_call_names_the_argument_that_identifies_it(tool, arguments, expected):
    assert text_of("tool.call", tool=tool, arguments=arguments) == expected


def test_tool_call_reads_arguments_given_as_a_json_string():
    # The arguments as the model's JSON text.
    assert text_of("tool.call", tool="read_file", arguments='{"path":"README.md"}') == (
        "⚙ read_file README.md"
    )


def test_tool_call_of_another_tool_shows_its_whole_arguments_json():
    assert text_of("tool.call", tool="notify", arguments='{"title": "done"}') == (
        '⚙ notify {"title": "done"}'
    )


def test_tool_call_writes_object_arguments_as_compact_json():
    arguments = {"title": "done", "body": "café"}
    assert text_of("tool.call", tool="notify", arguments=arguments) == (
        '⚙ notify {"title":"done","body":"café"}'
    )


def test_tool_call_without_its_argument_shows_the_whole_json():
    assert text_of("tool.call", tool="run_command", arguments={"cmd": "ls"}) == (
        '⚙ run_command {"cmd":"ls"}'
    )


def test_tool_call_with_arguments_that_are_not_json_shows_them_as_given():
    assert text_of("tool.call", tool="run_command", arguments="{not json") == (
        "⚙ run_command {not json"
    )


def test_tool_call_summary_is_shortened():
    assert text_of("tool.call", tool="run_command", arguments={"command": LONG}) == (
        f"⚙ run_command {SHORTENED}"
    )


def test_tool_call_long_json_is_shortened():
    arguments = {"text": LONG}
    line = text_of("tool.call", tool="notify", arguments=arguments)
    assert line == "⚙ notify " + ('{"text":"' + LONG)[:100] + "…"


def test_tool_call_with_no_arguments_has_no_trailing_space():
    assert text_of("tool.call", tool="system_info", arguments="") == "⚙ system_info"


def test_tool_call_reads_details_as_the_audit_writes_them():
    details = msgspec.to_builtins(ToolCall(tool="run_command", arguments={"command": "ls -l"}))
    assert event_text_of("tool.call", "c1", details) == "⚙ run_command ls -l"


# -- tool.result -----------------------------------------------------------------------------


def test_tool_result_says_bytes_seconds_and_the_first_line():
    # A read_file result.
    details = {"tool": "read_file", "output": "1\t# wisp\n2\t…", "bytes": 5210, "seconds": 0.01}
    assert event_text_of("tool.result", "c7", details) == "  ↳ 5210 bytes in 0.0 s: 1\t# wisp"


def test_tool_result_shows_the_first_non_empty_line_shortened():
    output = "\n  \n" + LONG + "\nsecond"
    line = text_of("tool.result", tool="inspect", output=output, bytes=160, seconds=1.25)
    assert line == f"  ↳ 160 bytes in 1.2 s: {SHORTENED}"


def test_tool_result_with_empty_output_says_only_its_size():
    line = text_of("tool.result", tool="memory", output="", bytes=0, seconds=0.0)
    assert line == "  ↳ 0 bytes in 0.0 s"


@pytest.mark.parametrize("tool", ["run_command", "ask"])
def test_tool_result_of_run_command_and_ask_shows_nothing(tool):
    assert text_of("tool.result", tool=tool, output="exit 0", bytes=6, seconds=0.2) is None


# -- command.outcome -------------------------------------------------------------------------


def test_command_outcome_says_the_exit_status():
    assert text_of("command.outcome", exitStatus=0, timedOut=False, truncated=False) == (
        "  ↳ exit 0"
    )


def test_command_outcome_of_a_stopped_command():
    line = text_of("command.outcome", exitStatus=-15, timedOut=False, truncated=False, stopped=True)
    assert line == "  ↳ exit -15 (stopped by you)"


def test_command_outcome_joins_its_notes_in_order():
    line = text_of("command.outcome", exitStatus=-9, timedOut=True, truncated=True, stopped=True)
    assert line == "  ↳ exit -9 (timed out, stopped by you, output truncated)"


# -- command.typed ---------------------------------------------------------------------------


def test_command_typed_that_could_not_start():
    line = text_of("command.typed", None, verdict="allowed", failure="no such shell")
    assert line == "  · could not run it: no such shell"


def test_command_typed_refused_by_the_sandbox_names_the_paths():
    line = text_of(
        "command.typed", None, sandboxRefusal="refused", sandboxPaths=["/etc/x", "/opt/y"]
    )
    # The roots less WISP_HOME: with WISP_HOME under /tmp, a start-up note names what /tmp lost.
    assert line == (
        "  · the sandbox refused writing to /etc/x, /opt/y, as it would for the model: "
        "commands write only within wisp's writable roots, less WISP_HOME and what a sandbox "
        "note at start-up names"
    )


def test_command_typed_names_at_most_three_paths():
    paths = ["/a", "/b", "/c", "/d", "/e"]
    line = text_of("command.typed", None, sandboxRefusal="refused", sandboxPaths=paths)
    assert line is not None
    assert line.startswith("  · the sandbox refused writing to /a, /b, /c and 2 more, as")


def test_command_typed_refused_by_something_else():
    line = text_of("command.typed", None, sandboxRefusal="not-the-sandbox", sandboxPaths=["/w/f"])
    assert line == "  · not the sandbox: /w/f is inside wisp's writable roots"


def test_command_typed_that_the_sandbox_may_have_refused():
    line = text_of("command.typed", None, sandboxRefusal="guess", sandboxPaths=[])
    assert line == (
        "  · the sandbox may have refused it (no path to check), as it would the model's; "
        "no policy rule denied it"
    )


def test_command_typed_that_ran_plainly_shows_nothing():
    assert text_of("command.typed", None, verdict="allowed", exitStatus=0, output="hi\n") is None


# -- file.write, error -----------------------------------------------------------------------


def test_file_write():
    line = text_of("file.write", path="notes.md", mode="append", created=False, bytesAfter=120)
    assert line == "  ↳ append notes.md, now 120 bytes"


def test_error_with_a_call():
    assert text_of("error", "c3", message="boom", context="tool") == "  ↳ error: boom"


def test_error_without_a_call_shows_nothing():
    assert text_of("error", None, message="boom", context="turn") is None


# -- classifier.verdict ----------------------------------------------------------------------


def verdict(**details: Any) -> str | None:
    base = {
        "command": "git push",
        "pattern": "git push *",
        "level": "moderate",
        "reasons": ["pushes to a remote", "second"],
        "sources": ["rules"],
        "seconds": 0.0004,
    }
    return event_text_of("classifier.verdict", "c1", base | details)


def test_classifier_verdict():
    # A moderate command, rated by the rules.
    assert verdict() == "  · moderate by rules: pushes to a remote (0.4 ms)"


def test_classifier_verdict_names_the_command_when_it_is_part_of_a_line():
    line = verdict(line="git push && ls")
    assert line == "  · git push: moderate by rules: pushes to a remote (0.4 ms)"


def test_classifier_verdict_shortens_the_named_command():
    line = verdict(command=LONG, line=LONG + " | cat")
    assert line == f"  · {SHORTENED}: moderate by rules: pushes to a remote (0.4 ms)"


def test_classifier_verdict_joins_its_sources_with_commas():
    assert verdict(sources=["rules", "coreml"], level="safe", reasons=["reads"]) == (
        "  · safe by rules, coreml: reads (0.4 ms)"
    )


@pytest.mark.parametrize(
    ("seconds", "timing"),
    [(0.0099, "9.9 ms"), (0.0123, "12 ms"), (0.2506, "251 ms")],
)
def test_classifier_verdict_milliseconds(seconds, timing):
    assert verdict(seconds=seconds) == f"  · moderate by rules: pushes to a remote ({timing})"


def test_classifier_verdict_remembered():
    line = verdict(metadata={"classifier.cached": True}, seconds=0.02)
    assert line == "  · moderate by rules: pushes to a remote (remembered)"


def test_classifier_verdict_not_cached_shows_its_time():
    assert verdict(metadata={"classifier.cached": False}).endswith("(0.4 ms)")


# -- approvals -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("details", "expected"),
    [
        ({"decision": "approved", "scope": "session"}, "  · approved (session)"),
        ({"decision": "approved", "scope": "once"}, "  · approved (once)"),
        ({"decision": "denied"}, "  · denied"),
        ({"decision": "timed-out"}, "  · no answer in time, denied"),
        ({"decision": "cached-turn"}, "  · allowed: approved once earlier in this turn"),
        ({"decision": "cached"}, "  · allowed by your approval for this session"),
        ({"decision": "cached-project"}, "  · allowed by your approval for this project"),
        ({"decision": "cached-always"}, "  · allowed by your standing approval"),
        ({"decision": "downgraded"}, "  · downgraded"),
    ],
)
def test_approval_decided(details, expected):
    assert event_text_of("approval.decided", "c1", {"command": "git push"} | details) == expected


def test_approval_pending_filed_for_a_command():
    line = text_of("approval.pending", None, request="r1", outcome="filed", thread="t", client="c")
    assert line == "  · also waiting in wisp approvals pending and wisp-tui"


def test_approval_pending_for_a_fact_shows_nothing():
    details = {"request": "r2", "outcome": "filed", "kind": "fact", "fact": "c8"}
    assert event_text_of("approval.pending", None, details) is None


def test_approval_pending_not_filed_shows_nothing():
    assert text_of("approval.pending", None, outcome="failed") is None


@pytest.mark.parametrize(
    ("via", "face"),
    [("tui", "wisp-tui"), ("cli", "wisp approvals"), ("elicitation", "the client's dialog")],
)
def test_approval_settled_says_where_it_was_answered(via, face):
    line = text_of("approval.settled", None, outcome="answered", via=via, decision="once")
    assert line == f"  · answered in {face}"


def test_approval_settled_for_a_fact_shows_nothing():
    details = {"request": "r2", "outcome": "answered", "via": "tui", "kind": "fact"}
    assert event_text_of("approval.settled", None, details) is None


def test_approval_settled_not_answered_shows_nothing():
    assert text_of("approval.settled", None, outcome="timed-out") is None


def test_approval_requested_shows_nothing():
    assert text_of("approval.requested", command="git push", level="moderate") is None


# -- policy.decision, model.routed -----------------------------------------------------------


def test_policy_decision_allowed_shows_nothing():
    assert text_of("policy.decision", verdict="allowed", reason="allow list") is None


def test_policy_decision_denied_gives_its_reason():
    line = text_of("policy.decision", verdict="denied", reason="matches deny rm -rf *")
    assert line == "  · blocked by policy: matches deny rm -rf *"


def test_policy_decision_without_a_reason():
    assert text_of("policy.decision", verdict="disapproved", reason="") == "  · blocked by policy"


def test_model_routed():
    line = text_of("model.routed", None, task="scan", inputBytes=10, model="local", reason="small")
    assert line == "  · scan runs on local: small"


# -- context.condensation --------------------------------------------------------------------


def condensation(**details: Any) -> str | None:
    base = {"turnsBefore": 12, "turnsAfter": 4, "contextSize": 8192, "tokenCount": 3000}
    return event_text_of("context.condensation", None, base | details)


def test_condensation_without_a_target():
    assert condensation(reason="overflow") == "(context condensed, overflow: 12 → 4 turns)"


def test_condensation_to_a_target_with_steps_gives_the_fill():
    line = condensation(
        reason="budget", target=6000, fillBefore=7900, fillAfter=3100, steps=["drop turns 1-8"]
    )
    assert line == "(context condensed, budget: 12 → 4 turns, 7900 → 3100 of 8192 tokens)"


def test_condensation_to_a_target_on_overflow_gives_the_fill():
    line = condensation(reason="overflow", target=6000, fillBefore=9000, fillAfter=3100, steps=[])
    assert line == "(context condensed, overflow: 12 → 4 turns, 9000 → 3100 of 8192 tokens)"


def test_condensation_to_a_target_that_took_no_step_shows_nothing():
    assert condensation(reason="budget", target=6000, fillBefore=5000, fillAfter=5000) is None


def test_condensation_at_its_floor_adds_a_second_line():
    line = condensation(
        reason="overflow", target=6000, fillBefore=9000, fillAfter=7000, steps=["x"], floor=True
    )
    assert line == (
        "(context condensed, overflow: 12 → 4 turns, 9000 → 7000 of 8192 tokens)\n"
        "(context at its floor: the instructions and the last turn take 7000 of 8192 tokens, "
        "above the 6000 that leave room for this request and a reply; this turn may run out of "
        "room, and /new starts afresh)"
    )


# -- model.reasoning -------------------------------------------------------------------------


def test_reasoning_end():
    line = text_of(
        "model.reasoning", None, phase="end", text="…", bytes=180, tokens=42, seconds=4.2
    )
    assert line == "∴ thought for 4.2 s, 42 tokens"


def test_reasoning_end_of_one_token():
    line = text_of("model.reasoning", None, phase="end", text="a", tokens=1, seconds=0.04)
    assert line == "∴ thought for 0.0 s, 1 token"


def test_reasoning_start_shows_nothing():
    assert text_of("model.reasoning", None, phase="start") is None


# -- inquiry, turn.stopped -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("details", "expected"),
    [
        ({"outcome": "answered", "answer": "staging"}, "  · answered: staging"),
        ({"outcome": "answered", "answer": LONG}, f"  · answered: {SHORTENED}"),
        ({"outcome": "none"}, "  · no answer"),
        ({"outcome": "declined"}, "  · declined"),
        ({"outcome": "unanswered"}, "  · no answer in time"),
        ({"outcome": "stopped"}, "  · stopped by you"),
        (
            {"outcome": "refused", "reason": "it asks for a secret"},
            "  · not asked: it asks for a secret",
        ),
        ({"outcome": "withdrawn", "reason": "the turn ended"}, "  · withdrawn: the turn ended"),
        ({"outcome": "abandoned"}, "  · abandoned"),
        ({"outcome": "failed", "reason": "disk full"}, "  · failed: disk full"),
    ],
)
def test_inquiry_settled(details, expected):
    base = {"inquiry": "7c1e04b9", "question": "Which environment?", "thread": "t", "seconds": 2}
    assert event_text_of("inquiry.settled", "c2", base | details) == expected


def test_inquiry_requested_shows_nothing():
    assert text_of("inquiry.requested", question="Which environment?") is None


def test_turn_stopped():
    # A turn the person stopped.
    assert text_of("turn.stopped", None, seconds=6.1, killed=False) == (
        "  · stopped by you after 6.1 s"
    )


def test_turn_stopped_and_killed():
    assert text_of("turn.stopped", None, seconds=2.04, killed=True) == (
        "  · stopped by you after 2.0 s (killed)"
    )


@pytest.mark.parametrize(
    "kind",
    ["prompt", "response", "session.start", "fact.recorded", "notification"],
)
def test_everything_else_shows_nothing(kind):
    assert text_of(kind, text="hello") is None


def test_tools_withdrawn_says_why():
    line = text_of("tools.withdrawn", tool="read_file", arguments={"path": "a"}, repeat=3)
    assert line == (
        "  · read_file called a third time with the same arguments: no more tools this turn"
    )
