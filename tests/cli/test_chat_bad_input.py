"""Bad input never kills the chat (docs/sandbox.md, "Command lines"): `wisp chat --json` and
`--plain` run for real as subprocesses, fed a NUL, bytes that are not UTF-8, and lines too long to
run; each is refused with a note and the chat goes on to answer the next message and end with
`exit`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_chat_json import Front
from tests.hang import HANG
from wisp import protocol as p
from wisp.tools.command_line import MAX_LINE_BYTES

NUL_REFUSED = "the line holds a NUL character (\\0), which no command line can carry"
NUL_PATH = "holds a NUL character (\\0), which no file name can carry"
LONG_LINE = "echo " + "a" * (1 << 20)  # 1 MiB: past what the kernel lets `sh -c` take
LONG_REFUSED = (
    f"the line is {len(LONG_LINE):,} bytes long; wisp runs lines of at most "
    f"{MAX_LINE_BYTES:,} bytes"
)
REPLY = {"text": "still here"}


@pytest.fixture
def script(tmp_path: Path):
    def write(*responses: dict) -> Path:
        path = tmp_path / "script.json"
        path.write_text(json.dumps({"responses": list(responses)}))
        return path

    return write


@pytest.fixture
def front(wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path):
    async def start(*args: str) -> Front:
        return await Front.start(wisp_script, wisp_env, tmp_path, *args)

    return start


async def goes_on(chat: Front) -> None:
    """A later message is still answered, and the chat ends with `exit`."""
    await chat.until(p.Status)
    await chat.send(p.Message(text="are you there?"))
    end = await chat.until(p.Turn, phase="end")
    assert end.outcome == "ok"
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0
    assert isinstance(chat.lines[-1], p.Exit)
    reply = "".join(line.text for line in chat.lines if isinstance(line, p.Delta))
    assert reply.endswith("still here")


def event_texts(chat: Front) -> list[str]:
    return [line.text for line in chat.lines if isinstance(line, p.Event) and line.text]


def tool_results(chat: Front) -> list[str]:
    return [
        line.details["output"]
        for line in chat.lines
        if isinstance(line, p.Event) and line.kind == "tool.result"
    ]


async def test_a_typed_command_with_a_nul_is_refused_and_the_chat_goes_on(front, script) -> None:
    chat = await front("-m", f"script:{script(REPLY)}")
    await chat.until(p.Status)
    await chat.send('{"type":"message","text":"!echo a\\u0000b"}')
    await goes_on(chat)
    assert f"  · blocked by policy: {NUL_REFUSED}" in event_texts(chat)


async def test_the_models_command_with_a_nul_is_refused_as_its_result(front, script) -> None:
    call = {"name": "run_command", "arguments": {"command": "echo a\u0000b"}}
    chat = await front("--yes", "-m", f"script:{script({'tool_calls': [call]}, REPLY, REPLY)}")
    await chat.until(p.Status)
    await chat.send(p.Message(text="run it"))
    await goes_on(chat)
    assert tool_results(chat)[0] == f"error: command refused: {NUL_REFUSED}"


@pytest.mark.parametrize(
    "call",
    [
        {"name": "read_file", "arguments": {"path": "notes\u0000.txt"}},
        {"name": "edit_file", "arguments": {"path": "a\u0000b", "mode": "write", "content": "x"}},
        {"name": "run_command", "arguments": {"command": "ls", "workingDirectory": "/tmp\u0000"}},
        {"name": "system_info", "arguments": {"topic": "folderSizes", "path": "/tmp\u0000"}},
    ],
    ids=["read_file", "edit_file", "run_command's workingDirectory", "system_info"],
)
async def test_a_path_with_a_nul_is_refused_as_the_tools_result(front, script, call) -> None:
    chat = await front("--yes", "-m", f"script:{script({'tool_calls': [call]}, REPLY, REPLY)}")
    await chat.until(p.Status)
    await chat.send(p.Message(text="go"))
    await goes_on(chat)
    [result] = tool_results(chat)[:1]
    assert result.startswith("error: ") and NUL_PATH in result


async def test_a_typed_line_too_long_to_run_is_refused_naming_the_limit(front, script) -> None:
    chat = await front("-m", f"script:{script(REPLY)}")
    await chat.until(p.Status)
    await chat.send(p.Message(text="!" + LONG_LINE))
    await goes_on(chat)
    assert f"  · blocked by policy: {LONG_REFUSED}" in event_texts(chat)


async def test_the_models_line_too_long_is_refused_and_an_interrupt_then_stops_the_turn(
    front, script
) -> None:
    # The refusal comes before the policy parses the line, so the chat reads the interrupt
    # while the next reply streams, and the turn ends stopped.
    call = {"name": "run_command", "arguments": {"command": LONG_LINE}}
    slow = {"text": "a slow reply " * 200, "delay_ms": 50}
    chat = await front("--yes", "-m", f"script:{script({'tool_calls': [call]}, slow, REPLY)}")
    await chat.until(p.Status)
    await chat.send(p.Message(text="run it"))
    while not tool_results(chat):
        await chat.next()
    assert tool_results(chat)[0] == f"error: command refused: {LONG_REFUSED}"
    await chat.until(p.Delta)
    await chat.send(p.Interrupt())
    assert (await chat.until(p.Turn, phase="end")).outcome == "stopped"
    await goes_on(chat)


def plain(wisp_script: Path, env: dict[str, str], cwd: Path, model: Path, stdin: bytes):
    return subprocess.run(
        [str(wisp_script), "chat", "--plain", "-m", f"script:{model}"],
        env=env, cwd=cwd, input=stdin, capture_output=True, timeout=HANG,
    )  # fmt: skip


def test_plain_chat_refuses_a_nul_and_goes_on(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, script
) -> None:
    result = plain(wisp_script, wisp_env, tmp_path, script(REPLY), b"!echo a\0b\nhello\n")
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert NUL_REFUSED in stderr
    assert "still here" in result.stdout.decode()


def test_plain_chat_reads_bytes_that_are_not_utf8_from_a_file(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, script
) -> None:
    lines = tmp_path / "lines.txt"
    lines.write_bytes(b"caf\xe9 \xff\n")
    with lines.open("rb") as stdin:
        result = subprocess.run(
            [str(wisp_script), "chat", "--plain", "-m", f"script:{script(REPLY)}"],
            env=wisp_env, cwd=tmp_path, stdin=stdin, capture_output=True, timeout=HANG,
        )  # fmt: skip
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert "still here" in result.stdout.decode()
