"""Long sessions (docs/turn.md, "Long conversations"): a long chat stays within its window, and
composing a request costs the same late in a conversation as early.

    python bench/context.py chat                   # 40 turns on `local`, window 8,192
    python bench/context.py chat --turns 5         # a few minutes less
    python bench/context.py chat -m local:/path/model.gguf   # a tool-calling GGUF reads the files
    python bench/context.py chat --kept --turns 16 --window 4096   # facts and the summary on
    python bench/context.py compose                # composing at turn 2,000 ÷ at turn 10
    python bench/context.py compose --profile      # and where the late request's time goes

``chat`` runs the real ``wisp chat --json -m MODEL`` in a fresh ``WISP_HOME`` whose config.json
sets ``local.contextLength`` to ``--window`` (nothing else), in a folder of ``--turns`` files of
``--file-bytes`` bytes each (``notes-01.txt``, …), one turn a file. A model offered
``read_file`` (the ``hello`` line lists it) is asked to read the turn's file; one offered no
tools (the shipped SmolLM2-135M is text only) gets the file's text in the prompt. Every
``context`` line after a request is the runtime's own count of that request's prompt; the one
right after a ``context.condensation`` event is wisp's estimate of what the next request will
carry, and is kept apart. Reported: turns ok and failed (with the error notes), condensations
(budget and overflow), the highest share of the window any request used against the budget
(0.85), and the wall time. A line a turn goes to stderr as it runs.

``chat`` turns off facts and the running summary (``facts.enabled: false``,
``context.summaryBatch: 0``), so its figures are condensing's own; ``--kept`` leaves them on
(docs/turn.md, "Distillation", "The running summary") and reports besides what they cost and
save: the seconds the distillation and summary calls add to each condensation (a combined call
counted once), the facts distilled, the summary versions written and their failures, and the
tokens per request the newest summary saves against carrying the turns it covers (the
condensations' dropped tokens, less the summary's bytes ÷ 4).

``compose`` builds two conversations in process over the ``script:`` backend with a declared
window (``--window``), each turn reading a file of ``--file-bytes`` with the real
``read_file`` and replying: one run to ``--early`` turns, one to ``--turns`` turns. It then
times, for each, what happens before the backend is called for the next turn's first request
(``ContextPlanner.plan_before`` for the pending prompt and ``Conversation.messages``; the
plan is not carried out, so every call does the same work), interleaved over ``--rounds``
rounds, each the best of five timeit runs. The ratio is
late ÷ early: the median of the rounds' ratios, and the fastest late over the fastest early.
Each part is also timed alone, so a part that grows with the store shows by name;
``--profile`` runs cProfile over both.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import json
import os
import platform
import pstats
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import timeit
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

WISP = Path(sys.executable).parent / "wisp"
BUDGET = 0.85
SUBJECTS = (
    "the ferry", "the lighthouse", "the orchard", "the bakery", "the library", "the bridge",
    "the glacier", "the market", "the observatory", "the vineyard", "the quarry", "the harbour",
    "the tram line", "the beehives", "the mill", "the archive",
)  # fmt: skip


# -- the files each turn reads ----------------------------------------------------------------


def note_text(number: int, size: int) -> tuple[str, str]:
    """A file of ``size`` bytes of prose about one subject, and the code word it holds."""
    subject = SUBJECTS[(number - 1) % len(SUBJECTS)]
    word = f"{subject.split()[-1].upper()}-{number:02}"
    weather = ("fair", "windy", "grey", "wet", "cold", "bright")
    sentences = [f"These are the notes of week {number} about {subject}."]
    day = 1
    while sum(len(part) + 1 for part in sentences) < size:
        sentences.append(
            f"On day {day} the keeper of {subject} counted {(number * 37 + day * 11) % 500} "
            f"visitors, and the weather was {weather[(number + day) % len(weather)]}."
        )
        if day == 3:
            sentences.append(f"The code word for this week is {word}.")
        day += 1
    return " ".join(sentences)[:size], word


def write_notes(folder: Path, turns: int, size: int) -> list[tuple[str, str, str]]:
    """``(name, text, code word)`` for each turn's file, written into ``folder``."""
    notes = []
    for number in range(1, turns + 1):
        text, word = note_text(number, size)
        name = f"notes-{number:02}.txt"
        (folder / name).write_text(text)
        notes.append((name, text, word))
    return notes


