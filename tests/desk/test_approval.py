"""Approvals out of band (docs/policy.md, "Approvals out of band"): the OutOfBandApprover filing
requests under WISP_HOME/pending, the answer file racing the client's dialog, and the sweep."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from msgspec import UNSET

from tests.hang import HANG
from wisp.audit import AuditLog, MemorySink
from wisp.config.sections import Notify
from wisp.desk.approval import APPROVAL, OutOfBandApprover, PendingRequest
from wisp.desk.channel import (
    ChannelError,
    answer_path,
    list_waiting,
    pending_dir,
    read_request,
    request_path,
    write_answer,
)
from wisp.notify.notice import Notice
from wisp.notify.notifier import Notifier
from wisp.notify.routes import HostRoute
from wisp.policy.approval_cache import SessionApprovals
from wisp.policy.approvals import APPROVALS_FILE, ApprovalStore
from wisp.policy.approvers import ApprovalRefused
from wisp.policy.gate import ApprovalGate, GateResult
from wisp.policy.types import Answer, ApprovalQuestion, Assessment, SimpleCommand

PROJECT = Path("/work/app")
PUSH = SimpleCommand("git push", "git", "push", "git push *")
PUSH_VERDICT = Assessment(level="moderate", reasons=["pushes to a remote"])


class Setup:
    """An approver and a gate over a temp WISP_HOME, the thread's log in memory."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.sink = MemorySink()
        self.audit = AuditLog(self.sink)
        self.shown: list[Notice] = []
        """What the notifier's host was given to show."""
        settings = Notify(enabled=False, routes=["host"], per_minute=5, per_turn=2)
        self.notifier = Notifier(
            {"host": HostRoute(self.shown.append, lambda: True)},
            record=self.record,
            settings=lambda: settings,
        )

    def record(self, details: Any) -> str:
        return self.audit.record(details).id

    def approver(self, **options: Any) -> OutOfBandApprover:
        approver = OutOfBandApprover(
            self.home, record=self.record, thread="git", client="claude-code", **options
        )
        approver.notify = self.notifier.post
        return approver

    def gate(self, approver: OutOfBandApprover, timeout: float = 600) -> ApprovalGate:
        return ApprovalGate(
            "moderate",
            approver,
            ApprovalStore(self.home / APPROVALS_FILE),
            timeout_seconds=timeout,
            record=self.record,
            session=SessionApprovals(),
        )

    def details(self, kind: str) -> list[Any]:
        return [event.details for event in self.sink.events if event.kind == kind]

    def kinds(self) -> list[str]:
        return self.sink.kinds()


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    home = tmp_path / "wisp-home"
    home.mkdir()
    return Setup(home)


async def eventually(condition: Callable[[], Any]) -> Any:
    """``condition()`` once it is truthy; the test fails after HANG seconds without."""
    async with asyncio.timeout(HANG):
        while not (value := condition()):
            await asyncio.sleep(0.01)
    return value


def filed(home: Path) -> PendingRequest | None:
    requests = list_waiting(home, APPROVAL)
    return requests[0] if requests else None


def authorize(gate: ApprovalGate) -> asyncio.Task[GateResult]:
    return asyncio.create_task(gate.authorize("git push", [PUSH], [PUSH_VERDICT], PROJECT, turn=1))


