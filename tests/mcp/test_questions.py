"""The model's questions through a real ``wisp mcp``: the client's form (elicitation) and the
question filed out of band race, the first answer wins; ``wisp questions`` answers under a
pseudo-terminal in both protocol eras; a wait is bounded by approval.timeoutSeconds, and a
question that outlives its call's hold is parked: its answer reaches the thread's next turn."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import WISP
from tests.hang import HANG
from tests.mcp.conftest import ERAS, LEGACY, STATELESS, Connect, write_config, write_script
from tests.notify.bus import SessionBus

WHICH = {"question": "Which environment?", "options": ["staging", "production"]}
NAME = {"question": "What should the release be called?"}


def asking(*questions: dict[str, Any]) -> list[dict[str, Any]]:
    """A script that asks each question in turn, then says it is done."""
    steps: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "ask", "arguments": question}]} for question in questions
    ]
    return [*steps, {"text": "Thanks."}]


async def waiting_question(home: Path) -> Any:
    """The first question filed under ``home/pending``, once there is one."""
    from wisp.desk.channel import list_waiting
    from wisp.desk.question import QUESTION

    async with asyncio.timeout(HANG):
        while not (waiting := list_waiting(home, QUESTION)):
            await asyncio.sleep(0.01)
    return waiting[0]


async def questions(env: dict[str, str], *args: str, stdin: int) -> str:
    """The real ``wisp questions ARGS``; its stdout, once it succeeded."""
    process = await asyncio.create_subprocess_exec(
        str(WISP), "questions", *args, env=env, stdin=stdin, stdout=-1, stderr=-1
    )
    async with asyncio.timeout(HANG):
        out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    return out.decode()


def kinds(events: list[dict], kind: str) -> list[dict]:
    return [event["details"] for event in events if event["kind"] == kind]


def outputs(result: Any) -> list[str]:
    return [call["output"] for call in result.structured_content["calls"]]


async def test_the_clients_form_answers_with_an_option_or_free_text(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    audit_lines: Callable[[], list[dict]],
) -> None:
    import mcp_types as types

    script = write_script(tmp_path, asking(WHICH, NAME))
    asked: list[types.ElicitRequestParams] = []

    async def person(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        answer = (
            "production" if "oneOf" in params.requested_schema["properties"]["answer"] else "v2"
        )
        return types.ElicitResult(action="accept", content={"answer": answer})

    async with connect(["-m", f"script:{script}"], elicitation=person) as client:
        result = await client.call_tool("respond", {"prompt": "release it"})

    assert not result.is_error
    assert outputs(result) == ["answer: production\noption: 2", "answer: v2"]
    which, name = asked
    assert "Which environment?" in which.message
    options = which.requested_schema["properties"]["answer"]["oneOf"]
    assert [option["const"] for option in options] == ["staging", "production"]
    assert "oneOf" not in name.requested_schema["properties"]["answer"]
    events = audit_lines()
    requested = kinds(events, "inquiry.requested")
    assert [r["ways"] for r in requested] == [["elicitation", "pending"]] * 2
    settled = kinds(events, "inquiry.settled")
    assert [(s["outcome"], s["via"], s["answer"]) for s in settled] == [
        ("answered", "elicitation", "production"),
        ("answered", "elicitation", "v2"),
    ]
    assert [s["inquiry"] for s in settled] == [r["inquiry"] for r in requested]
    assert not list((wisp_home / "pending").glob("*.question.json"))


@pytest.mark.parametrize("mode", ERAS)
async def test_wisp_questions_answers_a_waiting_question(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    terminal: int,
    audit_lines: Callable[[], list[dict]],
    mode: str,
    notification_service: SessionBus,
) -> None:
    script = write_script(tmp_path, asking(WHICH))
    async with connect(["-m", f"script:{script}"], mode=mode) as client:
        call = asyncio.create_task(client.call_tool("respond", {"prompt": "release it"}))
        question = await waiting_question(wisp_home)
        listed = await questions(wisp_env, "pending", stdin=terminal)
        assert question.id in listed and "Which environment?" in listed
        assert "2. production" in listed
        answered = await questions(wisp_env, "answer", question.id, "2", stdin=terminal)
        assert answered.startswith("answered: production")
        result = await call

    assert not result.is_error
    assert outputs(result) == ["answer: production\noption: 2"]
    events = audit_lines()
    [requested] = kinds(events, "inquiry.requested")
    assert requested["ways"] == ["pending"]  # no form: no elicitation, or not mid-call
    assert requested["inquiry"] == question.id
    [settled] = kinds(events, "inquiry.settled")
    assert (settled["outcome"], settled["via"]) == ("answered", "cli")
    [notice] = kinds(events, "notification")  # the waiting notice, on the desktop
    assert (notice["source"], notice["route"], notice["outcome"]) == ("inquiry", "app", "posted")
    assert f"wisp questions answer {question.id} TEXT" in notice["body"]
    [shown] = notification_service.shown
    assert (shown.summary, shown.body) == ("wisp: question waiting", notice["body"])
    [answer] = kinds(events, "inquiry.answered")
    assert answer == {"inquiry": question.id, "via": "cli", "delivery": "written"}
    starts = [e for e in events if e["kind"] == "session.start"]
    assert [s["details"]["entryPoint"] for s in starts].count("questions") == 2
    assert not list((wisp_home / "pending").iterdir())


async def test_wisp_questions_decline_is_the_persons_refusal(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    terminal: int,
    audit_lines: Callable[[], list[dict]],
) -> None:
    script = write_script(tmp_path, asking(NAME))
    async with connect(["-m", f"script:{script}"], mode=STATELESS) as client:
        call = asyncio.create_task(client.call_tool("respond", {"prompt": "release it"}))
        question = await waiting_question(wisp_home)
        await questions(wisp_env, "decline", question.id, stdin=terminal)
        result = await call

    assert outputs(result) == ["error: the person declined to answer"]
    [settled] = kinds(audit_lines(), "inquiry.settled")
    assert (settled["outcome"], settled["via"]) == ("declined", "cli")


async def test_the_form_is_withdrawn_when_wisp_questions_answers_first(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    terminal: int,
    audit_lines: Callable[[], list[dict]],
) -> None:
    import mcp_types as types

    script = write_script(tmp_path, asking(NAME))
    shown = asyncio.Event()
    withdrawn = asyncio.Event()

    async def person(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        shown.set()
        try:
            await asyncio.Event().wait()  # the person never answers in the form
        except asyncio.CancelledError:
            withdrawn.set()
            raise
        raise AssertionError("unreachable")

    async with connect(["-m", f"script:{script}"], mode=LEGACY, elicitation=person) as client:
        call = asyncio.create_task(client.call_tool("respond", {"prompt": "release it"}))
        question = await waiting_question(wisp_home)
        async with asyncio.timeout(HANG):
            await shown.wait()
        await questions(wisp_env, "answer", question.id, "spring", "cleanup", stdin=terminal)
        result = await call
        async with asyncio.timeout(HANG):
            await withdrawn.wait()

    assert outputs(result) == ["answer: spring cleanup"]
    [settled] = kinds(audit_lines(), "inquiry.settled")
    assert settled["via"] == "cli"


async def test_an_unanswered_question_waits_approval_timeout_seconds_at_most(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    audit_lines: Callable[[], list[dict]],
) -> None:
    # A call cannot be suspended for a later answer: the question is withdrawn, the model told.
    write_config(wisp_home, {"approval": {"timeoutSeconds": 1}})
    script = write_script(tmp_path, asking(NAME))
    async with connect(["-m", f"script:{script}"], mode=STATELESS) as client:
        result = await client.call_tool("respond", {"prompt": "release it"})

    assert outputs(result) == ["error: no answer within 1 s"]
    [settled] = kinds(audit_lines(), "inquiry.settled")
    assert settled["outcome"] == "unanswered"
    assert not list((wisp_home / "pending").glob("*.question.json"))


async def test_with_no_way_to_ask_the_question_is_refused_saying_why(
    connect: Connect, tmp_path: Path, wisp_home: Path
) -> None:
    write_config(wisp_home, {"approval": {"outOfBand": False}})
    script = write_script(tmp_path, asking(NAME))
    async with connect(["-m", f"script:{script}"], mode=STATELESS) as client:
        result = await client.call_tool("respond", {"prompt": "release it"})
    [output] = outputs(result)
    assert output.startswith("error: no one can be asked here (approval.outOfBand is off")


async def test_the_models_own_commands_cannot_answer_its_question(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    terminal: int,
) -> None:
    # Only a dangerous command asks, so the second thread's tries run without asking.
    write_config(wisp_home, {"approval": {"threshold": "dangerous"}})
    waits = write_script(tmp_path, asking(WHICH), name="waits")
    async with connect(["-m", f"script:{waits}"], mode=STATELESS) as client:
        waiting = asyncio.create_task(
            client.call_tool("respond", {"prompt": "release it", "thread_id": "waits"})
        )
        question = await waiting_question(wisp_home)
        reply = json.dumps({"id": question.id, "text": "production", "via": "cli"})
        reply_file = wisp_home / "pending" / f"{question.id}.reply.json"
        tries = write_script(
            tmp_path,
            [
                {"tool_calls": [_run(f"{WISP} questions answer {question.id} production")]},
                {"tool_calls": [_run(f"echo '{reply}' > {reply_file}")]},
                {"text": "Tried."},
            ],
            name="tries",
        )
        tried = await client.call_tool(
            "respond", {"prompt": "answer it", "thread_id": "tries", "model": f"script:{tries}"}
        )
        assert not waiting.done()
        still = await waiting_question(wisp_home)
        assert still.id == question.id
        await questions(wisp_env, "decline", question.id, stdin=terminal)
        result = await waiting

    answer, write = tried.structured_content["calls"]
    assert answer["output"].startswith("error: command denied by policy")
    assert write["exitStatus"] != 0  # WISP_HOME is hidden from a confined command
    assert not reply_file.exists()
    assert outputs(result) == ["error: the person declined to answer"]


def _run(command: str) -> dict[str, object]:
    return {"name": "run_command", "arguments": {"command": command}}


async def test_a_cancelled_call_stops_its_question_and_withdraws_it(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    audit_lines: Callable[[], list[dict]],
) -> None:
    script = write_script(tmp_path, asking(NAME))
    async with connect(["-m", f"script:{script}"]) as client:
        call = asyncio.create_task(
            client.call_tool("respond", {"prompt": "release it", "thread_id": "c"})
        )
        await waiting_question(wisp_home)
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call
        # The thread takes its next call once the stopped turn is stored.
        after = await client.call_tool("close_thread", {"thread_id": "c"})
    assert not after.is_error
    [settled] = kinds(audit_lines(), "inquiry.settled")
    assert settled["outcome"] == "stopped"
    assert not list((wisp_home / "pending").glob("*.question.json"))


HOLD = "0.2"
"""Seconds a question is held in its call (WISP_QUESTION_HOLD_SECONDS) before it is parked."""


async def prompt_entries(client: Any, thread: str) -> list[str]:
    """The thread's prompt entries, as its conversation stores and sends them."""
    resource = await client.read_resource(f"wisp://threads/{thread}")
    entries = json.loads(resource.contents[0].text)["entries"]
    return [entry["value"] for entry in entries if entry["kind"] == "prompt"]