def prompt_for(name: str, text: str, subject: str, tools: bool) -> str:
    question = f"what does it say about {subject}, and what is its code word? Answer briefly."
    if tools:
        return f"Read the file {name} with read_file: {question}"
    return f"Here is {name}:\n\n{text}\n\nIn {name}, {question}"


# -- 1. a long chat through `wisp chat --json` ------------------------------------------------


@dataclass
class TurnRecord:
    number: int
    outcome: str
    seconds: float
    requests: list[dict[str, Any]] = field(default_factory=list)
    """The ``context`` lines after each request: the runtime's count of its prompt."""
    condensations: list[dict[str, Any]] = field(default_factory=list)
    distillations: list[dict[str, Any]] = field(default_factory=list)
    summaries: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    reads: int = 0
    reply: str = ""
    word_in_reply: bool = False


@dataclass
class ChatReport:
    model: str
    window: int
    tools: bool
    turns: list[TurnRecord]
    seconds: float
    wisp_stderr: str = ""

    @property
    def summary(self) -> dict[str, Any]:
        requests = [(t.number, r) for t in self.turns for r in t.requests]
        top_turn, top = max(requests, key=lambda pair: pair[1]["used"] or 0, default=(0, {}))
        condensations = [c for t in self.turns for c in t.condensations]
        return {
            "model": self.model,
            "window": self.window,
            "tools": self.tools,
            "turns": len(self.turns),
            "ok": sum(t.outcome == "ok" for t in self.turns),
            "failed": [(t.number, t.outcome, t.errors) for t in self.turns if t.outcome != "ok"],
            "requests": len(requests),
            "condensations": len(condensations),
            "overflows": sum(c.get("reason") == "overflow" for c in condensations),
            "floors": sum(bool(c.get("floor")) for c in condensations),
            "maxUsed": top.get("used"),
            "maxTokens": top.get("tokens"),
            "maxTurn": top_turn,
            "budget": BUDGET,
            "underBudget": all((r["used"] or 0) < BUDGET for _, r in requests),
            "reads": sum(t.reads for t in self.turns),
            "codeWordsAnswered": sum(t.word_in_reply for t in self.turns),
            "seconds": round(self.seconds, 1),
            **self.kept,
        }

    @property
    def kept(self) -> dict[str, Any]:
        """What distillation and the running summary cost and save (``--kept``)."""
        distillations = [d for t in self.turns for d in t.distillations]
        summaries = [s for t in self.turns for s in t.summaries]
        if not distillations and not summaries:
            return {}
        condensed = [t for t in self.turns if t.condensations]
        seconds = [_side_seconds(t) for t in condensed]
        newest, covered, dropped = None, 0, 0
        for turn in condensed:  # the tokens of the turns the newest summary covers
            dropped += sum(c["fillBefore"] - c["fillAfter"] for c in turn.condensations)
            for written in (s for s in turn.summaries if "version" in s):
                newest, covered = written, dropped
        return {
            "distillations": len(distillations),
            "distillationFailures": [d.get("failure") for d in distillations if "failure" in d],
            "factsDistilled": sum(len(d.get("facts", [])) for d in distillations),
            "summaries": len(summaries),
            "summaryFailures": [s.get("failure") for s in summaries if "failure" in s],
            "sideSecondsPerCondensation": round(statistics.mean(seconds), 1) if seconds else 0,
            "summaryTokens": newest["summaryBytes"] // 4 if newest else 0,
            "droppedTokens": covered,
            "tokensSavedPerRequest": covered - newest["summaryBytes"] // 4 if newest else 0,
        }


