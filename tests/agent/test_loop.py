"""A turn end to end over the real `script:` backend: entries, audit order, checks, stops."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from msgspec import UNSET

from tests.agent.conftest import EchoTool, real_runner
from tests.hang import HANG
from wisp.agent.compose import compose
from wisp.agent.events import TextFragment
from wisp.agent.types import ToolContext
from wisp.audit import MemorySink
from wisp.audit.event import AuditEvent
from wisp.audit.kinds import ToolResult
from wisp.store import transcripts


def kinds(sink: MemorySink) -> list[str]:
    return sink.kinds()


async def test_a_turn_calls_tools_and_replies(make_conversation, write_script, sink, events):
    script = write_script(
        {"tool_calls": [{"name": "echo", "arguments": {"text": "hello"}}]},
        {"text": "The echo said hello.", "usage": {"input": 120, "output": 9}},
    )
    conversation = await make_conversation(script)
    result = await conversation.run_turn("say hello")
    assert result.outcome == "ok"
    assert result.text == "The echo said hello."
    assert result.ran == "ran: echo"
    assert kinds(sink) == ["prompt", "tool.call", "tool.result", "response"]
    call, outcome = sink.events[1], sink.events[2]
    assert call.call == outcome.call and len(call.call) == 8
    assert all(event.turn == 1 for event in sink.events)
    response = sink.events[-1].details
    assert (response.usage.input, response.usage.output) == (120, 9)
    assert [e.kind for e in conversation.store] == [
        "instructions", "prompt", "toolCalls", "toolOutput", "response"
    ]  # fmt: skip
    assert "".join(e.text for e in events if isinstance(e, TextFragment)) == result.text
    # The face's stream holds the very values the audit log got, in the order they happened.
    recorded = [e for e in events if isinstance(e, AuditEvent)]
    assert len(recorded) == len(sink.events)
    assert all(a is b for a, b in zip(recorded, sink.events, strict=True))
    assert [e.details.output for e in recorded if isinstance(e.details, ToolResult)] == ["hello"]
    first_fragment = next(i for i, e in enumerate(events) if isinstance(e, TextFragment))
    assert [e.kind for e in recorded if e in events[:first_fragment]] == [
        "prompt", "tool.call", "tool.result"
    ]  # fmt: skip


async def test_a_second_identical_call_is_marked_repeat(
    make_conversation, write_script, sink, events
):
    call = {"name": "echo", "arguments": {"text": "again"}}
    script = write_script({"tool_calls": [call, call]}, {"text": "twice"})
    conversation = await make_conversation(script)
    result = await conversation.run_turn("twice")
    results = [e.details for e in sink.events if e.kind == "tool.result"]
    assert [r.repeat for r in results] == [UNSET, 2]
    assert result.ran == "ran: echo ×2"


async def test_a_failing_tool_is_a_failed_call_not_a_failed_turn(
    make_conversation, write_script, sink, events
):
    script = write_script(
        {"tool_calls": [{"name": "echo", "arguments": {"text": "fail"}}]},
        {"tool_calls": [{"name": "echo", "arguments": {"text": "raise"}}]},
        {"text": "It failed twice."},
    )
    conversation = await make_conversation(script)
    result = await conversation.run_turn("try")
    assert result.outcome == "ok"
    assert result.ran == "ran: echo ×2 (2 failed)"
    errors = [e for e in sink.events if e.kind == "error"]
    assert len(errors) == 1 and errors[0].call is not None
    assert errors[0].details.message == "RuntimeError: the echo broke"


async def test_the_step_limit_ends_the_turn_with_an_error(
    make_conversation, write_script, sink, events
):
    zones = ["UTC", "Europe/Paris", "Asia/Tokyo", "America/Lima", "Africa/Cairo", "Asia/Dubai"]
    calls = [
        {"tool_calls": [{"name": "current_date", "arguments": {"timeZone": zone}}]}
        for zone in zones  # a different call each time: no repeat ends it first
    ]
    conversation = await make_conversation(write_script(*calls))
    result = await conversation.run_turn("loop forever")
    assert result.outcome == "error"
    assert result.error == (
        "the model made 5 requests without a final reply; the turn was stopped there"
    )
    assert kinds(sink)[-1] == "error"
    assert sink.events[-1].details.context == "turn"
    assert conversation.store.entries[1].kind == "prompt"  # the failed turn is still stored


async def test_a_model_failure_is_an_error_outcome(make_conversation, write_script, sink, events):
    conversation = await make_conversation(write_script({"error": "the server fell over"}))
    result = await conversation.run_turn("hi")
    assert (result.outcome, result.error) == ("error", "the server fell over")


async def test_a_stopped_turn_keeps_its_prompt_and_finished_calls(
    make_conversation, write_script, sink, events
):
    script = write_script(
        {
            "tool_calls": [
                {"name": "echo", "arguments": {"text": "first"}},
            ]
        },
        {"text": "a long reply " * 50, "delay_ms": 50},
    )
    conversation = await make_conversation(script)
    task = asyncio.create_task(conversation.run_turn("go"))
    async with asyncio.timeout(HANG):
        while not any(isinstance(e, TextFragment) for e in events):
            await asyncio.sleep(0.01)
    conversation.stop()
    result = await task
    assert result.outcome == "stopped"
    assert kinds(sink)[-1] == "turn.stopped"
    assert "response" not in kinds(sink)
    assert [e.kind for e in conversation.store][1:] == ["prompt", "toolCalls", "toolOutput"]


async def test_earlier_outputs_go_as_references_from_the_next_turn(
    make_conversation, write_script, events
):
    long_text = "line of output\n" * 100
    script = write_script(
        {"tool_calls": [{"name": "echo", "arguments": {"text": long_text}}]},
        {"text": "done"},
        {"text": "second"},
    )
    conversation = await make_conversation(script)
    await conversation.run_turn("first")
    output = next(e for e in conversation.store if e.kind == "toolOutput")
    await conversation.run_turn("second")
    assert output.referenced_at == 2
    messages = compose(conversation.instructions, conversation.store, [], memory=False)
    tool_message = next(m for m in messages if m.role == "tool")
    assert tool_message.content.startswith(f"[output of entry {output.id} not repeated: echo")


async def test_a_resumed_store_keeps_its_entry_numbers(
    make_conversation, write_script, tmp_path, events
):
    first = await make_conversation(
        write_script({"tool_calls": [{"name": "current_date", "arguments": {}}]}, {"text": "ok"})
    )
    await first.run_turn("what day is it?")
    transcripts.save(first.store, tmp_path / "transcripts", "x")
    store = transcripts.load(tmp_path / "transcripts", "x").store
    assert [e.origin for e in store][1:] == ["resumed"] * 4
    second = await make_conversation(
        write_script({"text": "As entry 4 showed, it is today."}), store=store
    )
    result = await second.run_turn("and again?")
    assert result.cited is None
    assert [e.id for e in second.store] == [1, 2, 3, 4, 5, 6, 7]


async def test_an_output_past_the_budget_is_kept_whole_and_held_back(
    make_conversation, write_script, sink, events, tmp_path
):
    big = "".join(f"line {n}\n" for n in range(2000))  # ~16 KiB, past B = 4 KiB
    script = write_script(
        {"tool_calls": [{"name": "echo", "arguments": {"text": big}}]}, {"text": "long"}
    )
    conversation = await make_conversation(script)
    await conversation.run_turn("long output")
    assert kinds(sink) == ["prompt", "tool.call", "output.kept", "tool.result", "response"]
    kept, result = sink.events[2], sink.events[3]
    assert kept.call == result.call
    assert kept.details.total_bytes == len(big.encode()) and not kept.details.cut
    stored = tmp_path / "home" / "output" / conversation.session / kept.call
    assert stored.read_text() == big
    assert oct(stored.stat().st_mode & 0o777) == "0o600"
    output = result.details.output
    assert len(output.encode()) <= 4096
    assert f"of output {kept.call}" in output and output.startswith("line 0\n")
    assert output.rstrip().endswith("line 1999")


def test_a_typed_command_reaches_the_model_as_the_persons_action() -> None:
    from wisp.agent.compose import command_notice

    short = command_notice(
        line="git status --short", directory="/home/ann/harbour", clock="14:05:12",
        exit_status=0, timed_out=False, stopped=False, output="M src/sync.py", entry_id=7,
        memory=False,
    )  # fmt: skip
    assert short == (
        "[the person ran `git status --short` themselves in /home/ann/harbour at 14:05:12 "
        "(exit status 0, 1 line); this was not your action; its output:]\nM src/sync.py"
    )
    long_output = "\n".join(f"line {n}" for n in range(100))
    notice = command_notice(
        line="ls", directory="/tmp", clock=None, exit_status=1, timed_out=False, stopped=True,
        output=long_output, entry_id=7, memory=True,
    )  # fmt: skip
    assert notice.splitlines() == [
        "[the person ran `ls` themselves in /tmp (exit status 1, stopped, 100 lines); this was "
        'not your action; to see the output: memory "recall entry 7"]',
        "first line: line 0",
        "last line: line 99",
    ]


def test_a_typed_commands_notice_of_many_lines_takes_memory_in_proportion_to_them() -> None:
    # 4 MiB of two-byte lines was two lists of 2 million strings.
    import tracemalloc

    from wisp.agent.compose import command_notice

    output = " \n\tfirst\n" + "y\n" * (2 * 1024 * 1024) + "last \n \n"
    tracemalloc.start()
    try:
        notice = command_notice(
            line="yes", directory="/tmp", clock=None, exit_status=0, timed_out=False,
            stopped=False, output=output, entry_id=7, memory=False,
        )  # fmt: skip
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert notice.splitlines() == [
        f"[the person ran `yes` themselves in /tmp (exit status 0, {2 * 1024 * 1024 + 5} "
        "lines); this was not your action; its output is not repeated]",
        "first line: first",
        "last line: last",
    ]
    assert peak < 2 * len(output)


async def test_a_typed_command_is_stored_for_the_next_turn(
    make_conversation, write_script, events
) -> None:
    conversation = await make_conversation(write_script({"text": "ok"}))
    entry = conversation.add_typed_command("[the person ran `ls` …]", "00112233aabbccdd")
    assert conversation.store.get(entry).turn == 1
    await conversation.run_turn("what did I run?")
    messages = compose(conversation.instructions, conversation.store, [], memory=False)
    assert [m.content for m in messages if m.role == "user"][:1] == ["[the person ran `ls` …]"]


async def recorded(make_conversation, script):
    """A conversation on ``script`` whose requests are remembered."""
    conversation = await make_conversation(script)
    recording = RecordingBackend(conversation.resolved.backend)
    conversation.resolved.backend = recording
    return conversation, recording


class RecordingBackend:
    """A backend that remembers each request before the real one answers it."""

    def __init__(self, backend) -> None:
        self.backend = backend
        self.requests: list = []

    def stream(self, request):
        self.requests.append(request)
        return self.backend.stream(request)

    async def aclose(self) -> None:
        await self.backend.aclose()


async def test_an_empty_reply_is_asked_once_more_without_tools(
    make_conversation, write_script, sink, events
):
    conversation = await make_conversation(write_script({"text": ""}, {"text": "It is noon."}))
    recording = RecordingBackend(conversation.resolved.backend)
    conversation.resolved.backend = recording
    result = await conversation.run_turn("what time is it?")
    assert (result.outcome, result.text) == ("ok", "It is noon.")
    first, again = recording.requests
    assert first.tools and not again.tools
    # What the first offered is still there for a backend to keep in the prompt, calls barred.
    assert again.kept_in_prompt == first.tools
    nudge = again.messages[-1]
    assert nudge.role == "user" and "Your reply was empty" in nudge.content
    # The nudge is not part of the conversation: only the prompt and the answer are stored.
    assert [e.kind for e in conversation.store][-2:] == ["prompt", "response"]
    assert "Your reply was empty" not in [e.text for e in conversation.store]


async def test_silence_twice_ends_the_turn_saying_the_model_gave_no_answer(
    make_conversation, write_script, sink, events
):
    conversation = await make_conversation(write_script({"text": ""}, {"text": "  \n"}))
    result = await conversation.run_turn("hello?")
    assert result.outcome == "error"
    assert result.error is not None and result.error.startswith("the model gave no answer")
    assert sink.events[-1].kind == "error" and sink.events[-1].details.context == "turn"


ECHO_AGAIN = {"tool_calls": [{"name": "echo", "arguments": {"text": "again"}}]}


ECHO_OTHER = {"tool_calls": [{"name": "echo", "arguments": {"text": "other"}}]}
ECHO_THIRD = {"tool_calls": [{"name": "echo", "arguments": {"text": "third"}}]}


async def test_the_second_identical_call_is_told_it_repeats(
    make_conversation, write_script, sink, events
):
    # Another call between: a repeat that may be worth it (a test run after an edit).
    script = write_script(ECHO_AGAIN, ECHO_OTHER, ECHO_AGAIN, {"text": "ok"})
    conversation = await make_conversation(script)
    result = await conversation.run_turn("echo")
    assert result.outcome == "ok"
    outputs = [e.details.output for e in sink.events if e.kind == "tool.result"]
    assert outputs[0] == "again"
    # The same output is not sent twice: the model has it.
    assert outputs[2] == (
        "note: you already made this exact call in this turn, and its result is the same as "
        "before (above). Do not call it a third time: use the results you have."
    )
    assert "tools.withdrawn" not in kinds(sink)


class CountingTool:
    """A real tool whose output changes each call, as a command's may."""

    name = "count"
    description = "Counts its calls."
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    read_only = True

    def __init__(self) -> None:
        self.calls = 0

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        self.calls += 1
        return f"call {self.calls}"


