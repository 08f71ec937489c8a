"""Fixtures for running a tool as the agent would: real folders, a real store, a recorded list.

``Conversation`` is a plain value with the fields of ``ConversationView``; ``context`` hands a
tool the working directory, a 4 KiB budget and a ``record`` that keeps every Details it gets.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from wisp.agent.types import ToolContext
from wisp.config import Config
from wisp.store import ConversationStore
from wisp.tools import beneath

CALL_ID = "3f2a9c1e"


@dataclass
class Conversation:
    """What a tool may read of its conversation (``ConversationView``), as a value."""

    home: Path
    config: Config
    store: ConversationStore = field(default_factory=ConversationStore)
    session: str = "5fd0cf21a0b1c2d3"
    turn: int = 3
    model: str = "script:/tmp/replies.json"
    tool_names: list[str] = field(default_factory=lambda: ["current_date", "read_file"])
    audit_file: Path | None = None
    facts: Any = None
    """A ``ConversationFacts``; None: the conversation keeps no facts."""
    side_calls: Any = None
    """A ``SideCalls``; None: no model is attached (memory's summarise and condense fail
    ``off``)."""
    summary: Any = None
    """A ``RunningSummary``; None: the conversation keeps none."""


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """wisp's working directory."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """WISP_HOME, outside the working directory."""
    folder = tmp_path / "wisp-home"
    folder.mkdir()
    return folder


@pytest.fixture
def conversation(home: Path) -> Conversation:
    return Conversation(home=home, config=Config(home / "config.json", {}))


@pytest.fixture
def recorded() -> list[Any]:
    """Every Details a tool recorded, in order."""
    return []


@pytest.fixture
def context(workdir: Path, conversation: Conversation, recorded: list[Any]) -> ToolContext:
    def record(details: Any) -> Any:
        recorded.append(details)
        return details

    return ToolContext(
        working_directory=workdir,
        call_id=CALL_ID,
        output_budget=4096,
        record=record,
        conversation=conversation,
    )


@pytest.fixture
def fifo(workdir: Path) -> Path:
    """``notes.txt`` made a FIFO, as a confined command can make it."""
    path = workdir / "notes.txt"
    os.mkfifo(path)
    return path


@contextlib.contextmanager
def reader_let_go(fifo: Path) -> Iterator[None]:
    """On the way out, a reader still blocked on ``fifo`` (the code under test, when it waits for
    a writer) is let go: a writer opens it and closes it at once, so the reader's open returns
    and its read ends. Inside the test, before its event loop closes and joins the worker."""
    try:
        yield
    finally:
        with contextlib.suppress(OSError):  # ENXIO: no reader is waiting, nothing to let go
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


@pytest.fixture
def memory_path(tmp_path: Path) -> Iterator[Path]:
    """A folder in memory (``/dev/shm``) where there is one, else ``tmp_path``: for the races
    that edit a file ten thousand times, where each edit's ``fsync`` on a disk costs a
    millisecond or more."""
    if not os.path.isdir("/dev/shm"):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="wisp-race-", dir="/dev/shm"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


@pytest.fixture(params=["openat2", "walk"])
def resolver(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each path beneath a folder opened by ``openat2``, or by the walk by components that stands
    in where the kernel has none (``ENOSYS``) or a filter refuses it (``EPERM``)."""
    if request.param == "walk":
        monkeypatch.setattr(beneath, "_openat2", lambda *_: None)
    return request.param
