"""`wisp chat --json` driven as a front end would: a real subprocess, protocol lines both ways."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import signal
from pathlib import Path

import pytest

from tests.hang import HANG
from wisp import protocol as p


class Front:
    """A minimal front end: writes inbound lines, reads and keeps every outbound line."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[p.Outbound] = []

    @classmethod
    async def start(cls, wisp_script: Path, env: dict[str, str], cwd: Path, *args: str) -> Front:
        process = await asyncio.create_subprocess_exec(
            str(wisp_script), "chat", "--json", *args, env=env, cwd=cwd,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, limit=1 << 24,
        )  # fmt: skip
        return cls(process)

    async def send(self, line: p.Inbound | str) -> None:
        assert self.process.stdin is not None
        data = line.encode() + b"\n" if isinstance(line, str) else p.encode_line(line)
        self.process.stdin.write(data)
        await self.process.stdin.drain()

    async def next(self) -> p.Outbound:
        assert self.process.stdout is not None
        raw = await asyncio.wait_for(self.process.stdout.readline(), HANG)
        assert raw, "wisp closed stdout"
        line = p.decode_outbound(raw)
        assert line is not None, raw
        self.lines.append(line)
        return line

    async def until(self, kind: type, **fields: object) -> p.Outbound:
        while True:
            line = await self.next()
            if isinstance(line, kind) and all(getattr(line, k) == v for k, v in fields.items()):
                return line

    async def finish(self) -> int:
        assert self.process.stdout is not None
        rest, _ = await asyncio.wait_for(self.process.communicate(), HANG)
        self.lines += [line for raw in rest.splitlines() if (line := p.decode_outbound(raw))]
        assert self.process.returncode is not None
        return self.process.returncode

    def types(self) -> list[str]:
        return [type(line).__name__ for line in self.lines]


@pytest.fixture
def script(tmp_path: Path):
    def write(*responses: dict) -> Path:
        path = tmp_path / f"script-{random.randrange(1 << 30)}.json"
        path.write_text(json.dumps({"responses": list(responses)}))
        return path

    return write


@pytest.fixture
def front(wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path):
    async def start(*args: str) -> Front:
        return await Front.start(wisp_script, wisp_env, tmp_path, *args)

    return start


TURN = (
    {"tool_calls": [{"name": "current_date", "arguments": {}}]},
    {"text": "It is today, as entries 40-42 show.", "usage": {"input": 90, "output": 9}},
)


@pytest.mark.parametrize("ending", ["/quit", "eof"])
async def test_a_full_session_conforms_to_the_protocol(front, script, ending: str) -> None:
    chat = await front("-m", f"script:{script(*TURN)}")
    hello = await chat.next()
    assert isinstance(hello, p.WispHello) and hello.tools
    await chat.until(p.Status)
    assert all(isinstance(line, p.Note) for line in chat.lines[1:-1])
    await chat.send(p.Message(text="what day is it?"))
    end = await chat.until(p.Turn, phase="end")
    await chat.until(p.Status)
    if ending == "/quit":
        await chat.send(p.Message(text="/quit"))
    else:
        assert chat.process.stdin is not None
        chat.process.stdin.close()
    assert await chat.finish() == 0
    assert isinstance(chat.lines[-1], p.Exit)

    turn = chat.lines[chat.lines.index(next(x for x in chat.lines if isinstance(x, p.Turn))) :]
    kinds = [line.kind for line in turn if isinstance(line, p.Event)]
    assert kinds == ["prompt", "tool.call", "tool.result", "response"]
    reply = "".join(line.text for line in turn if isinstance(line, p.Delta))
    assert reply == "It is today, as entries 40-42 show."
    order = [type(line).__name__ for line in turn]
    # The reply ends with an empty output, then the activity clears, then the turn ends.
    assert order[order.index("Output") :][:3] == ["Output", "Activity", "Turn"]
    assert end.outcome == "ok" and end.ran == "ran: current_date"
    assert end.cited == "cited but not in this conversation: entries 40–42 (3)"
    assert (end.input_tokens, end.output_tokens) == (90, 9)
    activity_then_event = [
        (type(a).__name__, getattr(b, "kind", None)) for a, b in itertools.pairwise(turn)
    ]
    assert ("Activity", "tool.call") in activity_then_event  # an activity before its event


