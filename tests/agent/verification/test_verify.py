"""The check over a whole reply, its line, and the turn's ``response.verification``
(wisp/agent/verification/verify.py, wisp/agent/reply_checks.py ``ReplyChecks.check``)."""

from __future__ import annotations

from pathlib import Path

from tests.agent.verification.trail import command, edit, read, repeated, trail
from wisp.agent.verification import verification_line, verify
from wisp.audit.kinds import ResponseVerification, VerifiedClaim
from wisp.config import Config
from wisp.tools.edit_file import EditFileTool

HERE = Path("/work/project")


def test_a_reply_without_a_claim_is_not_checked() -> None:
    assert verify("The capital of France is Paris.", trail(command("ls")), HERE) is None


def test_every_claim_supported_is_verified_with_no_line() -> None:
    found = verify(
        "I ran the tests and updated app.py.", trail(command("pytest"), edit("app.py")), HERE
    )
    assert found is not None and found.line is None
    details = found.details
    assert (details.method, details.status, details.claims, details.calls) == (
        "readers", "verified", [], 2
    )  # fmt: skip
    assert 0 <= details.seconds < 10


def test_the_unsupported_claims_are_recorded_by_reader_with_their_reason() -> None:
    found = verify("I ran the tests, then I've updated config.ini.", trail(command("ls")), HERE)
    assert found is not None
    assert found.details.status == "unsupported"
    assert found.details.calls == 1
    assert found.details.claims == [
        VerifiedClaim(reader="tests", claim="ran the tests", reason="no test command ran"),
        VerifiedClaim(reader="edits", claim="updated config.ini", reason="no edit of config.ini"),
    ]
    assert found.line == (
        "claimed but not done: ran the tests (no test command ran); "
        "updated config.ini (no edit of config.ini)"
    )


def test_a_removal_told_after_only_a_read_is_claimed_but_not_done() -> None:
    # Recorded: Qwen2.5-Coder-1.5B, asked to remove a line, read the file and said this.
    reply = 'The line "obsolete" is removed from the file.'
    found = verify(reply, trail(read("items.txt")), HERE)
    assert found is not None and found.details.status == "unsupported"
    assert found.line == (
        'claimed but not done: The line "obsolete" is removed from the file (no file was edited)'
    )


def test_a_failed_edit_made_again_is_still_not_done() -> None:
    # Recorded: Qwen2.5-Coder-0.5B made a failing edit twice (the second answered with the
    # repeat note), then said it was done.
    reply = "The line saying obsolete was removed from items.txt."
    failed_twice = trail(edit("items.txt", ok=False), repeated("edit_file", "items.txt"))
    found = verify(reply, failed_twice, HERE)
    assert found is not None and found.details.status == "unsupported"
    assert found.details.claims[0].reason == "the edit of items.txt failed"
    # A call that succeeded and was made again is still done.
    done_twice = trail(edit("items.txt"), repeated("edit_file", "items.txt"))
    assert verify(reply, done_twice, HERE).details.status == "verified"


def test_the_line_shows_three_claims_then_how_many_more() -> None:
    claims = [VerifiedClaim(reader="r", claim=f"did {n}", reason="no") for n in range(5)]
    assert verification_line(claims) == (
        "claimed but not done: did 0 (no); did 1 (no); did 2 (no); +2 more"
    )
    assert verification_line([]) is None


# -- the turn ---------------------------------------------------------------------------------


async def test_a_false_claim_is_recorded_after_the_response_and_put_on_the_turn(
    make_conversation, write_script, sink, events
):
    script = write_script(
        {"tool_calls": [{"name": "echo", "arguments": {"text": "hi"}}]},
        {"text": "I ran the tests and they pass."},
    )
    conversation = await make_conversation(script)
    result = await conversation.run_turn("run the tests")
    assert result.verification == "claimed but not done: ran the tests (no command ran)"
    assert sink.kinds() == [
        "prompt", "tool.call", "tool.result", "response", "response.verification"
    ]  # fmt: skip
    details = sink.events[-1].details
    assert isinstance(details, ResponseVerification)
    assert (details.method, details.status, details.calls) == ("readers", "unsupported", 1)
    assert details.claims == [
        VerifiedClaim(reader="tests", claim="ran the tests", reason="no command ran")
    ]


async def test_a_true_claim_is_recorded_verified_with_no_line(
    make_conversation, write_script, sink, events, tmp_path
):
    write = {"path": str(tmp_path / "notes.md"), "mode": "write", "content": "hello\n"}
    script = write_script(
        {"tool_calls": [{"name": "edit_file", "arguments": write}]},
        {"text": "I've written notes.md."},
    )
    conversation = await make_conversation(script, tools=[EditFileTool()])
    result = await conversation.run_turn("write notes")
    assert (tmp_path / "notes.md").read_text() == "hello\n"
    assert result.verification is None
    details = sink.events[-1].details
    assert isinstance(details, ResponseVerification)
    assert (details.status, details.claims, details.calls) == ("verified", [], 1)


async def test_a_reply_with_no_claim_records_no_verification(
    make_conversation, write_script, sink, events
):
    conversation = await make_conversation(write_script({"text": "Paris."}))
    result = await conversation.run_turn("capital of France?")
    assert result.verification is None
    assert "response.verification" not in sink.kinds()


async def test_mode_off_checks_nothing(make_conversation, write_script, sink, events, tmp_path):
    conversation = await make_conversation(write_script({"text": "I ran the tests."}))
    conversation.config = Config(tmp_path / "config.json", {"verification": {"mode": "off"}})
    result = await conversation.run_turn("run the tests")
    assert result.verification is None
    assert "response.verification" not in sink.kinds()