async def test_a_repeat_that_gives_something_new_shows_it(
    make_conversation, write_script, sink, events
):
    count = {"tool_calls": [{"name": "count", "arguments": {}}]}
    script = write_script(count, ECHO_OTHER, count, {"text": "ok"})
    conversation = await make_conversation(script, [CountingTool(), EchoTool()])
    await conversation.run_turn("count")
    outputs = [e.details.output for e in sink.events if e.kind == "tool.result"]
    assert outputs[2].startswith("note: you already made this exact call in this turn; the result")
    assert outputs[2].endswith("\ncall 2")


async def test_a_third_identical_call_withdraws_the_tools_and_asks_for_the_answer(
    make_conversation, write_script, sink, events
):
    def both(*replies):
        return {"tool_calls": [c for reply in replies for c in reply["tool_calls"]]}

    replies = [both(ECHO_AGAIN, ECHO_OTHER), both(ECHO_AGAIN, ECHO_THIRD), ECHO_AGAIN]
    script = write_script(*replies, {"text": "It said again."})
    conversation, recording = await recorded(make_conversation, script)
    result = await conversation.run_turn("echo")
    assert (result.outcome, result.text) == ("ok", "It said again.")
    (withdrawn,) = [e for e in sink.events if e.kind == "tools.withdrawn"]
    assert (withdrawn.details.tool, withdrawn.details.repeat) == ("echo", 3)
    last = recording.requests[-1]
    assert last.tools == [] and last.messages[-1].content.startswith("Question: echo\n")
    assert all(request.tools for request in recording.requests[:-1])