def _side_seconds(turn: TurnRecord) -> float:
    """The seconds a turn's side calls took: a combined call (its summary and distillation
    share one time) once."""
    calls = {("d", i): d["seconds"] for i, d in enumerate(turn.distillations)}
    calls.update(
        {("s", i): s["seconds"] for i, s in enumerate(turn.summaries) if not s.get("combined")}
    )
    return sum(calls.values())


class ChatProcess:
    """One ``wisp chat --json``, its stdout read line by line on a thread."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path, log: Path) -> None:
        self.stderr = log.open("wb")
        self.process = subprocess.Popen(
            command, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.stderr,
        )  # fmt: skip
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            with contextlib.suppress(ValueError):
                self.lines.put(json.loads(raw))
        self.lines.put(None)

    def send(self, line: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(line).encode() + b"\n")
        self.process.stdin.flush()

    def next(self, deadline: float) -> dict[str, Any] | None:
        """The next line, or None at the end of the output; TimeoutError past ``deadline``."""
        try:
            return self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError from None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.send({"type": "message", "text": "/quit"})
        with contextlib.suppress(OSError):
            assert self.process.stdin is not None
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.stderr.close()


def chat_config(window: int, kept: bool = False) -> dict[str, Any]:
    config: dict[str, Any] = {"local": {"contextLength": window}}
    if not kept:  # condensing alone: no facts distilled, no summary written
        config.update(facts={"enabled": False}, context={"summaryBatch": 0})
    return config


def run_chat(
    model: str,
    *,
    turns: int,
    window: int,
    file_bytes: int,
    timeout: float,
    no_tools: bool = False,
    kept: bool = False,
    progress: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> ChatReport:
    with tempfile.TemporaryDirectory(prefix="wisp-context-bench-") as temp:
        root = Path(temp)
        home, work = root / "home", root / "work"
        home.mkdir()
        work.mkdir()
        (home / "config.json").write_text(json.dumps(chat_config(window, kept)))
        notes = write_notes(work, turns, file_bytes)
        env = {**os.environ, "WISP_HOME": str(home)}
        command = [str(WISP), "chat", "--json", "-m", model, *(["--no-tools"] if no_tools else [])]
        started = time.monotonic()
        chat = ChatProcess(command, env, work, root / "wisp.stderr")
        try:
            tools = _ready(chat, started + timeout)
            how = "reads with read_file" if tools else "text only: the file in the prompt"
            progress(f"{model}: window {window:,}, {how}")
            records = []
            for number, (name, text, word) in enumerate(notes, start=1):
                subject = SUBJECTS[(number - 1) % len(SUBJECTS)]
                chat.send({"type": "message", "text": prompt_for(name, text, subject, tools)})
                record = _turn(chat, number, time.monotonic() + timeout)
                record.word_in_reply = word.lower() in record.reply.lower()
                records.append(record)
                progress(_progress_line(record, turns))
                if record.outcome == "lost":
                    break
        finally:
            chat.close()
        stderr = (root / "wisp.stderr").read_text(errors="replace")
        return ChatReport(model, window, tools, records, time.monotonic() - started, stderr)


def _ready(chat: ChatProcess, deadline: float) -> bool:
    """Waits for the first ``status``; whether the model was offered ``read_file``."""
    tools = False
    while (line := chat.next(deadline)) is not None:
        if line.get("type") == "hello":
            tools = "read_file" in line.get("tools", [])
        elif line.get("type") == "status":
            return tools
    raise RuntimeError("wisp ended before its first status line")


def _turn(chat: ChatProcess, number: int, deadline: float) -> TurnRecord:
    record = TurnRecord(number, "lost", 0.0)
    started = time.monotonic()
    after_condensation = False
    reply: list[str] = []
    try:
        while (line := chat.next(deadline)) is not None:
            kind = line.get("type")
            if kind == "context":
                fill = {key: line.get(key) for key in ("tokens", "window", "used")}
                if not after_condensation:
                    record.requests.append(fill)
                after_condensation = False
                continue
            after_condensation = False
            if kind == "event" and line.get("kind") == "context.condensation":
                record.condensations.append(line.get("details", {}))
                after_condensation = True
            elif kind == "event" and line.get("kind") == "context.distillation":
                record.distillations.append(line.get("details", {}))
            elif kind == "event" and line.get("kind") == "context.summary":
                record.summaries.append(line.get("details", {}))
            elif kind == "event" and line.get("kind") == "tool.call":
                record.reads += line.get("details", {}).get("tool") == "read_file"
            elif kind == "delta":
                reply.append(line.get("text", ""))
            elif kind == "note" and str(line.get("text", "")).startswith("error"):
                record.errors.append(line["text"])
            elif kind == "approval":
                chat.send({"type": "answer", "id": line["id"], "decision": "no"})
            elif kind == "question":
                chat.send({"type": "answer", "id": line["id"], "text": ""})
            elif kind == "turn" and line.get("phase") == "end":
                record.outcome = line.get("outcome", "?")
                break
    except TimeoutError:
        record.outcome = "timeout"
        record.errors.append("the turn ran past --timeout")
    record.seconds = time.monotonic() - started
    record.reply = "".join(reply)
    return record


def _progress_line(record: TurnRecord, turns: int) -> str:
    used = [r["used"] for r in record.requests if r["used"] is not None]
    tokens = [r["tokens"] for r in record.requests]
    parts = [
        f"turn {record.number}/{turns}: {record.outcome}",
        f"{record.seconds:.1f} s",
        f"{len(record.requests)} request{'s' if len(record.requests) != 1 else ''}",
    ]
    if record.reads:
        parts.append(f"{record.reads} read{'s' if record.reads != 1 else ''}")
    if tokens:
        parts.append(f"prompt {max(tokens):,} tokens ({max(used or [0]):.2f} of the window)")
    for condensation in record.condensations:
        parts.append(
            f"condensed ({condensation.get('reason')}: {condensation.get('turnsBefore')} → "
            f"{condensation.get('turnsAfter')} turns, {condensation.get('fillBefore')} → "
            f"{condensation.get('fillAfter')} tokens)"
        )
    if record.distillations or record.summaries:
        parts.append(f"side calls {_side_seconds(record):.1f} s")
    parts += record.errors
    return ", ".join(parts)


def print_chat(report: ChatReport) -> None:
    s = report.summary
    print(
        f"model {s['model']}, window {s['window']:,}, {'read_file' if s['tools'] else 'text only'}"
    )
    print(f"turns ok {s['ok']} of {s['turns']}; failed: {s['failed'] or 'none'}")
    print(
        f"requests {s['requests']}; condensations {s['condensations']} "
        f"({s['overflows']} on overflow, {s['floors']} at the floor)"
    )
    print(
        f"highest share of the window a request used: {s['maxUsed']} ({s['maxTokens']} tokens, "
        f"turn {s['maxTurn']}); budget {s['budget']}: "
        f"{'every request under it' if s['underBudget'] else 'EXCEEDED'}"
    )
    if s["tools"]:
        print(f"read_file calls: {s['reads']}")
    print(f"replies naming the file's code word: {s['codeWordsAnswered']} of {s['turns']}")
    print(f"wall time {s['seconds']} s")
    if "distillations" in s:
        print(
            f"distillations {s['distillations']} ({s['factsDistilled']} facts; failures: "
            f"{s['distillationFailures'] or 'none'}); summaries {s['summaries']} (failures: "
            f"{s['summaryFailures'] or 'none'})"
        )
        print(f"side calls per condensation: {s['sideSecondsPerCondensation']} s")
        print(
            f"the newest summary: {s['summaryTokens']} tokens for {s['droppedTokens']} tokens "
            f"of dropped turns, {s['tokensSavedPerRequest']} tokens saved per request"
        )


# -- 2. the cost of composing a request, early and late ---------------------------------------


@dataclass
class Point:
    """One conversation run to ``turn`` turns, and what composing its next request cost."""

    turn: int
    entries: int
    live: int
    condensations: int
    us: list[float] = field(default_factory=list)
    """Each round's best µs for one composition."""
    parts: dict[str, float] = field(default_factory=dict)
    """Each part's best µs over the rounds, timed alone."""

    @property
    def median(self) -> float:
        return statistics.median(self.us)