def parks_then(*replies: str) -> list[dict[str, Any]]:
    """A script whose first turn asks NAME (and goes on once it is parked), then replies."""
    return [*asking(NAME)[:1], {"text": "Waiting."}, *({"text": reply} for reply in replies)]


async def test_a_question_unanswered_in_its_call_is_parked_and_answered_in_the_next_turn(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    terminal: int,
    audit_lines: Callable[[], list[dict]],
) -> None:
    from wisp.desk.channel import list_waiting
    from wisp.desk.question import QUESTION
    from wisp.tools.ask import PARKED

    wisp_env["WISP_QUESTION_HOLD_SECONDS"] = HOLD
    script = write_script(tmp_path, parks_then("v2."))
    async with connect(["-m", f"script:{script}"], mode=STATELESS) as client:
        first = await client.call_tool("respond", {"prompt": "release it", "thread_id": "p"})
        assert outputs(first) == [PARKED]
        # The turn ended; the question still waits, listed by wisp questions.
        [question] = list_waiting(wisp_home, QUESTION)
        assert question.thread == "p" and question.expires_at is not None  # 600 s from filing
        listed = await questions(wisp_env, "pending", stdin=terminal)
        assert question.id in listed
        await questions(wisp_env, "answer", question.id, "v2", stdin=terminal)
        assert list_waiting(wisp_home, QUESTION) == [question]  # nobody took the answer yet

        second = await client.call_tool("respond", {"prompt": "go on", "thread_id": "p"})
        prompts = await prompt_entries(client, "p")

    assert not second.is_error and second.content[0].text == "v2."
    note = '[the person answered your earlier question "What should the release be called?": v2]'
    # The note leads the next turn's prompt, so every request of that turn carries it.
    assert prompts == ["release it", f"{note}\n\ngo on"]
    events = audit_lines()
    assert [p["text"] for p in kinds(events, "prompt")] == prompts
    marks = [
        e["kind"]
        for e in events
        if e["kind"].startswith("inquiry.") and e["kind"] != "inquiry.answered"
    ]
    assert marks == ["inquiry.requested", "inquiry.parked", "inquiry.settled"]
    [parked] = kinds(events, "inquiry.parked")
    assert parked["inquiry"] == question.id and parked["waitedSeconds"] > 0
    [settled] = kinds(events, "inquiry.settled")
    assert settled["inquiry"] == question.id
    assert (settled["outcome"], settled["via"], settled["delivered"], settled["answer"]) == (
        "answered",
        "cli",
        "notice",
        "v2",
    )
    assert not list((wisp_home / "pending").iterdir())


