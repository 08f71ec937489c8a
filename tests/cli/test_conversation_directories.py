"""Two conversations in one process, each in its own folder (as ``wisp acp`` opens one per
session): each one's commands run there and, under the real sandbox, may write only there and
in ``/tmp``, whatever the process's own directory."""

from __future__ import annotations

import asyncio
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hang import HANG
from wisp.chat.loop import ChatLoop
from wisp.cli.building.runner import CommandOptions
from wisp.cli.chat.session import ChatSession, ConversationOptions
from wisp.cli.context import Context
from wisp.home import Home
from wisp.sandbox.plan import probe_uncached


@pytest.fixture
def folders() -> Iterator[tuple[Path, Path]]:
    """Two project folders outside every writable root but their own: not under /tmp (always
    writable), so only the sandbox can keep one conversation out of the other's."""
    made = [Path(tempfile.mkdtemp(prefix="wisp-test-", dir="/var/tmp")) for _ in range(2)]
    yield made[0], made[1]
    for folder in made:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def context(wisp_home: Path, tmp_path: Path) -> Context:
    # A HOME of its own, no TMPDIR: the writable roots are the folder, /tmp and ~/.cache.
    environ = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(tmp_path / "user")}
    return Context(Home(wisp_home), environ, stdout=io.StringIO(), stderr=io.StringIO())


def options(folder: Path, script: Path) -> ConversationOptions:
    return ConversationOptions(
        entry_point="chat",
        model=f"script:{script}",
        commands=CommandOptions(yes=True),
        working_directory=folder,
    )


def script_writing(tmp_path: Path, name: str, other: Path) -> Path:
    """A model that runs one command: a relative write (lands where the command runs), one into
    /tmp, and last (so that its failure is the command's) one into the other's folder."""
    line = (
        f"echo {name} > own.txt; echo {name} > {tmp_path}/tmp-{name}.txt; "
        f"echo {name} > {other}/from-{name}.txt"
    )
    call = {"name": "run_command", "arguments": {"command": line}}
    script = tmp_path / f"{name}.json"
    script.write_text(json.dumps({"responses": [{"tool_calls": [call]}, {"text": "done"}]}))
    return script


async def test_two_conversations_are_each_confined_to_their_own_folder(
    folders: tuple[Path, Path],
    context: Context,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    audit_lines: Any,
) -> None:
    if probe_uncached().landlock_abi is None:
        pytest.skip("this kernel has no Landlock")
    a, b = folders
    monkeypatch.chdir(tmp_path)  # the process's own directory is neither
    script_a = script_writing(tmp_path, "a", b)
    script_b = script_writing(tmp_path, "b", a)
    async with (
        ChatSession.open(context, options(a, script_a)) as first,
        ChatSession.open(context, options(b, script_b)) as second,
    ):
        assert first.conversation.working_directory == a
        assert second.conversation.working_directory == b
        turns = asyncio.gather(
            first.conversation.run_turn("write"),
            second.conversation.run_turn("write"),
        )
        await asyncio.wait_for(turns, HANG)
        # The person's own `!` commands too: here, and not in the other's folder.
        typed_a = await first.run_typed(f"echo typed > typed.txt; echo typed > {b}/typed.txt")
        typed_b = await second.run_typed(f"echo typed > typed.txt; echo typed > {a}/typed.txt")
    assert (a / "own.txt").read_text() == "a\n"
    assert (b / "own.txt").read_text() == "b\n"
    assert not (b / "from-a.txt").exists()
    assert not (a / "from-b.txt").exists()
    assert (tmp_path / "tmp-a.txt").read_text() == "a\n"
    assert (tmp_path / "tmp-b.txt").read_text() == "b\n"
    assert [path.name for path in sorted(a.iterdir())] == ["own.txt", "typed.txt"]
    assert [path.name for path in sorted(b.iterdir())] == ["own.txt", "typed.txt"]
    # Refused by the sandbox (read-only mounts, or Landlock's "Permission denied").
    assert f"cannot create {b}/typed.txt" in typed_a.output
    assert f"cannot create {a}/typed.txt" in typed_b.output
    # Each session's audit: its commands ran confined in its folder; the sandbox refused the
    # write into the other's.
    events = audit_lines()
    for session in (first.recorder.session, second.recorder.session):
        mine = [e for e in events if e.get("session") == session]
        decisions = [e["details"] for e in mine if e["kind"] == "policy.decision"]
        outcomes = [e["details"] for e in mine if e["kind"] == "command.outcome"]
        [directory] = {d["workingDirectory"] for d in decisions}
        other = str(b) if directory == str(a) else str(a)
        assert len(decisions) == 2 and all(d["sandbox"] for d in decisions)
        assert [d["sandboxRefusal"] for d in outcomes] == ["refused", "refused"]
        for outcome in outcomes:
            assert [path.startswith(other) for path in outcome["sandboxPaths"]] == [True]


async def test_the_status_line_reads_the_conversations_folder(
    folders: tuple[Path, Path], context: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = folders
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "reply.json"
    script.write_text(json.dumps({"responses": [{"text": "hi"}]}))
    async with ChatSession.open(context, options(a, script)) as session:
        loop = ChatLoop(session, lambda line: None, version="test")
        assert loop.status_reader.directory == a
        assert session.runner.writable.contains(a / "x")
        assert not session.runner.writable.contains(b / "x")