@dataclass
class ComposeReport:
    points: list[Point]
    build_seconds: float
    profile: str = ""

    def ratio(self, late: Point, early: Point) -> tuple[float, float]:
        """late ÷ early: the median of the rounds' ratios, and best ÷ best."""
        rounds = [b / a for a, b in zip(early.us, late.us, strict=True)]
        return statistics.median(rounds), min(late.us) / min(early.us)

    @property
    def summary(self) -> dict[str, Any]:
        first, last = self.points[0], self.points[-1]
        median, best = self.ratio(last, first)
        return {
            "points": [
                {
                    "turn": p.turn,
                    "entries": p.entries,
                    "liveEntries": p.live,
                    "condensations": p.condensations,
                    "medianUs": round(p.median, 1),
                    "bestUs": round(min(p.us), 1),
                    "usPerLiveEntry": round(p.median / p.live, 2),
                    "partsUs": {name: round(us, 1) for name, us in p.parts.items()},
                }
                for p in self.points
            ],
            "ratioMedian": round(median, 3),
            "ratioBest": round(best, 3),
            "ratios": {
                f"{last.turn}/{p.turn}": round(self.ratio(last, p)[0], 3) for p in self.points[:-1]
            },
            "buildSeconds": round(self.build_seconds, 1),
        }


