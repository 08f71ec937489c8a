"""The audited layer and run_command's own budget: what a marker names is kept, once.

run_command fits stdout and stderr to its share of B itself, so its result never exceeds B;
the whole output must still be kept under the call's id, or the marker's id names nothing.
Real commands, the real sandbox, real files under a temporary WISP_HOME.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.agent.conftest import real_runner
from wisp.agent.audited import AuditedTools
from wisp.agent.loop import Conversation
from wisp.agent.types import ToolCall
from wisp.audit import MemorySink
from wisp.tools.memory import MemoryTool
from wisp.tools.run_command import RunCommandTool

BUDGET = 4096
SEQ = "".join(f"{n}\n" for n in range(1, 200_001))  # `seq 1 200000`: ~1.3 MiB, past B
HELD = re.compile(r"\[held back: lines ([\d,]+)–([\d,]+) \(.*?\) of output (\w+);")


@pytest.fixture
async def conversation(make_conversation, write_script) -> Conversation:
    return await make_conversation(write_script({"text": "unused"}))


@pytest.fixture
def audited(conversation: Conversation, tmp_path: Path) -> AuditedTools:
    """run_command over a real runner (no approval asked) and memory, as a conversation has."""
    runner = real_runner(tmp_path, conversation.home)
    tools = [RunCommandTool(runner), MemoryTool()]
    return AuditedTools(tools, conversation.recorder, conversation.home / "output", memory=True)


async def call(
    audited: AuditedTools, conversation: Conversation, call_id: str, name: str, **arguments
) -> str:
    record = await audited.run(
        ToolCall(id=call_id, name=name, arguments=arguments),
        conversation=conversation,
        working_directory=conversation.working_directory,
        budget=BUDGET,
    )
    return record.output


async def test_a_command_output_past_its_share_is_kept_whole_under_the_id_its_marker_names(
    audited: AuditedTools, conversation: Conversation, sink: MemorySink
) -> None:
    output = await call(audited, conversation, "3f2a9c1e", "run_command", command="seq 1 200000")
    assert output.startswith("exit status: 0\nstdout:\n1\n2\n")
    held = HELD.search(output)
    assert held is not None, output
    first, last, output_id = int(held[1].replace(",", "")), held[2], held[3]
    assert output_id == "3f2a9c1e"
    kept_file = conversation.home / "output" / conversation.session / output_id
    assert kept_file.read_text() == SEQ
    assert oct(kept_file.stat().st_mode & 0o777) == "0o600"
    kept = [event for event in sink.events if event.kind == "output.kept"]
    assert [event.call for event in kept] == [output_id]  # once, under the call's id
    details = kept[0].details
    assert (details.tool, details.bytes, details.total_bytes) == ("run_command", len(SEQ), len(SEQ))
    assert (details.lines, details.cut) == (200_001, False)  # as the audited layer counts them
    # The held-back lines are the kept file's lines: memory pages them from the first one.
    request = f"recall output {output_id} from line {first}"
    recalled = await call(audited, conversation, "0a0b0c0d", "memory", request=request)
    lines = recalled.splitlines()
    assert lines[0] == f"output {output_id}: tool output, kept whole in the output store"
    assert lines[1:4] == [str(first), str(first + 1), str(first + 2)]
    assert int(last.replace(",", "")) > first


async def test_a_command_output_within_its_share_is_not_kept(
    audited: AuditedTools, conversation: Conversation, sink: MemorySink
) -> None:
    output = await call(audited, conversation, "5b6c7d8e", "run_command", command="seq 1 10")
    assert output == "exit status: 0\nstdout:\n" + SEQ[: SEQ.index("11\n")].rstrip("\n")
    assert "output.kept" not in sink.kinds()
    assert not (conversation.home / "output" / conversation.session / "5b6c7d8e").exists()


async def test_stdout_and_stderr_are_kept_together_once_stdout_first(
    audited: AuditedTools, conversation: Conversation, sink: MemorySink
) -> None:
    line = "seq 1 50000; seq 100001 103000 >&2"
    output = await call(audited, conversation, "9e8d7c6b", "run_command", command=line)
    assert [held[3] for held in HELD.finditer(output)] == ["9e8d7c6b", "9e8d7c6b"]
    kept_file = conversation.home / "output" / conversation.session / "9e8d7c6b"
    stdout = "".join(f"{n}\n" for n in range(1, 50_001))
    stderr = "".join(f"{n}\n" for n in range(100_001, 103_001))
    assert kept_file.read_text() == stdout + stderr
    assert [event.call for event in sink.events if event.kind == "output.kept"] == ["9e8d7c6b"]
    # Each marker's lines are the kept file's (stderr's come after stdout's 50,000): the line
    # shown just before a marker and the one just after it border the lines it names.
    kept = kept_file.read_text().splitlines()
    shown = output.splitlines()
    for held in HELD.finditer(output):
        first, last = (int(number.replace(",", "")) for number in held.group(1, 2))
        at = next(i for i, text in enumerate(shown) if held.group(0) in text)
        assert (shown[at - 1], shown[at + 1]) == (kept[first - 2], kept[last])


async def test_an_output_that_cannot_be_kept_is_named_by_no_marker(
    audited: AuditedTools, conversation: Conversation, sink: MemorySink
) -> None:
    # A file where the output folder should be: the output cannot be kept; the command's
    # result still reaches the model and the log, and its marker names no output.
    conversation.home.mkdir(parents=True, exist_ok=True)
    (conversation.home / "output").write_text("not a folder")
    output = await call(audited, conversation, "1a2b3c4d", "run_command", command="seq 1 200000")
    assert "[held back: lines " in output and "of output" not in output
    assert "output.kept" not in sink.kinds()
    error = next(event for event in sink.events if event.kind == "error")
    assert (error.call, error.details.context) == ("1a2b3c4d", "keeping an output")
    assert sink.kinds()[-2:] == ["command.outcome", "tool.result"]
