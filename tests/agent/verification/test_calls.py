"""What counts as done (wisp/agent/verification/calls.py): a command ran unless denied or
declined, a failed one too; a file call only when it succeeded."""

from __future__ import annotations

from tests.agent.verification.trail import command, edit, read, trail
from tests.recorded import recorded
from wisp.agent.verification.calls import turn_calls


def test_each_call_is_read_from_the_trail_with_whether_it_was_done() -> None:
    calls = turn_calls(
        trail(
            command("pytest"),
            command("pytest -x", "failed"),
            command("rm -rf /", "denied"),
            command("sudo apt install x", "declined"),
            edit("a.py"),
            edit("b.py", ok=False),
            read("c.txt"),
            read("d.txt", ok=False),
        )
    )
    assert [(c.tool, c.outcome, c.done) for c in calls] == [
        ("run_command", "succeeded", True),
        ("run_command", "failed", True),
        ("run_command", "denied", False),
        ("run_command", "declined", False),
        ("edit_file", "succeeded", True),
        ("edit_file", "failed", False),
        ("read_file", "succeeded", True),
        ("read_file", "failed", False),
    ]
    assert calls[0].command == "pytest" and calls[0].path is None
    assert calls[4].path == "a.py" and calls[4].command is None


def test_a_command_the_person_typed_does_not_run_the_models() -> None:
    events = [
        recorded("tool.call", "m", tool="run_command", arguments={"command": "pytest"}),
        recorded("policy.decision", command="pytest", verdict="allowed", origin="person"),
        recorded("command.outcome", command="pytest", exitStatus=0, origin="person"),
        recorded("policy.decision", command="pytest", verdict="denied by pattern"),
        recorded("tool.result", "m", tool="run_command", output="error: denied"),
    ]
    (call,) = turn_calls(events)
    assert call.outcome == "denied" and not call.done


def test_arguments_that_are_not_an_object_name_nothing() -> None:
    calls = turn_calls([recorded("tool.call", "x", tool="run_command", arguments="pytest")])
    assert calls[0].command is None
