"""A file a confined command turned into something else, met by the model's file tools in a real
`wisp chat --json` (docs/sandbox.md, "Threat model"): the tool says so at once, the turn ends,
and wisp exits when its stdin closes; no worker thread is left blocked to keep it alive."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from tests.cli.test_chat_json import Front
from wisp import protocol as p


async def tool_result(chat: Front) -> p.Event:
    while not (isinstance(line := await chat.next(), p.Event) and line.kind == "tool.result"):
        pass
    return line


async def test_edit_file_on_a_fifo_fails_at_once_and_wisp_exits_when_stdin_closes(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    os.mkfifo(notes)  # as a command in the same folder can, between two of the model's calls
    append = {"name": "edit_file", "arguments": {"path": "notes.txt", "mode": "append",
                                                 "content": "one more line\n"}}  # fmt: skip
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"tool_calls": [append]}, {"text": "ok"}]}))
    chat = await Front.start(wisp_script, wisp_env, tmp_path, "-m", f"script:{script}")
    try:
        await chat.until(p.Status)
        await chat.send(p.Message(text="note it"))
        result = await tool_result(chat)  # every wait in Front is bounded by HANG
        end = await chat.until(p.Turn, phase="end")
        assert chat.process.stdin is not None
        chat.process.stdin.close()
        assert await chat.finish() == 0
    finally:
        if chat.process.returncode is None:  # it hung: let the reader go, then end wisp
            with contextlib.suppress(OSError):
                os.close(os.open(notes, os.O_WRONLY | os.O_NONBLOCK))
            chat.process.kill()
            await chat.process.wait()
    assert isinstance(result.output, p.EventOutput)
    assert result.output.text == (
        f"error: cannot edit {notes}: it is a FIFO, not a regular file; edit_file edits files only"
    )
    assert end.outcome == "ok"
    assert isinstance(chat.lines[-1], p.Exit)
