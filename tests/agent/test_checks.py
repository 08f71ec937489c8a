"""The lines under a reply (docs/turn.md, "Lines under a reply"): cited entries, ran:, the thought
line."""

from __future__ import annotations

import pytest

from tests.recorded import recorded
from wisp.agent.checks import (
    TrailEvent,
    call_outcomes,
    cited_entries,
    cited_line,
    ran_line,
    thought_line,
    unknown_entries,
)


def cited(text: str) -> list[int]:
    return cited_entries(text).numbers


def missing_line(text: str, stored: int) -> str | None:
    citations = cited_entries(text)
    missing = unknown_entries(citations, lambda number: 1 <= number <= stored)
    return cited_line(missing, capped=citations.capped)


# -- the forms a reply can cite in ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("see entry 7", [7]),
        ("see entry #7", [7]),
        ('memory "recall entry 7"', [7]),
        ("[output of entry 7 not repeated: …]", [7]),
        ("Result (entry 19)", [19]),
        ("ENTRY 4 and Entries 5", [4, 5]),
        ("entries 3-5", [3, 4, 5]),
        ("entries 3–5", [3, 4, 5]),  # en dash
        ("entries 3—5", [3, 4, 5]),  # em dash
        ("entry 3 - 5", [3, 4, 5]),
        ("entry 3–5", [3, 4, 5]),
        ("entries #3-#5", [3, 4, 5]),
        ("entries 5-3", [3, 4, 5]),  # end order does not matter
        ("entries 19, 20 and 21", [19, 20, 21]),
        ("entries 3, 5-7, or 9", [3, 5, 6, 7, 9]),
        ("entries 2 & 4", [2, 4]),
        ("entries 2 or 4", [2, 4]),
        ("entries 2, and 4", [2, 4]),
        ("entry 4, then entry 4 again, and entries 3-4", [4, 3]),  # first-cited order, once each
    ],
)
def test_every_citation_form_is_read(text: str, numbers: list[int]) -> None:
    assert cited(text) == numbers


@pytest.mark.parametrize(
    "text",
    [
        "an entryway 5",
        "the entry was fine",
        "turn 4 and 17 files",
        "step 19, line 20",
        "entries are numbered",
        "reentry 5",
        "",
    ],
)
def test_other_numbers_are_not_entries(text: str) -> None:
    assert cited(text) == []


def test_ranges_stop_at_the_cap_of_100_numbers() -> None:
    citations = cited_entries("entries 19-500")
    assert citations.numbers == list(range(19, 119))
    assert citations.capped


def test_the_cap_counts_across_citations() -> None:
    citations = cited_entries("entries 1-90, and entry 500, entries 600-700")
    assert len(citations.numbers) == 100 and citations.capped
    assert citations.numbers[90] == 500


def test_a_reply_under_the_cap_is_not_capped() -> None:
    assert not cited_entries("entries 1-100").capped


# -- real against invented ------------------------------------------------------------------


def test_the_seeds_1254z_reply_flags_exactly_the_invented_entries() -> None:
    reply = (
        "1. Checked the config. Result (entry 16)\n2. Ports. Result (entry 17)\n"
        + "".join(f"{n}. Step. Result (entry {n + 16})\n" for n in range(3, 15))
        + "(All steps logged in entries 16-30; timestamps omitted for brevity.)"
    )
    assert (
        missing_line(reply, stored=18) == "cited but not in this conversation: entries 19–30 (12)"
    )


def test_entries_that_exist_give_no_line() -> None:
    assert missing_line("see entries 1-3 and entry 18", stored=18) is None


def test_no_citation_gives_no_line() -> None:
    assert missing_line("All done.", stored=18) is None


def test_entry_zero_is_never_stored() -> None:
    assert missing_line("entry 0", stored=18) == "cited but not in this conversation: entry 0"


def test_one_missing_entry_is_singular_without_a_count() -> None:
    assert missing_line("entry 40", stored=18) == "cited but not in this conversation: entry 40"


def test_unknown_entries_keep_cited_order() -> None:
    citations = cited_entries("entries 30, 2, 25")
    assert unknown_entries(citations, lambda n: n <= 18) == [30, 25]


# -- the line's grouping and bounds ----------------------------------------------------------