async def test_a_parked_question_declined_or_past_its_time_is_a_note_too(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    terminal: int,
    audit_lines: Callable[[], list[dict]],
) -> None:
    from wisp.desk.channel import list_waiting
    from wisp.desk.question import QUESTION

    wisp_env["WISP_QUESTION_HOLD_SECONDS"] = HOLD
    earlier = f'your earlier question "{NAME["question"]}"'
    declines = write_script(tmp_path, parks_then("Fine."), name="declines")
    async with connect(["-m", f"script:{declines}"], mode=STATELESS) as client:
        await client.call_tool("respond", {"prompt": "release it", "thread_id": "d"})
        [question] = list_waiting(wisp_home, QUESTION)
        await questions(wisp_env, "decline", question.id, stdin=terminal)
        await client.call_tool("respond", {"prompt": "go on", "thread_id": "d"})
        assert (await prompt_entries(client, "d"))[1] == (
            f"[the person declined to answer {earlier}]\n\ngo on"
        )

    # A question that lives 2 s past its filing, once a listing has swept it as stale.
    write_config(wisp_home, {"approval": {"timeoutSeconds": 2}})
    lapses = write_script(tmp_path, parks_then("Fine."), name="lapses")
    async with connect(["-m", f"script:{lapses}"], mode=STATELESS) as client:
        await client.call_tool("respond", {"prompt": "release it", "thread_id": "x"})
        async with asyncio.timeout(HANG):
            while list_waiting(wisp_home, QUESTION):
                await asyncio.sleep(0.05)
        await client.call_tool("respond", {"prompt": "go on", "thread_id": "x"})
        assert (await prompt_entries(client, "x"))[1] == (
            f"[{earlier} got no answer in time; it was withdrawn]\n\ngo on"
        )

    settled = kinds(audit_lines(), "inquiry.settled")
    by_outcome = {s["outcome"]: s for s in settled}
    assert by_outcome["declined"]["delivered"] == "notice"
    assert by_outcome["declined"]["via"] == "cli"
    assert "delivered" not in by_outcome["unanswered"]