class Built:
    """A conversation run to some turn, and what composing its next first request takes."""

    def __init__(self, conversation: Any, sink: Any) -> None:
        from wisp.agent.prompt import tool_specs

        self.conversation = conversation
        self.sink = sink
        self.history: list[tuple[int, int]] = []
        """After each turn: the live entries, and how many condensations the turn made."""
        self.specs = tool_specs(conversation.tools, conversation.resolved.context_size)
        self.next_turn()

    def next_turn(self) -> None:
        from wisp.agent.turn_state import TurnState
        from wisp.store import PendingEntry

        number = self.conversation.turn + 1
        self.turn = TurnState(number, time.monotonic())
        self.turn.pending.append(PendingEntry("prompt", f"read the file again ({number})"))

    def point(self) -> Point:
        store = self.conversation.store
        return Point(
            turn=self.conversation.turn,
            entries=len(store),
            live=sum(1 for _ in store.live()),
            condensations=sum(e.kind == "context.condensation" for e in self.sink.events),
        )

    def compose(self) -> int:
        """Everything before the backend is called for the turn's first request."""
        self.turn.headroom = None  # worked out afresh, as a new turn does
        self.conversation.planner.plan_before(self.turn)
        return len(self.conversation.messages(self.turn.pending))

    def parts(self) -> dict[str, Callable[[], object]]:
        """The parts of ``compose``, and the ones ``plan_before`` is made of, to time alone (its
        row keeps the name ``_plan_before`` it had as a method of ``Conversation``, so runs
        before and after read alike)."""
        from wisp.agent.types import ChatRequest

        conversation, turn = self.conversation, self.turn
        messages = conversation.messages(turn.pending)
        meter = conversation.meter

        def plan() -> object:
            turn.headroom = None
            return conversation.planner.plan_before(turn)

        return {
            "_plan_before": plan,
            "  meter.live_turns": meter.live_turns,
            "  meter.headroom": meter.headroom,
            "messages": lambda: conversation.messages(turn.pending),
            "estimated_tokens": lambda: ChatRequest(messages, self.specs).estimated_tokens(),
            "store.live (iterated)": lambda: sum(1 for _ in conversation.store.live()),
            # Reaching the first live entry: what getting past the dropped ones costs.
            "store.live (first)": lambda: next(conversation.store.live(), None),
        }


