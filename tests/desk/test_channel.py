"""The desk's one channel (docs/design.md, "A request that waits on a person"): an approval and a
question go through the same functions, each in files of its own kind, with the same rules: 0600
by rename, answers hard-linked once and bound by SHA-256, the stale sweep recording the kind's
own event."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from wisp.audit import AuditLog, MemorySink
from wisp.desk.answering import deliver
from wisp.desk.approval import APPROVAL, PendingRequest
from wisp.desk.channel import (
    ChannelError,
    answer_path,
    file_request,
    list_waiting,
    pending_dir,
    read_answer,
    read_request,
    request_path,
    withdraw,
    write_answer,
)
from wisp.desk.question import QUESTION, PendingQuestion


def approval(pid: int, request_id: str = "a1b2c3d4") -> PendingRequest:
    return PendingRequest(
        id=request_id, command="git push", line="git push", pattern="git push *",
        directory="/r", level="moderate", thread="git", pid=pid, created=1,
    )  # fmt: skip


def question(pid: int, request_id: str = "a1b2c3d4") -> PendingQuestion:
    return PendingQuestion(
        id=request_id, question="Which?", options=["red", "blue"], thread="git", pid=pid, created=1
    )


KINDS = [(APPROVAL, approval, "once"), (QUESTION, question, "blue")]
"""Each kind, a record of it, and an answer that fits."""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "wisp-home"


def gone_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


@pytest.mark.parametrize(("kind", "record_of", "given"), KINDS, ids=["approval", "question"])
def test_each_kind_is_filed_read_answered_once_and_withdrawn_by_the_same_functions(
    home: Path, kind: Any, record_of: Any, given: str
) -> None:
    filed = record_of(os.getpid())
    path = file_request(home, kind, filed)

    assert path == request_path(home, kind, filed.id)
    assert path.name == f"{filed.id}.{kind.noun}.json"
    assert stat.S_IMODE(pending_dir(home).stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_request(home, kind, filed.id) == filed
    assert list_waiting(home, kind) == [filed]

    written = write_answer(home, kind, filed, given, "cli")
    with pytest.raises(ChannelError, match="answered already"):
        write_answer(home, kind, filed, given, "tui")
    assert read_answer(home, kind, filed.id) == written
    assert written.binding == filed.binding
    on_disk = json.loads(answer_path(home, kind, filed.id).read_text())
    assert (on_disk["id"], on_disk["via"], on_disk["binding"]) == (filed.id, "cli", filed.binding)

    withdraw(home, kind, filed.id)
    assert list(pending_dir(home).iterdir()) == []
    with pytest.raises(ChannelError, match="no longer waits"):
        write_answer(home, kind, filed, given, "cli")


def test_neither_kind_reads_the_others_files(home: Path) -> None:
    file_request(home, APPROVAL, approval(os.getpid(), "aaaa0001"))
    file_request(home, QUESTION, question(os.getpid(), "bbbb0002"))

    assert [r.id for r in list_waiting(home, APPROVAL)] == ["aaaa0001"]
    assert [q.id for q in list_waiting(home, QUESTION)] == ["bbbb0002"]
    assert read_request(home, APPROVAL, "bbbb0002") is None
    assert read_request(home, QUESTION, "aaaa0001") is None


def test_the_sweep_records_each_kinds_own_stale_event(home: Path) -> None:
    sink = MemorySink()
    record = AuditLog(sink).record
    pid = gone_pid()
    file_request(home, APPROVAL, approval(pid))
    file_request(home, QUESTION, question(pid, "c1c2c3c4"))

    assert list_waiting(home, APPROVAL, record) == []
    assert list_waiting(home, QUESTION, record) == []

    assert sink.kinds() == ["approval.settled", "inquiry.settled"]
    swept, asked = (event.details for event in sink.events)
    assert (swept.request, swept.outcome, swept.banner) == ("a1b2c3d4", "stale", "skipped")
    assert (asked.inquiry, asked.outcome) == ("c1c2c3c4", "stale")
    assert f"pid {pid}" in swept.reason and f"pid {pid}" in asked.reason
    assert list(pending_dir(home).iterdir()) == []


@pytest.mark.parametrize(("kind", "record_of", "given"), KINDS, ids=["approval", "question"])
def test_the_answering_path_records_written_and_refused_for_either_kind(
    home: Path, kind: Any, record_of: Any, given: str
) -> None:
    sink = MemorySink()
    record = AuditLog(sink).record
    filed = record_of(os.getpid())
    file_request(home, kind, filed)

    deliver(home, kind, filed, given, asked=filed.id, via="cli", record=record)
    with pytest.raises(ChannelError, match="answered already"):
        deliver(home, kind, filed, given, asked=filed.id, via="cli", record=record)
    with pytest.raises(ChannelError, match=f"no {kind.noun} 0badf00d is waiting"):
        deliver(home, kind, None, given, asked="0badf00d", via="cli", record=record)

    answered = f"{kind.source}.answered"
    assert sink.kinds() == [answered] * 3
    deliveries = [event.details.delivery for event in sink.events]
    assert deliveries == ["written", "refused", "refused"]