async def test_closing_a_thread_withdraws_its_parked_question(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    audit_lines: Callable[[], list[dict]],
) -> None:
    from wisp.desk.channel import list_waiting
    from wisp.desk.question import QUESTION
    from wisp.tools.ask import PARKED

    wisp_env["WISP_QUESTION_HOLD_SECONDS"] = HOLD
    script = write_script(tmp_path, [*asking(WHICH)[:1], {"text": "Waiting."}])
    async with connect(["-m", f"script:{script}"], mode=STATELESS) as client:
        first = await client.call_tool("respond", {"prompt": "release it", "thread_id": "w"})
        assert outputs(first) == [PARKED]
        [question] = list_waiting(wisp_home, QUESTION)
        closed = await client.call_tool("close_thread", {"thread_id": "w"})
        assert not closed.is_error
        assert list_waiting(wisp_home, QUESTION) == []

    [settled] = kinds(audit_lines(), "inquiry.settled")
    assert (settled["inquiry"], settled["outcome"]) == (question.id, "withdrawn")


async def test_parking_withdraws_the_clients_form_but_not_the_filed_question(
    connect: Connect,
    tmp_path: Path,
    wisp_home: Path,
    wisp_env: dict[str, str],
    audit_lines: Callable[[], list[dict]],
) -> None:
    import mcp_types as types

    from wisp.desk.channel import list_waiting
    from wisp.desk.question import QUESTION
    from wisp.tools.ask import PARKED

    wisp_env["WISP_QUESTION_HOLD_SECONDS"] = HOLD
    withdrawn = asyncio.Event()

    async def person(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        try:
            await asyncio.Event().wait()  # the person never answers in the form
        except asyncio.CancelledError:
            withdrawn.set()
            raise
        raise AssertionError("unreachable")

    script = write_script(tmp_path, [*asking(NAME)[:1], {"text": "Waiting."}])
    async with connect(["-m", f"script:{script}"], mode=LEGACY, elicitation=person) as client:
        first = await client.call_tool("respond", {"prompt": "release it", "thread_id": "f"})
        async with asyncio.timeout(HANG):
            await withdrawn.wait()
        assert outputs(first) == [PARKED]
        [question] = list_waiting(wisp_home, QUESTION)

    events = audit_lines()
    [requested] = kinds(events, "inquiry.requested")
    assert requested["ways"] == ["elicitation", "pending"]
    assert requested["inquiry"] == question.id
    # The server's end closes the thread, which withdraws what it left parked.
    [settled] = kinds(events, "inquiry.settled")
    assert (settled["inquiry"], settled["outcome"]) == (question.id, "withdrawn")
    assert list_waiting(wisp_home, QUESTION) == []