async def test_an_approval_round_trip(front, script, audit_lines) -> None:
    touch = {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch made.txt"}}]}
    chat = await front(
        "-m", f"script:{script(touch, touch, {'text': 'done'}, touch, {'text': 'no'})}"
    )
    await chat.send(p.ClientHello(effects=["approve", "ask"], client="test", version="1"))
    await chat.until(p.Status)
    await chat.send(p.Message(text="make the file twice"))
    approval = await chat.until(p.Approval)
    assert (approval.command, approval.level, approval.pattern) == (
        "touch made.txt", "moderate", "touch *"
    )  # fmt: skip
    await chat.send(p.Answer(id=approval.id, decision="session"))
    await chat.until(p.Turn, phase="end")
    await chat.until(p.Status)
    assert sum(isinstance(line, p.Approval) for line in chat.lines) == 1  # the second: cached
    await chat.send(p.Message(text="once more"))
    end = await chat.until(p.Turn, phase="end")
    assert end.outcome == "ok"
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0
    decided = [e["details"]["decision"] for e in audit_lines() if e["kind"] == "approval.decided"]
    assert decided == ["approved", "cached", "cached"]


async def test_answering_no_denies_and_the_model_is_told(front, script, audit_lines) -> None:
    touch = {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch x.txt"}}]}
    chat = await front("-m", f"script:{script(touch, {'text': 'ok'})}")
    await chat.until(p.Status)
    await chat.send(p.Message(text="make it"))
    approval = await chat.until(p.Approval)
    await chat.send(p.Answer(id=approval.id, decision="no"))
    await chat.until(p.Turn, phase="end")
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0
    result = next(e["details"] for e in audit_lines() if e["kind"] == "tool.result")
    assert result["output"].startswith("error: command not approved:")


async def test_a_hello_without_approve_denies_without_asking(front, script, audit_lines) -> None:
    touch = {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch y.txt"}}]}
    chat = await front("-m", f"script:{script(touch, {'text': 'ok'})}")
    await chat.send(p.ClientHello(effects=[], client="viewer"))
    await chat.until(p.Status)
    await chat.send(p.Message(text="make it"))
    await chat.until(p.Turn, phase="end")
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0
    assert not any(isinstance(line, p.Approval) for line in chat.lines)
    decision = next(e["details"] for e in audit_lines() if e["kind"] == "policy.decision")
    assert "declared no approve effect" in decision["reason"]
    assert any(e["kind"] == "host.hello" for e in audit_lines())


@pytest.mark.parametrize(("answer", "outcome"), [({"text": "staging"}, "answered"),
                                                 ({"declined": True}, "declined")])  # fmt: skip
async def test_a_question_round_trip(front, script, audit_lines, answer, outcome) -> None:
    ask = {"question": "Which environment?", "options": ["staging", "production"]}
    chat = await front(
        "-m",
        f"script:{script({'tool_calls': [{'name': 'ask', 'arguments': ask}]}, {'text': 'ok'})}",
    )
    await chat.until(p.Status)
    await chat.send(p.Message(text="deploy"))
    question = await chat.until(p.Question)
    assert (question.options, question.free_text) == (["staging", "production"], False)
    await chat.send(p.Answer(id=question.id, **answer))
    await chat.until(p.Turn, phase="end")
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0
    settled = next(e["details"] for e in audit_lines() if e["kind"] == "inquiry.settled")
    assert settled["outcome"] == outcome
    result = next(e["details"]["output"] for e in audit_lines() if e["kind"] == "tool.result")
    assert result == ("answer: staging\noption: 1" if outcome == "answered" else
                      "error: the person declined to answer")  # fmt: skip


async def test_interrupt_stops_a_slow_reply_and_the_session_goes_on(
    front, script, audit_lines
) -> None:
    # Left alone, the reply streams for half a minute and ends "ok". How soon an interrupt
    # ends the turn is measured by bench/chat_startup.py.
    slow = {"text": "a slow reply " * 200, "delay_ms": 50}
    chat = await front("-m", f"script:{script(slow, {'text': 'second'})}")
    await chat.until(p.Status)
    await chat.send(p.Message(text="go"))
    await chat.until(p.Delta)
    await chat.send(p.Interrupt())
    end = await chat.until(p.Turn, phase="end")
    assert end.outcome == "stopped"
    await chat.until(p.Status)
    await chat.send(p.Message(text="again"))
    assert (await chat.until(p.Turn, phase="end")).outcome == "ok"
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0
    assert [e["kind"] for e in audit_lines()].count("turn.stopped") == 1


async def test_sigterm_during_a_turn_ends_like_quit(front, script, wisp_home) -> None:
    slow = {"text": "a slow reply " * 200, "delay_ms": 50}
    chat = await front("-m", f"script:{script(slow)}", "--save", "kept")
    await chat.until(p.Status)
    await chat.send(p.Message(text="go"))
    await chat.until(p.Delta)
    chat.process.send_signal(signal.SIGTERM)
    assert await chat.finish() == 0
    ends = [line for line in chat.lines if isinstance(line, p.Turn) and line.phase == "end"]
    assert ends and ends[0].outcome == "stopped"
    assert isinstance(chat.lines[-1], p.Exit)
    assert (wisp_home / "transcripts" / "kept.json").exists()


HOSTILE = [
    '{"type": "answer", "id": 7, "decision": []}',
    '{"type": "complete", "cursor": "x"}',
    '{"type": "unknown.kind", "x": 1}',
    '{"type": "choose", "values": "nope"}',
    '{"type": "hello", "effects": 3}',
    "[1, 2, 3]",
    '{"type": "interrupt", "extra": {"deep": [[[[[]]]]]}}',
    '{"type": "message", "text": ' + json.dumps("x" * 100_000)[:50],
    "\x00\x01\x02 binary \xff",
]


def hostile_lines(count: int) -> list[bytes]:
    """`count` lines a broken or hostile front end might write, the same on every run."""
    rng = random.Random(20261130)
    lines = []
    for n in range(count):
        choice = rng.randrange(4)
        if choice == 0:
            line = rng.choice(HOSTILE)
        elif choice == 1:
            line = (
                bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
                .decode("latin-1")
                .replace("\n", " ")
            )
        elif choice == 2:
            line = (
                '{"type": "answer", "id": "'
                + str(n)
                + '", "text": '
                + json.dumps("y" * rng.randrange(5000))
                + "}"
            )
        else:
            line = "{" * rng.randrange(1, 3000)
        if line.strip().startswith(("/", "!")) or not line.startswith(("{", "[", "\x00")):
            line = "{" + line  # never a slash command or a command of the person's own
        lines.append(line.encode("utf-8", "surrogateescape") + b"\n")
    return lines


async def test_ten_thousand_hostile_lines_never_crash_the_backend(front, script) -> None:
    chat = await front("-m", f"script:{script()}")
    await chat.until(p.Status)
    lines = hostile_lines(10_000)
    # docs/protocol.md, "5. Lines in (front end → wisp)": a line that is not a JSON object with a
    # string `type` is chat text, a turn of its own, which a script: model holding no responses ends
    # in an error (about 5,800 of them here); the rest are answered (`complete`) or skipped.
    chat_texts = sum(isinstance(p.read_inbound(line[:-1]), p.ChatText) for line in lines)

    async def write() -> None:
        assert chat.process.stdin is not None
        for line in lines:
            chat.process.stdin.write(line)
        chat.process.stdin.write(b'{"type":"message","text":"/quit"}\n')
        await chat.process.stdin.drain()

    # Progress is every line wisp writes: the wait is bounded between lines, not in all.
    async with asyncio.TaskGroup() as group:
        group.create_task(write())
        await chat.until(p.Exit)
    assert await chat.finish() == 0
    ends = [line for line in chat.lines if isinstance(line, p.Turn) and line.phase == "end"]
    assert len(ends) == chat_texts
    assert {end.outcome for end in ends} == {"error"}


def test_a_fatal_start_writes_nothing_on_stdout(run_wisp) -> None:
    result = run_wisp("chat", "--json", "-m", "nosuch:model")
    assert result.returncode == 1
    assert result.stdout == ""
    assert "no model backend 'nosuch'" in result.stderr


def test_stdin_that_cannot_be_watched_still_ends_the_chat(
    wisp_script: Path, wisp_env: dict[str, str], script
) -> None:
    import subprocess

    result = subprocess.run(
        [str(wisp_script), "chat", "--json", "-m", f"script:{script()}"],
        env=wisp_env, stdin=subprocess.DEVNULL, capture_output=True, timeout=HANG,
    )  # fmt: skip
    assert result.returncode == 0
    assert p.decode_outbound(result.stdout.splitlines()[-1]) == p.Exit()


async def test_completions_answer_at_once(front, script) -> None:
    chat = await front("-m", f"script:{script()}")
    await chat.until(p.Status)
    await chat.send(p.Complete(id="k1", text="/mo", cursor=3))
    completions = await chat.until(p.Completions)
    assert (completions.id, completions.from_, completions.candidates) == (
        "k1", 0, ["/model", "/models"]
    )  # fmt: skip
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0


async def test_the_models_choice_disables_and_enables_models(
    front, script, run_wisp, audit_lines
) -> None:
    other = f"script:{script({'text': 'other'})}"
    chat = await front("-m", f"script:{script()}")
    await chat.until(p.Status)
    await chat.send(p.Message(text=f"/models disable {other}"))
    await chat.until(p.Status)
    await chat.send(p.Message(text="/models"))
    choice = await chat.until(p.Choice)
    assert choice.toggles is True
    rows = {option.value: option.on for option in choice.options}
    assert rows["local"] is True and rows[other] is False
    await chat.send(p.Choose(id=choice.id, values=[value for value in rows]))  # all on
    note = await chat.until(p.Note)
    assert note.text == f"enabled {other}"
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0
    changes = [e["details"] for e in audit_lines() if e["kind"] == "config.change"]
    assert [(c["path"], c["source"]) for c in changes] == [("models.disabled", "chat")] * 2
    assert changes[0]["new"] == [other] and changes[1]["new"] is None
    assert run_wisp("config", "get", "models.disabled").stdout.strip() == "[]"


async def test_the_models_choice_switches_to_the_model_chosen_for_use(front, script) -> None:
    chat = await front("-m", f"script:{script()}")
    await chat.until(p.Status)
    await chat.send(p.Message(text="/models"))
    choice = await chat.until(p.Choice)
    values = [option.value for option in choice.options]
    assert "local" in values and choice.current != "local"
    await chat.send(p.Choose(id=choice.id, value="local", values=values))
    status = await chat.until(p.Status)
    assert status.model == "local"
    notes = [line.text for line in chat.lines if isinstance(line, p.Note)]
    assert "model: local; the transcript continues" in notes
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0


async def test_a_model_turned_off_cannot_be_chosen_for_use(front, script) -> None:
    chat = await front("-m", f"script:{script()}")
    await chat.until(p.Status)
    await chat.send(p.Message(text="/models"))
    choice = await chat.until(p.Choice)
    await chat.send(p.Choose(id=choice.id, value="local", values=[choice.current or ""]))
    status = await chat.until(p.Status)
    assert status.model == choice.current
    notes = [line.text for line in chat.lines if isinstance(line, p.Note)]
    assert "error: local is turned off, so it cannot be the model in use" in notes
    await chat.send(p.Message(text="/quit"))
    assert await chat.finish() == 0


async def test_sigterm_while_a_choice_waits_still_ends_the_chat(front, script) -> None:
    chat = await front("-m", f"script:{script()}")
    await chat.until(p.Status)
    await chat.send(p.Message(text="/models"))
    await chat.until(p.Choice)
    chat.process.send_signal(signal.SIGTERM)
    assert await chat.finish() == 0
    assert isinstance(chat.lines[-1], p.Exit)


async def test_stdin_closing_while_a_choice_waits_still_ends_the_chat(front, script) -> None:
    chat = await front("-m", f"script:{script()}")
    await chat.until(p.Status)
    await chat.send(p.Message(text="/models"))
    await chat.until(p.Choice)
    assert chat.process.stdin is not None
    chat.process.stdin.close()
    assert await chat.finish() == 0
    assert isinstance(chat.lines[-1], p.Exit)
