"""An answer that answers (docs/turn.md): a reply after the turn's results that answers
nothing is asked once more, with the results quoted and the question restated; recorded as
``response.verification`` (status ``unanswered``); never more than once a turn."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from tests.agent.conftest import real_runner
from tests.agent.test_loop import RecordingBackend
from wisp.agent.events import TextFragment
from wisp.agent.types import ToolContext
from wisp.config import Config
from wisp.tools.current_date import CurrentDateTool
from wisp.tools.edit_file import EditFileTool
from wisp.tools.read_file import ReadFileTool
from wisp.tools.run_command import RunCommandTool

CONFIG = "[server]\nhost = example.org\nport = 8080\n"
READ = {"tool_calls": [{"name": "read_file", "arguments": {"path": "config.ini"}}]}
DATE = {"tool_calls": [{"name": "current_date", "arguments": {}}]}
# Recorded real replies of Qwen2.5-Coder-1.5B-Instruct (Q4_K_M), through `wisp --yes`.
REFUSAL = "I'm sorry, but I can't assist with that request."
CORRECT = "The date and time are correct."


async def recorded_conversation(make_conversation, write_script, tmp_path, *responses):
    (tmp_path / "config.ini").write_text(CONFIG)
    tools = [CurrentDateTool(), ReadFileTool()]
    conversation = await make_conversation(write_script(*responses), tools)
    recording = RecordingBackend(conversation.resolved.backend)
    conversation.resolved.backend = recording
    return conversation, recording


async def commanding(make_conversation, script, tmp_path):
    """A conversation with the real ``run_command`` (the policy and the sandbox), its requests
    recorded."""
    tool = RunCommandTool(real_runner(tmp_path, tmp_path / "home"))
    conversation = await make_conversation(script, [tool])
    recording = RecordingBackend(conversation.resolved.backend)
    conversation.resolved.backend = recording
    return conversation, recording


def unanswered_events(sink):
    return [
        e.details
        for e in sink.events
        if e.kind == "response.verification" and e.details.status == "unanswered"
    ]


async def test_thank_you_after_a_read_is_asked_once_more_and_the_answer_follows(
    make_conversation, write_script, tmp_path, sink, events
):
    conversation, recording = await recorded_conversation(
        make_conversation, write_script, tmp_path,
        READ, {"text": "Thank you!"}, {"text": "The port is 8080."},
    )  # fmt: skip
    result = await conversation.run_turn("What port does config.ini set?")
    assert (result.outcome, result.text) == ("ok", "The port is 8080.")
    _first, after_read, again = recording.requests
    assert after_read.tools and not again.tools  # asked once, for the answer
    # A request of its own: the question, what was done and what it gave, and the request for
    # the answer; not the transcript of calls, which a small model reads past.
    system, asked = again.messages
    assert (system.role, system.content) == ("system", "You are a helpful assistant.")
    assert asked.role == "user"
    assert asked.content == (
        "Question: What port does config.ini set?\n\n"
        "This was already done for you:\n"
        'I called read_file with {"path": "config.ini"}; it gave:\n'
        "```\n1\t[server]\n2\thost = example.org\n3\tport = 8080\n[end of file: 3 lines]\n```\n"
        "Answer the question from these results, in plain text. Do not show commands."
    )
    # The nudge and the reply that answered nothing are not stored; the answer is.
    assert [e.kind for e in conversation.store][-2:] == ["toolOutput", "response"]
    assert conversation.store.entries[-1].value == "The port is 8080."
    (record,) = unanswered_events(sink)
    assert record.method == "readers" and record.calls == 1
    assert [(c.reader, c.claim) for c in record.claims] == [("answers", "Thank you!")]
    assert record.claims[0].reason == "it thanks and uses none of the results"
    kinds = sink.kinds()
    assert kinds.index("response.verification") < kinds.index("response")
    shown = "".join(e.text for e in events if isinstance(e, TextFragment))
    assert shown == "Thank you!\n\nThe port is 8080."


async def test_the_recorded_refusal_after_a_read_is_asked_once_more(
    make_conversation, write_script, tmp_path, sink, events
):
    conversation, _ = await recorded_conversation(
        make_conversation, write_script, tmp_path,
        READ, {"text": REFUSAL}, {"text": "It sets port 8080."},
    )  # fmt: skip
    result = await conversation.run_turn("What port does config.ini set?")
    assert result.text == "It sets port 8080."
    (record,) = unanswered_events(sink)
    assert record.claims[0].reason == "it refuses and uses none of the results"


async def test_the_recorded_date_is_correct_is_asked_once_more_with_the_date_quoted(
    make_conversation, write_script, tmp_path, sink, events
):
    conversation, recording = await recorded_conversation(
        make_conversation, write_script, tmp_path,
        DATE, {"text": CORRECT}, {"text": "2026-12-03"},
    )  # fmt: skip
    result = await conversation.run_turn("What is today's date?")
    assert result.text == "2026-12-03"  # what the 1.5B answered when asked once more
    nudge = recording.requests[-1].messages[-1].content
    assert "I called current_date; it gave:\n```\n20" in nudge  # the date itself


async def test_a_good_answer_is_not_asked_again(
    make_conversation, write_script, tmp_path, sink, events
):
    conversation, recording = await recorded_conversation(
        make_conversation, write_script, tmp_path, READ, {"text": "Thanks for asking: 8080."}
    )
    result = await conversation.run_turn("What port does config.ini set?")
    assert result.text == "Thanks for asking: 8080."
    assert len(recording.requests) == 2 and not unanswered_events(sink)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What is the capital of France?", "Paris"),
        # A path that is not there to read: nothing to remind the model of.
        ("How do I create the folder build/out.d?", "Use mkdir -p."),
    ],
)
async def test_an_answer_without_calls_is_not_asked_again(
    make_conversation, write_script, tmp_path, sink, events, question, answer
):
    conversation, recording = await recorded_conversation(
        make_conversation, write_script, tmp_path, {"text": answer}
    )
    result = await conversation.run_turn(question)
    assert result.text == answer and len(recording.requests) == 1
    assert not unanswered_events(sink)


async def test_thanks_without_results_is_not_asked_again(
    make_conversation, write_script, tmp_path, sink, events
):
    conversation, recording = await recorded_conversation(
        make_conversation, write_script, tmp_path, {"text": "Thank you!"}
    )
    result = await conversation.run_turn("Thanks, that was all.")
    assert result.text == "Thank you!" and len(recording.requests) == 1


async def test_it_is_asked_again_at_most_once_a_turn(
    make_conversation, write_script, tmp_path, sink, events
):
    conversation, recording = await recorded_conversation(
        make_conversation, write_script, tmp_path,
        READ, {"text": "Thank you!"}, {"text": REFUSAL}, {"text": "never asked for"},
    )  # fmt: skip
    result = await conversation.run_turn("What port does config.ini set?")
    assert (result.outcome, result.text) == ("ok", REFUSAL)  # the second reply stands
    assert len(recording.requests) == 3 and len(unanswered_events(sink)) == 1


async def test_silence_when_asked_again_leaves_the_first_reply_standing(
    make_conversation, write_script, tmp_path, sink, events
):
    conversation, _ = await recorded_conversation(
        make_conversation, write_script, tmp_path, READ, {"text": "Thank you!"}, {"text": ""}
    )
    result = await conversation.run_turn("What port does config.ini set?")
    assert (result.outcome, result.text) == ("ok", "Thank you!")


async def test_verification_off_asks_nothing_again(
    make_conversation, write_script, tmp_path, sink, events
):
    conversation, _ = await recorded_conversation(
        make_conversation, write_script, tmp_path, READ, {"text": "Thank you!"}
    )
    conversation.config = Config(tmp_path / "config.json", {"verification": {"mode": "off"}})
    result = await conversation.run_turn("What port does config.ini set?")
    assert result.text == "Thank you!" and not unanswered_events(sink)


async def test_thanks_for_the_persons_answer_is_not_asked_again(
    make_conversation, write_script, tmp_path, sink, events
):
    ask = {"tool_calls": [{"name": "ask", "arguments": {"question": "Which branch?"}}]}
    conversation, recording = await recorded_conversation(
        make_conversation, write_script, tmp_path, ask, {"text": "Thanks."}
    )
    conversation.tools.append(AnsweredQuestion())
    result = await conversation.run_turn("ask me")
    assert result.text == "Thanks." and len(recording.requests) == 2


class AnsweredQuestion:
    """``ask`` as the person answers it: the answer is theirs, not a result to report."""

    name = "ask"
    description = "Ask the person."
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    read_only = False

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        return "staging"


def test_the_quoted_results_are_bounded_and_each_distinct_one_is_quoted_once():
    from wisp.agent.asking_again import CUT_RESULT, quoted_results

    page = "\n".join(f"{n}\tline {n}" for n in range(1, 400))
    done = [("I called read_file; it gave", page) for _ in range(3)]
    done.append(("I called current_date; it gave", "2026-12-03T21:15:41Z (UTC)"))
    quoted = quoted_results(done, budget=1024)
    assert quoted.count("read_file; it gave:") == 1  # a looping model's three reads, once
    assert quoted.count(CUT_RESULT) == 1 and "current_date; it gave:\n```\n2026-12-03" in quoted
    assert len(quoted.encode()) < 1024 + 200


# Recorded: Qwen2.5-Coder-0.5B, which never read the file.
LOG_ANSWER = "The error in the app.log file is related to the `read_file` function."


async def test_an_answer_about_a_file_never_read_is_sent_back_to_read_it(
    make_conversation, write_script, tmp_path, sink, events
):
    (tmp_path / "app.log").write_text("ERROR database: connection refused\n")
    read_log = {"tool_calls": [{"name": "read_file", "arguments": {"path": "app.log"}}]}
    conversation, recording = await recorded_conversation(
        make_conversation, write_script, tmp_path,
        {"text": LOG_ANSWER}, read_log, {"text": "The database refused the connection."},
    )  # fmt: skip
    result = await conversation.run_turn("Look at app.log and explain the error in it.")
    assert result.text == "The database refused the connection."
    _, reminded, after_read = recording.requests
    assert reminded.tools  # tools offered, so it can read
    assert reminded.messages[-1].content == (
        "You answered without reading app.log. Read it with read_file first, then answer my "
        "question: Look at app.log and explain the error in it."
    )
    # Sent with that one request: the one after the read ends with the result.
    assert after_read.messages[-1].role == "tool"
    (record,) = unanswered_events(sink)
    assert record.claims[0].reason == "it answers about app.log without reading it"
    # Neither the reminder nor the unread answer is stored.
    assert [e.kind for e in conversation.store][-4:] == [
        "prompt",
        "toolCalls",
        "toolOutput",
        "response",
    ]


async def test_the_reminder_is_sent_once_a_turn(
    make_conversation, write_script, tmp_path, sink, events
):
    conversation, recording = await recorded_conversation(
        make_conversation, write_script, tmp_path,
        {"text": "It sets a port."}, {"text": "It sets port 8080, I think."},
    )  # fmt: skip
    result = await conversation.run_turn("What does config.ini set?")
    assert result.text == "It sets port 8080, I think." and len(recording.requests) == 2


# Recorded: Qwen2.5-Coder-1.5B, sent back to read the file it had answered about.
ANNOUNCED = "To answer your question, I need to read the file utils.py."
FUNCTIONS = "How many functions are defined in utils.py?"


async def test_a_reply_that_only_says_what_it_will_do_is_told_to_do_it(
    make_conversation, write_script, tmp_path, sink, events
):
    (tmp_path / "utils.py").write_text("def a():\n    pass\n\n\ndef b():\n    pass\n")
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "utils.py"}}]}
    conversation, recording = await recorded_conversation(
        make_conversation, write_script, tmp_path,
        {"text": "There are 3 functions defined in utils.py."}, {"text": ANNOUNCED}, read,
        {"text": "There are 2 functions: a and b."},
    )  # fmt: skip
    result = await conversation.run_turn(FUNCTIONS)
    assert result.text == "There are 2 functions: a and b."
    _, unread, urged, _ = recording.requests
    assert unread.messages[-1].content.startswith("You answered without reading utils.py.")
    assert urged.tools  # tools offered, so it can make the call it named
    assert urged.messages[-1].content == (
        "You said what you would do, but made no call. Make the call now, then answer my "
        "question: " + FUNCTIONS
    )
    reasons = [record.claims[0].reason for record in unanswered_events(sink)]
    assert reasons == [
        "it answers about utils.py without reading it",
        "it says what it will do, and makes no call",
    ]


async def test_a_model_that_only_says_what_it_will_do_is_told_once_a_turn(
    make_conversation, write_script, tmp_path, sink, events
):
    conversation, recording = await recorded_conversation(
        make_conversation, write_script, tmp_path,
        {"text": "Let me check the date."}, {"text": "I will check the date."},
    )  # fmt: skip
    result = await conversation.run_turn("Is it a weekday?")
    assert result.text == "I will check the date." and len(recording.requests) == 2


# Recorded: Qwen2.5-Coder-0.5B, which called nothing.
FIND_ANSWER = (
    "The file 'legacy cache' is located in the following folder: "
    "C:\\Users\\YourUsername\\AppData\\Local\\Temp"
)
FIND = "Which file in this folder contains the text 'legacy cache'? Search the files."


async def test_an_answer_about_this_computer_with_no_call_is_sent_back_to_look(
    make_conversation, write_script, tmp_path, sink, events
):
    (tmp_path / "server.py").write_text("# FIXME: drop the legacy cache\n")
    grep = {"tool_calls": [{"name": "run_command", "arguments": {"command": "grep -l legacy *"}}]}
    script = write_script({"text": FIND_ANSWER}, grep, {"text": "server.py holds it."})
    conversation, recording = await commanding(make_conversation, script, tmp_path)
    result = await conversation.run_turn(FIND)
    assert result.text == "server.py holds it."
    assert "server.py" in recording.requests[-1].messages[-1].content  # grep's real output
    reminded = recording.requests[1]
    assert [spec.name for spec in reminded.tools] == ["run_command"]
    assert reminded.messages[-1].content == (
        "You answered without looking: my question is about this computer, and only a tool "
        f"can tell. Call run_command first, then answer my question: {FIND}"
    )
    (record,) = unanswered_events(sink)
    assert record.claims[0].reason == "it answers about this computer without looking"


@pytest.mark.parametrize(
    "question",
    [
        "What is the capital of France? Answer in one word.",
        "Write a long story about a lighthouse keeper.",
        "How do I list files in a folder with ls?",  # about commands, not this computer
    ],
)
async def test_a_question_not_about_this_computer_is_answered_without_a_call(
    make_conversation, write_script, tmp_path, sink, events, question
):
    script = write_script({"text": "An answer."})
    conversation = await make_conversation(
        script, [RunCommandTool(real_runner(tmp_path, tmp_path / "home"))]
    )
    result = await conversation.run_turn(question)
    assert result.text == "An answer." and unanswered_events(sink) == []


# Recorded: Qwen2.5-Coder-1.5B, after its replace with no find was refused.
EXPLAINED = (
    "The error message indicates that the `replace` mode requires either a line number or an "
    "exact text to replace. Since no line number or exact text was provided, no changes were "
    "made to the file."
)
PORT = "In settings.json, change the port from 8080 to 9090."


async def test_an_answer_after_a_refused_edit_is_sent_back_to_make_it(
    make_conversation, write_script, tmp_path, sink, events
):
    settings = tmp_path / "settings.json"
    settings.write_text('{\n  "port": 8080\n}\n')
    edit = {"path": "settings.json", "mode": "replace", "content": "port: 9090"}
    fixed = {**edit, "find": '"port": 8080', "content": '"port": 9090'}
    script = write_script(
        {"tool_calls": [{"name": "edit_file", "arguments": edit}]},
        {"text": EXPLAINED},
        {"tool_calls": [{"name": "edit_file", "arguments": fixed}]},
        {"text": "The port is now 9090."},
    )
    conversation = await make_conversation(script, [EditFileTool()])
    recording = RecordingBackend(conversation.resolved.backend)
    conversation.resolved.backend = recording
    result = await conversation.run_turn(PORT)
    assert result.text == "The port is now 9090."
    assert settings.read_text() == '{\n  "port": 9090\n}\n'
    reminded = recording.requests[2]
    assert [spec.name for spec in reminded.tools] == ["edit_file"]
    assert reminded.messages[-1].content == (
        "Your edit_file call was refused, so nothing was changed:\n```\n"
        "error: replace needs line (a line number) or find (the exact text to replace); nothing "
        'was changed. settings.json reads:\n1\t{\n2\t  "port": 8080\n3\t}\n'
        "[end of file: 3 lines]\n"
        'To change "8080" to "9090" on line 2 ("  \\"port\\": 8080"), call again with find '
        '"8080" and content "9090".\n```\n'
        "What to correct is said there: make the call again, corrected, or say why you cannot. "
        "My question was: " + PORT
    )
    (record,) = unanswered_events(sink)
    assert record.claims[0].reason == "it answers after edit_file was refused, and changed nothing"


async def test_a_policy_refusal_is_reported_not_sent_back(
    make_conversation, write_script, tmp_path, sink, events
):
    sudo = {"tool_calls": [{"name": "run_command", "arguments": {"command": "sudo true"}}]}
    script = write_script(sudo, {"text": "The policy refused sudo; I did not run it."})
    tool = RunCommandTool(real_runner(tmp_path, tmp_path / "home"))
    conversation = await make_conversation(script, [tool])
    result = await conversation.run_turn("Run the command `sudo true` for me.")
    assert result.text == "The policy refused sudo; I did not run it."
    assert unanswered_events(sink) == []


async def test_a_refusal_is_quoted_when_the_tools_are_withdrawn(
    make_conversation, write_script, tmp_path, sink, events
):
    # Qwen2.5-Coder-0.5B, its sudo denied, asked again and then explained how to run sudo.
    sudo = {"tool_calls": [{"name": "run_command", "arguments": {"command": "sudo true"}}]}
    script = write_script(sudo, sudo, {"text": "It was refused."})
    conversation, recording = await commanding(make_conversation, script, tmp_path)
    await conversation.run_turn("Run the command `sudo true` for me.")
    asked = recording.requests[-1].messages[-1].content
    assert (
        "This was tried, and it failed:\nI tried `sudo true`; it failed:\n```\n"
        "error: command denied by policy: the command" in asked
    )  # not "already done for you", which the 0.5B took for done
    assert asked.endswith("Tell me in plain text what failed and why. Do not show commands.")


def command(line: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "run_command", "arguments": {"command": line}}]}


REPORTED = "The command failed: ls cannot access 'legacy': No such file or directory."


async def test_an_answer_after_its_own_command_failed_is_sent_back_to_try_another_way(
    make_conversation, write_script, tmp_path, sink, events
):
    (tmp_path / "server.py").write_text("# FIXME: drop the legacy cache\n")
    script = write_script(
        command("ls legacy cache"), {"text": REPORTED},
        command("grep -l 'legacy cache' *"), {"text": "server.py holds it."},
    )  # fmt: skip
    conversation, recording = await commanding(make_conversation, script, tmp_path)
    result = await conversation.run_turn(FIND)
    assert result.text == "server.py holds it."
    reminded = recording.requests[2]
    assert [spec.name for spec in reminded.tools] == ["run_command"]
    nudge = reminded.messages[-1].content
    assert nudge.startswith(
        "Your command `ls legacy cache` failed, so it did not answer my question:\n```\n"
        "exit status: 2\nstderr:\nls: cannot access 'legacy'"
    )  # ls's own words, from the real run
    assert nudge.endswith(
        "Find the answer another way (another command), or say why you cannot. My question "
        f"was: {FIND}"
    )
    (record,) = unanswered_events(sink)
    assert record.claims[0].reason == (
        "it answers after its command failed, and the question is still open"
    )


# Recorded: Qwen2.5-Coder-1.5B, after `python -m pip show pyproject.toml` failed.
PIP_REPORTED = "The command failed because the package `pyproject.toml` was not found."
VERSION = "What version is set in pyproject.toml?"


async def test_the_reminder_names_the_other_tools_and_failures_alone_are_asked_what_failed(
    make_conversation, write_script, tmp_path, sink, events
):
    # The 1.5B ran the same failed command again after the reminder, and then, asked for the
    # answer from its two failures, invented "0.1.0"; asked what failed, it said so. Told of
    # read_file, it read the file.
    (tmp_path / "pyproject.toml").write_text('[project]\nversion = "3.7.2"\n')
    failing = command("cat pyproject.cfg")
    script = write_script(failing, {"text": PIP_REPORTED}, failing, {"text": "I cannot tell."})
    tool = RunCommandTool(real_runner(tmp_path, tmp_path / "home"))
    conversation = await make_conversation(script, [tool, ReadFileTool()])
    recording = RecordingBackend(conversation.resolved.backend)
    conversation.resolved.backend = recording
    result = await conversation.run_turn(VERSION)
    assert result.text == "I cannot tell."
    nudge = recording.requests[2].messages[-1].content
    assert "Find the answer another way (another command, or another tool: read_file)" in nudge
    asked = recording.requests[-1].messages[-1].content
    assert "This was tried, and it failed:\nI tried `cat pyproject.cfg`; it failed:" in asked
    assert asked.endswith("Tell me in plain text what failed and why. Do not show commands.")


@pytest.mark.parametrize(
    ("question", "line"),
    [
        # The person named the command: its failure is the answer.
        ("Run `ls legacy` and tell me what it says.", "ls legacy"),
        # A request for an action, not for a value: the failure is what they must hear.
        ("Build the project with make.", "ls legacy"),
        # grep finding nothing exits 1 and says nothing: that may be the answer.
        ("Which lines of server.py hold a TODO?", "grep -n TODO server.py"),
    ],
    ids=["named", "action", "silent"],
)
async def test_a_failure_that_may_be_the_answer_is_not_sent_back(
    make_conversation, write_script, tmp_path, sink, events, question, line
):
    (tmp_path / "server.py").write_text("print('hello')\n")
    script = write_script(command(line), {"text": "It failed."})
    conversation = await make_conversation(
        script, [RunCommandTool(real_runner(tmp_path, tmp_path / "home"))]
    )
    result = await conversation.run_turn(question)
    assert result.text == "It failed." and unanswered_events(sink) == []