async def build_conversation(folder: Path, turns: int, window: int, file_bytes: int) -> Built:
    from wisp.agent.loop import Conversation
    from wisp.agent.prompt import system_prompt
    from wisp.agent.recorder import Recorder
    from wisp.audit import AuditLog, MemorySink
    from wisp.config import Config
    from wisp.models.script import resolve
    from wisp.store import ConversationStore, PendingEntry
    from wisp.tools.read_file import ReadFileTool

    folder.mkdir(parents=True, exist_ok=True)
    text, _ = note_text(1, file_bytes)
    path = folder / "notes.txt"
    path.write_text(text)
    responses: list[dict[str, Any]] = []
    for number in range(1, turns + 1):
        responses.append({"tool_calls": [{"name": "read_file", "arguments": {"path": str(path)}}]})
        responses.append({"text": f"Turn {number}: the notes are read."})
    script = folder / "script.json"
    script.write_text(json.dumps({"responses": responses, "contextSize": window}))
    model = await resolve(str(script))
    instructions = system_prompt(
        has_tools=True, has_memory=False, extension=None, instructions=None
    )
    store = ConversationStore()
    store.add(PendingEntry("instructions", instructions), turn=None, origin="carried", time=None)
    sink = MemorySink()
    conversation = Conversation(
        model=model,
        tools=[ReadFileTool()],
        store=store,
        recorder=Recorder(AuditLog(sink, session="5e55105e5e55105e"), lambda _: None),
        instructions=instructions,
        home=folder / "home",
        config=Config(folder / "config.json", {}),
        working_directory=folder,
        audit_file=None,
    )
    built = Built(conversation, sink)
    seen = 0
    for number in range(1, turns + 1):
        result = await conversation.run_turn(f"read the file again ({number})")
        if result.outcome != "ok":
            raise RuntimeError(f"turn {number} ended {result.outcome}: {result.error}")
        new, seen = sink.events[seen:], len(sink.events)
        condensed = sum(e.kind == "context.condensation" for e in new)
        built.history.append((sum(1 for _ in store.live()), condensed))
    built.next_turn()
    return built


def best_us(function: Callable[[], object], repeat: int = 5, seconds: float = 0.05) -> float:
    """The fastest of ``repeat`` timeit runs, each of enough calls to last about ``seconds``."""
    timer = timeit.Timer(function)
    number, spent = timer.autorange()  # at least 0.2 s of calls
    number = max(1, round(number * seconds / spent))
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e6


def run_compose(
    *, at: list[int], window: int, file_bytes: int, rounds: int, profile: bool, matched: bool
) -> ComposeReport:
    """``at``'s turns, and with ``matched`` the first turn after a condensation whose request
    carries as many live entries as the last one's: the same fill, a shorter store."""
    with tempfile.TemporaryDirectory(prefix="wisp-compose-bench-") as temp:
        root = Path(temp)
        started = time.monotonic()

        def build(turn: int) -> Built:
            folder = root / f"turn-{turn}"
            return asyncio.run(build_conversation(folder, turn, window, file_bytes))

        last = build(at[-1])
        built = {at[-1]: last}
        if matched and (turn := _same_fill(last.history)) is not None:
            built[turn] = build(turn)
        for turn in at[:-1]:
            built.setdefault(turn, build(turn))
        order = [built[turn] for turn in sorted(built)]
        build_seconds = time.monotonic() - started
        points = [b.point() for b in order]
        parts = [b.parts() for b in order]
        for round_ in range(rounds):
            # The order turns from round to round, so a busy moment falls on each alike.
            shift = round_ % len(order)
            for index in [*range(shift, len(order)), *range(shift)]:
                point = points[index]
                point.us.append(best_us(order[index].compose))
                for name, part in parts[index].items():
                    us = best_us(part)
                    point.parts[name] = min(point.parts.get(name, us), us)
        profiled = _profile(order) if profile else ""
        return ComposeReport(points, build_seconds, profiled)


def _same_fill(history: list[tuple[int, int]]) -> int | None:
    """The first turn, after the first condensation and before the last turn, that leaves as
    many live entries as the last turn does (the conversation's turns are all alike, so the
    condensations repeat with a period)."""
    live = history[-1][0]
    condensed = False
    for turn, (count, condensations) in enumerate(history[:-1], start=1):
        condensed = condensed or condensations > 0
        if condensed and count == live:
            return turn
    return None