def test_consecutive_numbers_group_as_en_dash_ranges() -> None:
    line = cited_line([19, 20, 25, 30], capped=False)
    assert line == "cited but not in this conversation: entries 19–20, 25, 30 (4)"


def test_at_most_eight_groups_then_how_many_more() -> None:
    line = cited_line(list(range(100, 140, 2)), capped=False)  # 20 singles
    assert line == (
        "cited but not in this conversation: entries "
        "100, 102, 104, 106, 108, 110, 112, 114, +12 more (20)"
    )


def test_a_capped_reply_says_only_the_first_100_were_checked() -> None:
    assert missing_line("entries 19-500", stored=18) == (
        "cited but not in this conversation: entries 19–118 (100); "
        "only the first 100 cited were checked"
    )


# -- ran: --------------------------------------------------------------------------------------


def call(call_id: str, tool: str, **arguments: object) -> TrailEvent:
    return recorded("tool.call", call_id, tool=tool, arguments=arguments)


def result(call_id: str, tool: str, output: str) -> TrailEvent:
    return recorded("tool.result", call_id, tool=tool, output=output)


def decision(command: str, verdict: str, **extra: object) -> TrailEvent:
    return recorded("policy.decision", command=command, verdict=verdict, **extra)


def finished(command: str, status: int, **extra: object) -> TrailEvent:
    return recorded("command.outcome", command=command, exitStatus=status, **extra)


def test_ran_names_each_tool_in_order_of_first_call() -> None:
    events = [
        call("a", "inspect", what="config"),
        result("a", "inspect", "{}"),
        call("b", "system_info", topic="ports"),
        result("b", "system_info", "ports: none"),
    ]
    assert ran_line(call_outcomes(events), "done", []) == "ran: inspect · system_info"


def test_ran_counts_repeats_and_failures() -> None:
    events = [
        call("a", "read_file", path="x"),
        result("a", "read_file", "error: no such file: x"),
        call("b", "read_file", path="y"),
        result("b", "read_file", "1\thello"),
        call("c", "edit_file", path="z"),
        recorded("error", "c", message="boom", context="tool"),
    ]
    line = ran_line(call_outcomes(events), "", [])
    assert line == "ran: read_file ×2 (1 failed) · edit_file (1 failed)"


def test_a_command_is_judged_by_its_policy_and_outcome() -> None:
    events = [
        call("a", "run_command", command="ls"),
        decision("ls", "allowed"),
        finished("ls", 0, timedOut=False),
        result("a", "run_command", "exit status: 0"),
        call("b", "run_command", command="false"),
        decision("false", "allowed"),
        finished("false", 1),
        result("b", "run_command", "exit status: 1"),
        call("c", "run_command", command="rm -rf /"),
        decision("rm -rf /", "denied by pattern"),
        result("c", "run_command", "error: command denied by policy"),
        call("d", "run_command", command="sudo x"),
        decision("sudo x", "disapproved by the gate"),
        result("d", "run_command", "error: command not approved"),
    ]  # fmt: skip
    line = ran_line(call_outcomes(events), "", [])
    assert line == "ran: run_command ×4 (1 failed, 1 denied, 1 declined)"


def test_a_persons_command_is_not_one_of_the_models_calls() -> None:
    events = [
        decision("ls", "allowed", origin="person"),
        finished("ls", 0, origin="person"),
    ]  # fmt: skip
    assert ran_line(call_outcomes(events), "", []) is None


def test_at_most_six_tools_are_named() -> None:
    events = [call(str(n), f"tool_{n}") for n in range(8)]
    events += [result(str(n), f"tool_{n}", "ok") for n in range(8)]
    line = ran_line(call_outcomes(events), "", [])
    assert line is not None and line.endswith("tool_5 · +2 more")


def test_no_tools_is_said_only_when_the_reply_names_one() -> None:
    tools = ["read_file", "run_command"]
    assert ran_line([], "I used read_file() to check.", tools) == "ran: no tools"
    assert ran_line([], "the unread_files are fine", tools) is None
    assert ran_line([], "All good.", tools) is None


# -- the thought line --------------------------------------------------------------------------


def test_the_thought_line_gives_seconds_and_tokens() -> None:
    assert thought_line(4.24, 42) == "∴ thought for 4.2 s, 42 tokens"
    assert thought_line(0.05, 1) == "∴ thought for 0.1 s, 1 token"
