"""No turn is lost and no save fails with a traceback (docs/store.md, "Saving and resuming"): real
`wisp` processes, real files under a temporary WISP_HOME, a real kill -9 and a real full disk."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
from pathlib import Path

import pytest

from tests.full_disk import tiny_tmpfs
from tests.hang import HANG
from wisp import protocol as p
from wisp.store import transcripts


class Chat:
    """`wisp chat --json` as a front end drives it: lines in, every line out kept."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[p.Outbound] = []

    @classmethod
    async def start(cls, wisp: Path, env: dict[str, str], cwd: Path, *args: str) -> Chat:
        process = await asyncio.create_subprocess_exec(
            str(wisp), "chat", "--json", *args, env=env, cwd=cwd,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, limit=1 << 24,
        )  # fmt: skip
        return cls(process)

    async def send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(p.encode_line(p.Message(text=text)))
        await self.process.stdin.drain()

    async def until(self, kind: type, **fields: object) -> p.Outbound:
        assert self.process.stdout is not None
        while True:
            raw = await asyncio.wait_for(self.process.stdout.readline(), HANG)
            assert raw, "wisp closed stdout"
            line = p.decode_outbound(raw)
            assert line is not None, raw
            self.lines.append(line)
            if isinstance(line, kind) and all(getattr(line, k) == v for k, v in fields.items()):
                return line

    async def finish(self) -> tuple[int, str]:
        """Close stdin (the end of input ends the chat); the exit status and stderr."""
        out, err = await asyncio.wait_for(self.process.communicate(b""), HANG)
        self.lines += [line for raw in out.splitlines() if (line := p.decode_outbound(raw))]
        assert self.process.returncode is not None
        return self.process.returncode, err.decode()

    def notes(self) -> list[str]:
        return [line.text for line in self.lines if isinstance(line, p.Note)]

    def reply(self) -> str:
        return "".join(line.text for line in self.lines if isinstance(line, p.Delta))


@pytest.fixture
def script(tmp_path: Path):
    def write(*responses: dict) -> Path:
        path = tmp_path / f"script-{random.randrange(1 << 30)}.json"
        path.write_text(json.dumps({"responses": list(responses)}))
        return path

    return write


@pytest.fixture
async def chat(wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path):
    started: list[Chat] = []

    async def start(*args: str) -> Chat:
        started.append(await Chat.start(wisp_script, wisp_env, tmp_path, *args))
        return started[-1]

    yield start
    for each in started:
        if each.process.returncode is None:
            each.process.kill()
            await each.process.communicate()


def _no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr


# -- a turn is saved when it ends ------------------------------------------------------------


async def test_a_turn_survives_kill_9_once_its_end_line_is_out(chat, script, wisp_home) -> None:
    session = await chat("-m", f"script:{script({'text': 'Kept.'})}", "--save", "kept")
    await session.until(p.Status)
    await session.send("remember this")
    await session.until(p.Turn, phase="end")
    session.process.send_signal(signal.SIGKILL)
    assert await asyncio.wait_for(session.process.wait(), HANG) == -signal.SIGKILL
    store = transcripts.load(wisp_home / "transcripts", "kept").store
    assert [(e.kind, e.text) for e in store if e.kind in ("prompt", "response")] == [
        ("prompt", "remember this"), ("response", "Kept."),
    ]  # fmt: skip


async def test_kill_9_frees_the_conversation_for_the_next_wisp(
    chat, script, run_wisp, wisp_home
) -> None:
    session = await chat("-m", f"script:{script({'text': 'Kept.'})}", "--save", "kept")
    await session.until(p.Status)
    await session.send("remember this")
    await session.until(p.Turn, phase="end")
    session.process.send_signal(signal.SIGKILL)
    await asyncio.wait_for(session.process.wait(), HANG)
    result = run_wisp("-m", f"script:{script({'text': 'Again.'})}", "--resume", "kept", "more")
    assert result.returncode == 0, result.stderr
    prompts = [e.text for e in transcripts.load(wisp_home / "transcripts", "kept").store
               if e.kind == "prompt"]  # fmt: skip
    assert prompts == ["remember this", "more"]


# -- one wisp at a time on a named conversation ------------------------------------------------


async def test_a_second_chat_on_an_open_conversation_is_refused_with_the_holders_pid(
    chat, script, run_wisp, wisp_home
) -> None:
    saved = run_wisp("-m", f"script:{script({'text': 'a'})}", "--save", "shared", "hi")
    assert saved.returncode == 0, saved.stderr
    first = await chat("-m", f"script:{script({'text': 'one'})}", "--resume", "shared")
    await first.until(p.Status)
    second = await chat("-m", f"script:{script({'text': 'two'})}", "--resume", "shared")
    code, stderr = await second.finish()
    _no_traceback(stderr)
    assert code != 0
    assert f"pid {first.process.pid}" in stderr and "'shared'" in stderr
    assert len(stderr.strip().splitlines()) == 1
    # The first goes on, and saves its turn as ever.
    await first.send("mine")
    await first.until(p.Turn, phase="end")
    code, stderr = await first.finish()
    assert code == 0, stderr
    prompts = [e.text for e in transcripts.load(wisp_home / "transcripts", "shared").store
               if e.kind == "prompt"]  # fmt: skip
    assert prompts == ["hi", "mine"]