async def test_the_same_call_straight_after_its_result_withdraws_the_tools(
    make_conversation, write_script, sink, events
):
    # Qwen2.5-Coder-0.5B reads the file, then reads it again and again: the second call in a
    # row is the loop. The request for the answer stands alone: the question, then the result,
    # once, without the repeat note.
    script = write_script(ECHO_AGAIN, ECHO_AGAIN, {"text": "It said again."})
    conversation, recording = await recorded(make_conversation, script)
    result = await conversation.run_turn("echo")
    assert (result.outcome, result.text) == ("ok", "It said again.")
    (withdrawn,) = [e for e in sink.events if e.kind == "tools.withdrawn"]
    assert (withdrawn.details.tool, withdrawn.details.repeat) == ("echo", 2)
    last = recording.requests[-1]
    nudge = last.messages[-1].content
    assert last.tools == [] and len(recording.requests) == 3
    assert [m.role for m in last.messages] == ["system", "user"]  # a request of its own
    assert 'I called echo with {"text": "again"}; it gave:\n```\nagain\n```\n' in nudge
    assert "you already made this exact call" not in nudge


async def test_the_request_for_the_answer_gives_the_question_before_for_it_to_point_to(
    make_conversation, write_script, sink, events
):
    script = write_script(
        {"text": "Ask me to echo something."}, ECHO_AGAIN, ECHO_AGAIN, {"text": "It said again."}
    )
    conversation, recording = await recorded(make_conversation, script)
    await conversation.run_turn("Can you echo things?")
    await conversation.run_turn("Echo it, then.")
    asked = recording.requests[-1].messages[-1].content
    assert asked.startswith("Earlier I asked: Can you echo things?\nQuestion: Echo it, then.\n")


