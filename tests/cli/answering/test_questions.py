"""``wisp questions`` (docs/policy.md, "Questions out of band"): a question filed by a real
OutOfBandAsker in this process, listed and answered by the real `wisp questions` under a
pseudo-terminal, and refused without one."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli.answering.conftest import answering, first_waiting
from tests.hang import HANG
from wisp.audit import AuditLog, MemorySink
from wisp.desk.channel import answer_path, file_request, list_waiting
from wisp.desk.question import QUESTION, OutOfBandAsker, PendingQuestion
from wisp.policy.types import QuestionAnswer

WHICH = ("Which environment?", ["staging", "production"])


class Thread:
    """An MCP thread's side in this process: its questions go through an OutOfBandAsker."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.sink = MemorySink()
        log = AuditLog(self.sink)
        self.asker = OutOfBandAsker(
            home, record=lambda d: log.record(d).id, thread="release", client="claude-code"
        )

    def ask(self, question: str, options: list[str]) -> asyncio.Task[QuestionAnswer | None]:
        return asyncio.create_task(self.asker.ask(question, options, None, inquiry="0a1b2c3d"))


@pytest.fixture
def thread(wisp_home: Path) -> Thread:
    wisp_home.mkdir(mode=0o700)
    return Thread(wisp_home)


async def waiting(home: Path) -> PendingQuestion:
    return await first_waiting(home, QUESTION)


async def questions(
    env: dict[str, str], *args: str, stdin: int = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    """The real `wisp questions ARGS`, run while this process's loop keeps waiting."""
    return await answering(env, "questions", *args, stdin=stdin)


def answered(audit_lines: Callable[[], list[dict]]) -> list[dict]:
    return [line["details"] for line in audit_lines() if line["kind"] == "inquiry.answered"]


async def test_pending_lists_the_question_and_answer_gives_the_option(
    thread: Thread, wisp_env: dict[str, str], terminal: int, audit_lines: Any
) -> None:
    asking = thread.ask(*WHICH)
    filed = await waiting(thread.home)
    assert filed.id == "0a1b2c3d"  # the inquiry id the audit gives it

    listed = await questions(wisp_env, "pending", stdin=terminal)
    assert listed.returncode == 0, listed.stderr
    first, *rest = listed.stdout.splitlines()
    assert first.startswith("0a1b2c3d  thread release of claude-code  ")
    assert rest == ["  Which environment?", "    1. staging", "    2. production"]

    done = await questions(wisp_env, "answer", filed.id, "STAGING", stdin=terminal)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "answered: staging (thread release of claude-code)\n"
    assert await asking == QuestionAnswer(text="staging", via="cli")
    starts = [line for line in audit_lines() if line["kind"] == "session.start"]
    assert [start["details"]["entryPoint"] for start in starts] == ["questions", "questions"]
    assert answered(audit_lines) == [{"inquiry": filed.id, "via": "cli", "delivery": "written"}]
    assert not list((thread.home / "pending").iterdir())


async def test_an_answer_that_is_no_option_is_refused_and_the_question_keeps_waiting(
    thread: Thread, wisp_env: dict[str, str], terminal: int, audit_lines: Any
) -> None:
    asking = thread.ask(*WHICH)
    filed = await waiting(thread.home)

    done = await questions(wisp_env, "answer", filed.id, "qa", stdin=terminal)

    assert done.returncode == 1
    assert "'qa' is not one of the options (1. staging, 2. production)" in done.stderr
    [refused] = answered(audit_lines)
    assert refused["delivery"] == "refused" and "not one of the options" in refused["reason"]
    assert not asking.done() and [q.id for q in list_waiting(thread.home, QUESTION)] == [filed.id]
    declined = await questions(wisp_env, "decline", filed.id, stdin=terminal)
    assert declined.stdout.startswith("declined: Which environment?")
    assert await asking == QuestionAnswer(declined=True, via="cli")


async def test_without_a_terminal_nothing_is_answered(
    thread: Thread, wisp_env: dict[str, str], audit_lines: Any
) -> None:
    asking = thread.ask("What should the release be called?", [])
    filed = await waiting(thread.home)

    for args in (("answer", filed.id, "v2"), ("decline", filed.id), ("pending",)):
        done = await questions(wisp_env, *args)
        assert done.returncode == 2
        assert "only at a terminal, and stdin is not one" in done.stderr
        assert done.stdout == ""

    assert [q.id for q in list_waiting(thread.home, QUESTION)] == [filed.id]
    assert not asking.done()
    assert answered(audit_lines) == []
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    assert not list((thread.home / "pending").iterdir())  # withdrawn when the wait stopped


async def test_a_reply_bound_to_another_question_is_dropped(
    thread: Thread, wisp_env: dict[str, str], terminal: int
) -> None:
    asking = thread.ask("What should the release be called?", [])
    filed = await waiting(thread.home)
    forged = {"id": filed.id, "text": "forged", "declined": False, "via": "cli"}
    reply = answer_path(thread.home, QUESTION, filed.id)
    reply.write_text(json.dumps({**forged, "binding": "0" * 64}))
    async with asyncio.timeout(HANG):
        while reply.exists():  # the waiting asker drops it
            await asyncio.sleep(0.01)
    assert not asking.done()

    done = await questions(wisp_env, "answer", filed.id, "v2", stdin=terminal)

    assert done.returncode == 0, done.stderr
    assert await asking == QuestionAnswer(text="v2", via="cli")
    [error] = [e.details for e in thread.sink.events if e.kind == "error"]
    assert error.context == "inquiry"
    assert error.message == (
        f"a reply to question {filed.id} was refused: its binding does not match the question"
    )


async def test_an_unknown_id_is_refused_and_recorded(
    wisp_home: Path, wisp_env: dict[str, str], terminal: int, audit_lines: Any
) -> None:
    done = await questions(wisp_env, "decline", "0badf00d", stdin=terminal)

    assert done.returncode == 1
    assert "no question 0badf00d is waiting" in done.stderr
    [refused] = answered(audit_lines)
    assert (refused["inquiry"], refused["delivery"]) == ("0badf00d", "refused")


async def test_pending_sweeps_a_question_whose_server_is_gone_on_its_own_log(
    wisp_home: Path, wisp_env: dict[str, str], terminal: int, audit_lines: Any
) -> None:
    wisp_home.mkdir(mode=0o700)
    gone = await asyncio.create_subprocess_exec("true")
    await gone.wait()
    stale = PendingQuestion(
        id="5ca1ab1e", question="Ship it?", options=["yes", "no"], thread="t", client=None,
        pid=gone.pid, created=0,
    )  # fmt: skip
    file_request(wisp_home, QUESTION, stale)

    listed = await questions(wisp_env, "pending", stdin=terminal)

    assert listed.stdout == "no questions are waiting\n"
    [settled] = [line for line in audit_lines() if line["kind"] == "inquiry.settled"]
    assert settled["details"]["outcome"] == "stale"
    assert settled["details"]["inquiry"] == "5ca1ab1e"
    assert f"pid {gone.pid}" in settled["details"]["reason"]
    assert not list((wisp_home / "pending").iterdir())


def test_help_says_what_it_is_for(run_wisp: Any) -> None:
    result = run_wisp("questions", "--help")

    assert result.returncode == 0
    for words in ("wisp mcp", "pending", "answer", "decline", "terminal"):
        assert words in result.stdout
