"""``wisp approvals`` (docs/policy.md, "Approvals out of band"): a request filed by a real
OutOfBandApprover in this process, listed and answered by the real `wisp approvals` under a
pseudo-terminal, and refused without one."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli.answering.conftest import answering, first_waiting
from tests.hang import HANG
from wisp.audit import AuditLog, MemorySink
from wisp.desk.approval import APPROVAL, OutOfBandApprover, PendingRequest
from wisp.desk.channel import list_waiting
from wisp.policy.approval_cache import SessionApprovals
from wisp.policy.approvals import APPROVALS_FILE, ApprovalStore
from wisp.policy.gate import ApprovalGate, GateResult
from wisp.policy.types import Assessment, SimpleCommand

PUSH = SimpleCommand("git push origin main", "git", "push", "git push *")
PUSH_VERDICT = Assessment(level="moderate", reasons=["pushes to a remote"])


class Thread:
    """An MCP thread's side in this process: its gate asks through an OutOfBandApprover."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.sink = MemorySink()
        log = AuditLog(self.sink)
        approver = OutOfBandApprover(
            home, record=lambda d: log.record(d).id, thread="release", client="claude-code"
        )
        self.gate = ApprovalGate(
            "moderate",
            approver,
            ApprovalStore(home / APPROVALS_FILE),
            timeout_seconds=HANG,
            record=lambda d: log.record(d).id,
            session=SessionApprovals(),
        )

    def ask(self) -> asyncio.Task[GateResult]:
        return asyncio.create_task(
            self.gate.authorize(PUSH.text, [PUSH], [PUSH_VERDICT], Path("/srv/app"), turn=1)
        )

    def settled(self) -> Any:
        return next(e.details for e in self.sink.events if e.kind == "approval.settled")


@pytest.fixture
def thread(wisp_home: Path) -> Thread:
    wisp_home.mkdir(mode=0o700)
    return Thread(wisp_home)


async def waiting(home: Path) -> PendingRequest:
    return await first_waiting(home, APPROVAL)


async def approvals(
    env: dict[str, str], *args: str, stdin: int = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    """The real `wisp approvals ARGS`, run while this process's loop keeps polling."""
    return await answering(env, "approvals", *args, stdin=stdin)


def answered(audit_lines: Callable[[], list[dict]]) -> list[dict]:
    return [line for line in audit_lines() if line["kind"] == "approval.answered"]


async def test_pending_lists_the_request_and_approve_releases_it(
    thread: Thread, wisp_env: dict[str, str], terminal: int, audit_lines: Any
) -> None:
    asking = thread.ask()
    request = await waiting(thread.home)

    listed = await approvals(wisp_env, "pending", stdin=terminal)
    assert listed.returncode == 0, listed.stderr
    header, row = listed.stdout.splitlines()
    assert header.split() == ["ID", "LEVEL", "COMMAND", "DIRECTORY", "THREAD", "CLIENT", "AGE"]
    for shown in (request.id, "moderate", "git push origin main", "/srv/app", "release"):
        assert shown in row
    assert "claude-code" in row

    done = await approvals(wisp_env, "approve", request.id, "--scope", "session", stdin=terminal)

    assert done.returncode == 0, done.stderr
    assert "approved (session): git push origin main (thread release of claude-code)" in (
        done.stdout
    )
    assert await asking == GateResult(approved=True)
    settled = thread.settled()
    assert (settled.outcome, settled.via, settled.decision) == ("answered", "cli", "session")
    starts = [line for line in audit_lines() if line["kind"] == "session.start"]
    assert [start["details"]["entryPoint"] for start in starts] == ["approvals", "approvals"]
    [written] = answered(audit_lines)
    assert written["session"] == starts[1]["session"]
    assert written["details"] == {
        "request": request.id,
        "decision": "session",
        "via": "cli",
        "delivery": "written",
    }


async def test_deny_refuses_the_request(
    thread: Thread, wisp_env: dict[str, str], terminal: int
) -> None:
    asking = thread.ask()
    request = await waiting(thread.home)

    done = await approvals(wisp_env, "deny", request.id, stdin=terminal)

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused: git push origin main")
    result = await asking
    assert (result.approved, result.reason) == (False, "declined by the user")
    assert (thread.settled().via, thread.settled().decision) == ("cli", "deny")


async def test_without_a_terminal_nothing_is_answered(
    thread: Thread, wisp_env: dict[str, str], audit_lines: Any
) -> None:
    asking = thread.ask()
    request = await waiting(thread.home)

    for args in (("approve", request.id), ("deny", request.id), ("pending",)):
        done = await approvals(wisp_env, *args)
        assert done.returncode == 2
        assert "only at a terminal, and stdin is not one" in done.stderr
        assert done.stdout == ""

    assert [r.id for r in list_waiting(thread.home, APPROVAL)] == [request.id]
    assert not asking.done()
    assert answered(audit_lines) == []
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking


async def test_an_unknown_id_is_refused_and_recorded(
    wisp_home: Path, wisp_env: dict[str, str], terminal: int, audit_lines: Any
) -> None:
    done = await approvals(wisp_env, "approve", "0badf00d", stdin=terminal)

    assert done.returncode == 1
    assert "no request 0badf00d is waiting" in done.stderr
    [refused] = answered(audit_lines)
    assert refused["details"]["delivery"] == "refused"
    assert refused["details"]["decision"] == "once"


def test_help_says_what_it_is_for(run_wisp: Any) -> None:
    result = run_wisp("approvals", "--help")

    assert result.returncode == 0
    for words in ("wisp mcp", "pending", "approve", "deny", "--scope", "terminal"):
        assert words in result.stdout


async def test_pending_sweeps_a_request_whose_server_is_gone_on_its_own_log(
    wisp_home: Path, wisp_env: dict[str, str], terminal: int, audit_lines: Any
) -> None:
    from wisp.desk.channel import file_request, request_path

    wisp_home.mkdir(mode=0o700)
    gone = await asyncio.create_subprocess_exec("true")
    await gone.wait()
    stale = PendingRequest(
        id="5ca1ab1e", command="rm -r build", line="rm -r build", pattern="rm *",
        directory="/srv/app", level="moderate", reasons=[], thread="t", client=None,
        pid=gone.pid, created=1,
    )  # fmt: skip
    file_request(wisp_home, APPROVAL, stale)

    listed = await approvals(wisp_env, "pending", stdin=terminal)

    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == "no approvals are waiting\n"
    assert not request_path(wisp_home, APPROVAL, stale.id).exists()
    [start] = [line for line in audit_lines() if line["kind"] == "session.start"]
    [swept] = [line for line in audit_lines() if line["kind"] == "approval.settled"]
    assert swept["session"] == start["session"]
    assert (swept["details"]["request"], swept["details"]["outcome"]) == ("5ca1ab1e", "stale")