async def test_calling_on_after_the_tools_are_withdrawn_ends_the_turn_plainly(
    make_conversation, write_script, sink, events
):
    conversation = await make_conversation(write_script(*[ECHO_AGAIN] * 3))
    result = await conversation.run_turn("echo")
    assert result.outcome == "error"
    assert result.error is not None
    assert result.error.startswith("the model kept calling echo with the same arguments")
    assert kinds(sink).count("tool.call") == 2  # the third call never ran


async def test_a_call_written_as_text_after_the_tools_are_withdrawn_is_no_answer(
    make_conversation, write_script, sink, events
):
    # Small models write the call they were just refused as text: it is read as the call it
    # is (the request withholds the tools, it does not forget them), never printed as the
    # answer (seen with Qwen2.5-Coder-0.5B in bench/tasks.py).
    written = {"text": '{"name": "echo", "arguments": {"text": "again"}}'}
    conversation = await make_conversation(write_script(*[ECHO_AGAIN] * 2, written))
    result = await conversation.run_turn("echo")
    assert result.outcome == "error"
    assert result.error is not None
    assert result.error.startswith("the model kept calling echo with the same arguments")
    assert not any(isinstance(e, TextFragment) and "again" in e.text for e in events)


async def test_a_call_written_as_text_when_asked_again_after_silence_is_no_answer(
    make_conversation, write_script, sink, events
):
    written = {"text": '```json\n{"name": "current_date", "arguments": {}}\n```'}
    conversation = await make_conversation(write_script({"text": ""}, written))
    result = await conversation.run_turn("hello?")
    assert result.outcome == "error"
    assert result.error is not None and result.error.startswith("the model gave no answer")