def _profile(order: list[Built], calls: int = 2000) -> str:
    out = io.StringIO()
    for built in order:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(calls):
            built.compose()
        profiler.disable()
        turn = built.conversation.turn
        out.write(f"== turn {turn}: {calls} compositions, by own time ==\n")
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(14)
    return out.getvalue()


def print_compose(report: ComposeReport) -> None:
    s = report.summary
    rounds = len(report.points[0].us)
    print(f"composing a request (median of {rounds} rounds, each the best of 5 timeit runs):")
    print("   turn  entries   live  condensations  median µs  best µs  µs/live entry")
    for p in s["points"]:
        print(
            f"  {p['turn']:>5} {p['entries']:>8} {p['liveEntries']:>6} {p['condensations']:>14}"
            f" {p['medianUs']:>10} {p['bestUs']:>8} {p['usPerLiveEntry']:>14}"
        )
    first, last = s["points"][0]["turn"], s["points"][-1]["turn"]
    print(
        f"  turn {last} ÷ turn {first}: {s['ratioMedian']} (median of the rounds' ratios), "
        f"{s['ratioBest']} (best ÷ best); target ≤ 1.5"
    )
    for pair, ratio in list(s["ratios"].items())[1:]:
        print(f"  turn {pair.replace('/', ' ÷ turn ')}: {ratio} (median of the rounds' ratios)")
    print("each part alone, best µs of the rounds, by turn:")
    names = list(report.points[0].parts)
    print("  " + " " * 22 + "".join(f"{p.turn:>10}" for p in report.points))
    for name in names:
        print(f"  {name:22}" + "".join(f"{p.parts[name]:10.1f}" for p in report.points))
    print(f"(the conversations were built in {s['buildSeconds']} s)")
    if report.profile:
        print(report.profile)


# -- the command line -------------------------------------------------------------------------


def machine() -> str:
    python = platform.python_version()
    return f"{os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, Python {python}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    sub = parser.add_subparsers(dest="bench", required=True)
    chat = sub.add_parser("chat", help="a long chat through wisp chat --json")
    chat.add_argument("-m", "--model", default="local")
    chat.add_argument("--turns", type=int, default=40)
    chat.add_argument("--window", type=int, default=8192)
    chat.add_argument("--file-bytes", type=int, default=1024)
    chat.add_argument("--timeout", type=float, default=900, help="seconds a turn may take")
    chat.add_argument("--no-tools", action="store_true", help="offer the model no tools")
    chat.add_argument(
        "--kept", action="store_true", help="facts and the running summary on, and their cost"
    )
    compose = sub.add_parser("compose", help="composing a request at a late turn ÷ an early one")
    compose.add_argument(
        "--at",
        default="10,2000",
        help="the turns to compose at, comma-separated; the last ÷ the first is the ratio",
    )
    compose.add_argument(
        "--no-matched",
        dest="matched",
        action="store_false",
        help="leave out the turn whose request carries as many live entries as the last's",
    )
    compose.add_argument("--window", type=int, default=8192)
    compose.add_argument("--file-bytes", type=int, default=1536)
    compose.add_argument("--rounds", type=int, default=9)
    compose.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    if args.bench == "chat":
        report = run_chat(
            args.model,
            turns=args.turns,
            window=args.window,
            file_bytes=args.file_bytes,
            timeout=args.timeout,
            no_tools=args.no_tools,
            kept=args.kept,
        )
        if args.json:
            print(json.dumps({"machine": machine(), **report.summary,
                              "turnRecords": [asdict(t) for t in report.turns]}))  # fmt: skip
        else:
            print(machine())
            print_chat(report)
        return 0
    compose_report = run_compose(
        at=sorted(int(turn) for turn in args.at.split(",")),
        window=args.window,
        file_bytes=args.file_bytes,
        rounds=args.rounds,
        profile=args.profile,
        matched=args.matched,
    )
    if args.json:
        print(json.dumps({"machine": machine(), **compose_report.summary}))
    else:
        print(machine())
        print_compose(compose_report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