async def test_a_one_shot_on_an_open_conversation_is_refused_too(chat, script, run_wisp) -> None:
    first = await chat("-m", f"script:{script({'text': 'one'})}", "--save", "shared")
    await first.until(p.Status)
    await first.send("mine")
    await first.until(p.Turn, phase="end")  # saved: a resume would find it
    result = run_wisp("-m", f"script:{script({'text': 'two'})}", "--resume", "shared", "hi")
    _no_traceback(result.stderr)
    assert result.returncode == 1
    assert f"pid {first.process.pid}" in result.stderr
    assert result.stdout == ""  # refused before the model was asked


async def test_slash_save_to_an_open_conversation_is_refused_and_the_chat_goes_on(
    chat, script
) -> None:
    first = await chat("-m", f"script:{script({'text': 'one'})}", "--save", "shared")
    await first.until(p.Status)
    second = await chat("-m", f"script:{script({'text': 'two'})}")
    await second.until(p.Status)
    await second.send("/save shared")
    await second.until(p.Status)
    assert any(f"pid {first.process.pid}" in note for note in second.notes())
    code, stderr = await second.finish()
    assert code == 0, stderr  # it never had a name to save under


# -- a save that fails is one line, the reply stands, the status says so ---------------------


def _unwritable(wisp_home: Path) -> Path:
    """transcripts/ as a regular file: nothing can be made in it, root or not."""
    wisp_home.mkdir(mode=0o700)
    folder = wisp_home / "transcripts"
    folder.write_text("not a folder")
    return folder


def test_a_one_shot_whose_save_fails_prints_the_reply_then_one_error(
    run_wisp, script, wisp_home
) -> None:
    folder = _unwritable(wisp_home)
    result = run_wisp("-m", f"script:{script({'text': 'The reply.'})}", "--save", "n", "hi")
    _no_traceback(result.stderr)
    assert result.returncode == 1
    assert result.stdout == "The reply.\n"
    errors = [line for line in result.stderr.splitlines() if str(folder / "n.json") in line]
    assert len(errors) == 1 and "Not a directory" in errors[0]


async def test_a_chat_whose_save_fails_says_so_at_the_turn_and_exits_non_zero(
    chat, script, wisp_home
) -> None:
    folder = _unwritable(wisp_home)
    session = await chat("-m", f"script:{script({'text': 'The reply.'})}", "--save", "n")
    await session.until(p.Status)
    await session.send("hi")
    await session.until(p.Turn, phase="end")
    assert session.reply() == "The reply."
    assert any(str(folder / "n.json") in note and "Not a directory" in note
               for note in session.notes())  # fmt: skip
    code, stderr = await session.finish()
    _no_traceback(stderr)
    assert code == 1
    assert isinstance(session.lines[-1], p.Exit)


# About 100 kB, no word twice, and no template either ("word1 word2 …" counts on, a runaway).
BIG_REPLY = " ".join(f"{n * 2654435761 % 2**32:x}" for n in range(12_000))


def allow_a_long_reply(home: Path) -> None:
    """WISP_HOME whose config lets one reply run to 100 kB (the default cap cuts sooner)."""
    home.mkdir(mode=0o700)
    (home / "config.json").write_text(json.dumps({"agent": {"maxReplyTokens": 50_000}}))


def test_a_one_shot_on_a_full_disk_prints_the_reply_then_one_error(
    run_wisp, script, wisp_home
) -> None:
    big = BIG_REPLY  # more than the 64 kB disk holds
    allow_a_long_reply(wisp_home)
    with tiny_tmpfs(wisp_home / "transcripts") as folder:
        result = run_wisp("-m", f"script:{script({'text': big})}", "--save", "big", "hi")
        leftovers = sorted(name for name in os.listdir(folder) if name != "big.lock")
    _no_traceback(result.stderr)
    assert result.returncode == 1
    assert result.stdout == big + "\n"  # the whole reply stands
    errors = [line for line in result.stderr.splitlines() if str(folder / "big.json") in line]
    assert len(errors) == 1 and "No space left on device" in errors[0]
    assert leftovers == []  # no half-written temporary file left behind


async def test_a_chat_on_a_full_disk_keeps_going_and_exits_non_zero(
    chat, script, wisp_home
) -> None:
    big = BIG_REPLY
    allow_a_long_reply(wisp_home)
    with tiny_tmpfs(wisp_home / "transcripts") as folder:
        session = await chat(
            "-m", f"script:{script({'text': big}, {'text': 'small'})}", "--save", "big"
        )
        await session.until(p.Status)
        await session.send("hi")
        await session.until(p.Turn, phase="end")
        await session.until(p.Status)
        await session.send("again")  # the chat goes on after a failed save
        end = await session.until(p.Turn, phase="end")
        code, stderr = await session.finish()
    _no_traceback(stderr)
    assert end.outcome == "ok"
    assert code == 1
    failed = [note for note in session.notes() if str(folder / "big.json") in note]
    assert failed and all("No space left on device" in note for note in failed)
