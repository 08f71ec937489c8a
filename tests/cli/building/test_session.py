"""The one session builder every face uses: a face says its entry point, folder, switches and
who approves and answers; the conversation gets the config's settings and its start is
recorded the same way whoever opened it."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

from wisp.agent.recorder import Recorder
from wisp.audit import AuditLog, MemorySink
from wisp.audit.kinds import ModelResolved, SessionStart
from wisp.cli.building.runner import CommandOptions
from wisp.cli.building.session import NamedModel, SessionBuilder, new_store, rebuilt
from wisp.cli.context import Context
from wisp.config import Config
from wisp.home import Home
from wisp.policy.approvers import NobodyApprover
from wisp.policy.asking import NobodyAsker


def builder(tmp_path: Path, settings: dict[str, Any]) -> SessionBuilder:
    home = Home(tmp_path / "wisp-home")
    home.ensure()
    # The cache, as every variable but PATH, is the test's own (docs/sandbox.md, "The cache").
    environ = {"PATH": os.environ.get("PATH", os.defpath), "XDG_CACHE_HOME": str(tmp_path)}
    context = Context(home, environ, io.StringIO(), io.StringIO())
    return SessionBuilder(
        context,
        Config(tmp_path / "config.json", settings),
        entry_point="acp",
        working_directory=tmp_path,
        commands=CommandOptions(yes=True),
    )


async def test_a_conversation_carries_the_config_and_the_faces_folder(tmp_path: Path) -> None:
    script = tmp_path / "reply.json"
    script.write_text(json.dumps({"responses": [{"text": "hi"}]}))
    settings = {"agent": {"maxSteps": 7}, "audit": {"enabled": False}}
    made = builder(tmp_path, settings)
    sink = MemorySink()
    recorder = Recorder(AuditLog(sink, session="5e55105e5e55105e"))
    choice = made.choice(recorder.record, NamedModel(f"script:{script}", "acp"))
    model = await choice.resolve(f"script:{script}")
    runner = made.runner(recorder.record, NobodyApprover(), lambda note: None)
    tools = made.tools(runner, NobodyAsker())
    start = made.start(model.selection, [tool.name for tool in tools])
    recorder.record(start)

    conversation = made.conversation(recorder, model, tools, runner, turn=3)

    assert conversation.working_directory == tmp_path and runner.writable.contains(tmp_path / "x")
    assert conversation.max_steps == 7 and conversation.audit_file is None
    assert conversation.turn == 3 and conversation.tool_names == start.tools
    assert [entry.kind for entry in conversation.store] == ["instructions"]
    assert isinstance(sink.events[0].details, SessionStart)
    assert (start.entry_point, start.auto_approve, start.unsafe) == ("acp", True, False)
    assert isinstance(sink.events[1].details, ModelResolved)
    again = rebuilt(conversation, new_store(conversation.instructions))
    assert (again.turn, again.max_steps, again.tools) == (3, 7, conversation.tools)
    await choice.aclose()