async def test_calls_after_a_repeat_in_the_same_reply_are_not_run(
    make_conversation, write_script, sink, events
):
    # Small models write the same call several times in one reply (back to back as text):
    # the second withdraws the tools, and the third and later of that reply never run.
    four = {"tool_calls": [{"name": "echo", "arguments": {"text": "again"}}] * 4}
    conversation = await make_conversation(write_script(four, {"text": "It said again."}))
    result = await conversation.run_turn("echo")
    assert (result.outcome, result.text) == ("ok", "It said again.")
    assert kinds(sink).count("tool.call") == 2
    assert kinds(sink).count("tools.withdrawn") == 1
    (stored_calls,) = [e for e in conversation.store if e.kind == "toolCalls"]
    outputs = [e for e in conversation.store if e.kind == "toolOutput"]
    assert len(stored_calls.value) == len(outputs) == 2


SHAPE = {"type": "object", "properties": {"colour": {"type": "string"}}}


async def test_a_schema_goes_only_with_requests_that_offer_no_tools(
    make_conversation, write_script, sink, events
):
    # A reply held to a schema could not call a tool: while tools are offered the reply is
    # free, and the request for the answer after they are withdrawn is held.
    script = write_script(ECHO_AGAIN, ECHO_AGAIN, {"text": '{"colour": "red"}'})
    conversation, recording = await recorded(make_conversation, script)
    await conversation.run_turn("echo", schema=SHAPE)
    assert [request.schema for request in recording.requests] == [None, None, SHAPE]
    toolless = await make_conversation(write_script({"text": '{"colour": "red"}'}), tools=[])
    recording = RecordingBackend(toolless.resolved.backend)
    toolless.resolved.backend = recording
    await toolless.run_turn("a colour", schema=SHAPE)
    await toolless.run_turn("a colour")
    assert [request.schema for request in recording.requests] == [SHAPE, None]


class WaitingPerson:
    """Asked, never answers: the approval waits until the turn withdraws it."""

    can_ask = True

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.withdrawn = False

    async def ask(self, question: Any, timeout: float | None) -> Any:
        self.asked.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.withdrawn = True
            raise


async def test_a_stop_while_a_command_awaits_approval_ends_the_turn_and_nothing_runs(
    make_conversation, write_script, sink, events, tmp_path, monkeypatch
):
    from wisp.agent import loop
    from wisp.policy.approvals import ApprovalStore
    from wisp.policy.gate import ApprovalGate
    from wisp.tools.run_command import RunCommandTool

    # A running command is given time to end (SIGTERM, then SIGKILL) before a stopped turn
    # ends; one only awaiting its approval has nothing to end. Were it given that time too,
    # this stop would wait past the test's bound.
    monkeypatch.setattr(loop, "COMMAND_STOP_GRACE", 10 * HANG)
    person = WaitingPerson()
    runner = real_runner(tmp_path, tmp_path / "home")
    touch = {"name": "run_command", "arguments": {"command": "touch made.txt"}}
    script = write_script({"tool_calls": [touch]}, {"text": "Done."})
    conversation = await make_conversation(script, tools=[RunCommandTool(runner)])
    approvals = ApprovalStore(tmp_path / "approvals.json")
    runner.gate = ApprovalGate("safe", person, approvals, record=conversation.recorder.record)
    task = asyncio.create_task(conversation.run_turn("make it"))
    async with asyncio.timeout(HANG):
        await person.asked.wait()
        conversation.stop()
        result = await task
    assert result.outcome == "stopped"
    assert person.withdrawn
    assert not (tmp_path / "made.txt").exists()
    assert "command.outcome" not in kinds(sink)
    assert kinds(sink)[-1] == "turn.stopped"