async def test_a_request_is_filed_privately_and_an_answer_file_releases_it(setup: Setup) -> None:
    gate = setup.gate(setup.approver())
    checking = authorize(gate)

    request = await eventually(lambda: filed(setup.home))
    path = request_path(setup.home, APPROVAL, request.id)
    assert stat.S_IMODE(pending_dir(setup.home).stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    on_disk = json.loads(path.read_text())
    assert on_disk | {"created": 0, "expiresAt": None} == {
        "id": request.id,
        "command": "git push",
        "line": "git push",
        "pattern": "git push *",
        "directory": str(PROJECT),
        "level": "moderate",
        "reasons": ["pushes to a remote"],
        "thread": "git",
        "client": "claude-code",
        "pid": os.getpid(),
        "created": 0,
        "expiresAt": None,
        "outsideSandbox": False,
    }
    assert on_disk["expiresAt"].endswith("Z")
    write_answer(setup.home, APPROVAL, request, "session", "cli")

    assert await checking == GateResult(approved=True)
    assert not path.exists() and not answer_path(setup.home, APPROVAL, request.id).exists()
    assert setup.kinds() == [
        "classifier.verdict",
        "approval.requested",
        "approval.pending",
        "notification",  # the waiting notice, posted at once (approval.bannerDelaySeconds 0)
        "approval.settled",
        "approval.decided",
    ]
    pending = setup.details("approval.pending")[0]
    assert (pending.request, pending.command, pending.pattern, pending.line) == (
        request.id,
        "git push",
        "git push *",
        "git push",
    )
    assert (pending.directory, pending.level, pending.thread, pending.client) == (
        str(PROJECT),
        "moderate",
        "git",
        "claude-code",
    )
    assert (pending.outcome, pending.expires_at) == ("filed", on_disk["expiresAt"])
    assert pending.banner_delay_seconds is UNSET  # only with a dialog that may answer first
    settled = setup.details("approval.settled")[0]
    assert (settled.outcome, settled.via, settled.decision, settled.banner) == (
        "answered",
        "cli",
        "session",
        "posted",
    )
    assert setup.details("approval.decided")[0].scope == "session"
    (shown,) = setup.shown
    assert shown.title == "wisp: approval waiting"
    assert f"wisp approvals approve {request.id}" in shown.body
    (notice,) = setup.details("notification")
    assert (notice.source, notice.outcome, notice.route) == ("approval", "posted", "host")
    assert f"wisp approvals approve {request.id}" in notice.body


async def test_only_the_first_answer_is_taken(setup: Setup) -> None:
    checking = authorize(setup.gate(setup.approver()))
    request = await eventually(lambda: filed(setup.home))

    write_answer(setup.home, APPROVAL, request, "deny", "cli")
    with pytest.raises(ChannelError, match="answered already"):
        write_answer(setup.home, APPROVAL, request, "always", "tui")

    result = await checking
    assert not result.approved
    assert setup.details("approval.decided")[0].decision == "denied"


async def test_an_answer_bound_to_another_request_is_refused_and_the_request_waits(
    setup: Setup,
) -> None:
    checking = authorize(setup.gate(setup.approver()))
    request = await eventually(lambda: filed(setup.home))
    forged = {"id": request.id, "decision": "always", "via": "cli", "binding": "0" * 64}
    answer_path(setup.home, APPROVAL, request.id).write_text(json.dumps(forged))

    refused = await eventually(lambda: setup.details("error"))
    assert refused[0].context == "approval"
    assert refused[0].message.endswith("was refused: its binding does not match the request")
    await eventually(lambda: not answer_path(setup.home, APPROVAL, request.id).exists())
    assert not checking.done()
    write_answer(setup.home, APPROVAL, request, "once", "cli")

    assert (await checking).approved
    assert setup.details("approval.decided")[0].scope == "once"


async def test_the_clients_dialog_wins_and_the_request_is_withdrawn(setup: Setup) -> None:
    release = asyncio.Event()

    async def dialog(question: ApprovalQuestion) -> Answer | None:
        await release.wait()
        return "session"

    checking = authorize(setup.gate(setup.approver(alongside=dialog, banner_delay=HANG)))
    request = await eventually(lambda: filed(setup.home))
    release.set()

    assert (await checking).approved
    assert not request_path(setup.home, APPROVAL, request.id).exists()
    with pytest.raises(ChannelError, match="no longer waits"):
        write_answer(setup.home, APPROVAL, request, "deny", "cli")
    pending = setup.details("approval.pending")[0]
    assert (pending.alongside, pending.banner_delay_seconds) == ("elicitation", HANG)
    settled = setup.details("approval.settled")[0]
    assert (settled.outcome, settled.via, settled.decision, settled.banner) == (
        "answered",
        "elicitation",
        "session",
        "skipped",
    )
    assert setup.shown == []
    assert setup.details("notification") == []


async def test_the_answer_file_wins_and_the_clients_dialog_is_cancelled(setup: Setup) -> None:
    cancelled = asyncio.Event()

    async def dialog(question: ApprovalQuestion) -> Answer | None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return None

    checking = authorize(setup.gate(setup.approver(alongside=dialog)))
    request = await eventually(lambda: filed(setup.home))
    write_answer(setup.home, APPROVAL, request, "once", "tui")

    assert (await checking).approved
    assert cancelled.is_set()
    settled = setup.details("approval.settled")[0]
    assert (settled.via, settled.decision) == ("tui", "once")


async def test_a_dialog_that_cannot_ask_leaves_the_answer_file(setup: Setup) -> None:
    async def no_dialog(question: ApprovalQuestion) -> Answer | None:
        return None

    checking = authorize(setup.gate(setup.approver(alongside=no_dialog)))
    request = await eventually(lambda: filed(setup.home))
    write_answer(setup.home, APPROVAL, request, "once", "cli")

    assert (await checking).approved
    assert setup.details("approval.settled")[0].via == "cli"


async def test_unanswered_the_request_times_out_once_in_both_events(setup: Setup) -> None:
    result = await authorize(setup.gate(setup.approver(), timeout=0.4))

    assert not result.approved
    assert result.reason.startswith("no answer within 0.4 seconds")
    assert setup.details("approval.settled")[0].outcome == "timed-out"
    assert [d.decision for d in setup.details("approval.decided")] == ["timed-out"]
    assert list_waiting(setup.home, APPROVAL) == []


async def test_a_cancelled_call_abandons_the_request(setup: Setup) -> None:
    checking = authorize(setup.gate(setup.approver()))
    request = await eventually(lambda: filed(setup.home))

    checking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await checking

    assert setup.details("approval.settled")[0].outcome == "abandoned"
    assert not request_path(setup.home, APPROVAL, request.id).exists()


async def test_without_out_of_band_or_a_dialog_the_request_is_refused_with_advice(
    setup: Setup,
) -> None:
    result = await authorize(setup.gate(setup.approver(out_of_band=False)))

    assert not result.approved
    for way in ("approval.outOfBand", "elicitation", "--yes"):
        assert way in result.reason
    assert not pending_dir(setup.home).exists()


async def test_without_out_of_band_only_the_dialog_asks(setup: Setup) -> None:
    async def dialog(question: ApprovalQuestion) -> Answer | None:
        return "once"

    result = await authorize(setup.gate(setup.approver(out_of_band=False, alongside=dialog)))

    assert result.approved
    assert not pending_dir(setup.home).exists()
    # Nothing was filed, so nothing is pending or settled: approval.decided tells the rest.
    assert setup.details("approval.pending") == setup.details("approval.settled") == []
    assert setup.details("approval.decided")[0].decision == "approved"


async def test_without_out_of_band_a_dialog_that_fails_refuses(setup: Setup) -> None:
    async def broken(question: ApprovalQuestion) -> Answer | None:
        raise RuntimeError("the client went away")

    approver = setup.approver(out_of_band=False, alongside=broken)
    with pytest.raises(ApprovalRefused, match=r"approval\.outOfBand"):
        await approver.ask(
            ApprovalQuestion("git push", "git push", "git push *", "moderate", [], PROJECT), 600
        )
    assert setup.details("approval.settled") == []


def request_of(pid: int, *, expires_at: str | None = None, request_id: str = "a1b2c3d4") -> Any:
    return PendingRequest(
        id=request_id,
        command="git push",
        line="git push",
        pattern="git push *",
        directory="/r",
        level="moderate",
        reasons=[],
        thread="git",
        client=None,
        pid=pid,
        created=1,
        expires_at=expires_at,
    )


def test_a_request_whose_server_is_gone_is_swept_by_the_next_lister(setup: Setup) -> None:
    from wisp.desk.channel import file_request

    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    file_request(setup.home, APPROVAL, request_of(int(gone.stdout)))
    file_request(setup.home, APPROVAL, request_of(os.getpid(), request_id="b1b2c3d4"))
    file_request(
        setup.home,
        APPROVAL,
        request_of(os.getpid(), expires_at="2000-01-01T00:00:00Z", request_id="c1b2c3d4"),
    )

    waiting = list_waiting(setup.home, APPROVAL, setup.record)

    assert [request.id for request in waiting] == ["b1b2c3d4"]
    swept = setup.details("approval.settled")
    assert [(d.request, d.outcome) for d in swept] == [("a1b2c3d4", "stale"), ("c1b2c3d4", "stale")]
    assert "is gone" in swept[0].reason and "expired" in swept[1].reason
    assert read_request(setup.home, APPROVAL, "a1b2c3d4") is None


async def test_an_answer_that_cannot_be_read_is_refused_once_and_the_wait_goes_on(
    setup: Setup,
) -> None:
    checking = authorize(setup.gate(setup.approver()))
    request = await eventually(lambda: filed(setup.home))
    # Neither readable nor removable as a file.
    misfit = answer_path(setup.home, APPROVAL, request.id)
    misfit.mkdir()
    refused = await eventually(lambda: setup.details("error"))
    # The wait goes on: a readable answer written after the refusal settles it.
    misfit.rmdir()
    write_answer(setup.home, APPROVAL, request, "once", "cli")

    result = await checking

    assert result.approved
    assert len(refused) == 1 and "cannot be read" in refused[0].message
    assert len(setup.details("error")) == 1
    assert setup.details("approval.settled")[0].via == "cli"
