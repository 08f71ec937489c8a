"""memory: recall of entries, turns, the task and kept outputs, paged within B; the forms that
need facts or a model say so; every call is recorded as context.memory."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wisp.agent.types import ToolCall, ToolContext
from wisp.audit.kinds import ContextMemory, FactRecorded
from wisp.store import ConversationStore, PendingEntry, Source, ToolOutputValue
from wisp.tools.memory import NOTE_FAILURES, PROPOSAL, MemoryTool

SESSION = "5fd0cf21a0b1c2d3"
STAMP = "2026-10-04T13:05:12Z"
OUTPUT = "1\t# harbour sync: overview\n2\tsecond line\n3\tthe last line\n[end of file: 3 lines]"
NOTICE = (
    "[the person ran `git status --short` themselves in /home/ann/harbour at 14:05:12 "
    '(exit status 0, 4 lines); this was not your action; to see the output: memory "recall '
    'entry 9"]\nfirst line: M src/sync.py'
)


def source(event: str) -> tuple[Source, ...]:
    return (Source(session=SESSION, turn=1, event=event),)


def example_store() -> ConversationStore:
    """A store as a conversation makes it (docs/store.md): two turns after the instructions, then a
    typed command."""
    store = ConversationStore()
    store.add(PendingEntry("instructions", "You are Wisp."), turn=None, origin="carried", time=None)
    call = ToolCall(id="3f2a9c1e", name="read_file", arguments={"path": "/home/ann/overview.md"})
    store.add_turn(
        [
            PendingEntry("prompt", "What does overview.md say?", source("a" * 16)),
            PendingEntry("toolCalls", [call], source("b" * 16)),
            PendingEntry(
                "toolOutput", ToolOutputValue("3f2a9c1e", "read_file", OUTPUT), source("c" * 16)
            ),
            PendingEntry("response", "It is about harbour sync.", source("d" * 16)),
        ],
        turn=1,
        time=STAMP,
    )
    store.add_turn(
        [
            PendingEntry("prompt", "Thanks!\nAnd the rest?"),
            PendingEntry("reasoning", "The person is thanking me."),
            PendingEntry("response", "You're welcome."),
        ],
        turn=2,
        time=STAMP,
    )
    store.add(PendingEntry("command", NOTICE), turn=3, time=STAMP)
    return store


@pytest.fixture(autouse=True)
def utc_machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC, so headers' clock times are the stored ones."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def store(conversation: Any) -> ConversationStore:
    conversation.store = example_store()
    return conversation.store


async def memory(context: ToolContext, request: str) -> str:
    return await MemoryTool().run({"request": request}, context)


# -- entries -----------------------------------------------------------------------------------


async def test_recall_a_tool_output_entry(context: ToolContext, store: ConversationStore) -> None:
    assert await memory(context, "recall entry 4") == (
        "entry 4: read_file output, turn 1 at 13:05:12, from the conversation's store\n"
        'arguments: {"path":"/home/ann/overview.md"}\n'
        f"{OUTPUT}\n"
        "[end of what recall found]"
    )


async def test_no_verb_means_recall(context: ToolContext, store: ConversationStore) -> None:
    assert await memory(context, "entry 4") == await memory(context, "recall entry 4")


async def test_quotes_and_backticks_are_stripped(
    context: ToolContext, store: ConversationStore
) -> None:
    assert await memory(context, '"recall entry 5"') == await memory(context, "`recall entry 5`")


async def test_recall_a_reply(context: ToolContext, store: ConversationStore) -> None:
    assert await memory(context, "RECALL output of entry 5") == (
        "entry 5: reply, turn 1 at 13:05:12, from the conversation's store\n"
        "It is about harbour sync.\n"
        "[end of what recall found]"
    )


async def test_the_instructions_recall_as_a_fixed_text(
    context: ToolContext, store: ConversationStore
) -> None:
    assert await memory(context, "recall entry 1") == (
        "entry 1: the instructions, from the conversation's store\n"
        "(the instructions, which every request carries in full)\n"
        "[end of what recall found]"
    )


async def test_thinking_is_not_recalled(context: ToolContext, store: ConversationStore) -> None:
    result = await memory(context, "recall entry 7")
    assert result.splitlines()[1] == "(the model's thinking, kept for the person and not recalled)"


async def test_a_bad_entry_says_which_exist(context: ToolContext, store: ConversationStore) -> None:
    assert await memory(context, "recall entry 42") == (
        "memory: no entry 42 in this conversation; entries run from 1 to 9, and this turn's own "
        "are already in view"
    )


async def test_nothing_stored_yet_says_so(context: ToolContext, conversation: Any) -> None:
    conversation.store = ConversationStore()
    conversation.store.add(
        PendingEntry("instructions", "x"), turn=None, origin="carried", time=None
    )
    assert await memory(context, "recall entry 2") == (
        "memory: nothing earlier is stored yet; this is the conversation's first turn, and all of "
        "it is in your context as the person wrote it"
    )


async def test_a_command_entry_is_labelled_with_its_line(
    context: ToolContext, store: ConversationStore
) -> None:
    result = await memory(context, "recall entry 9")
    assert result.splitlines()[0] == (
        "entry 9: the person's command `git status --short` in /home/ann/harbour, exit status 0, "
        "turn 3 at 13:05:12, from the conversation's store"
    )


# -- turns and the task ------------------------------------------------------------------------


async def test_recall_a_turn_lists_every_entry_under_a_label(
    context: ToolContext, store: ConversationStore
) -> None:
    assert await memory(context, "recall turn 2") == (
        "turn 2: entries 6-8, from the conversation's store\n"
        "[entry 6, prompt]\nThanks!\nAnd the rest?\n"
        "[entry 7, the model's thinking]\n"
        "(the model's thinking, kept for the person and not recalled)\n"
        "[entry 8, reply]\nYou're welcome.\n"
        "[end of what recall found]"
    )


async def test_a_turn_of_one_entry_names_it_alone(
    context: ToolContext, store: ConversationStore
) -> None:
    result = await memory(context, "turn 3")
    assert result.startswith("turn 3: entry 9, from the conversation's store\n")


async def test_a_bad_turn_says_which_exist(context: ToolContext, store: ConversationStore) -> None:
    assert await memory(context, "recall turn 8") == (
        "memory: no turn 8 in this conversation's store; turns run from 1 to 3, and this turn is "
        "already in view"
    )


async def test_the_task_is_the_first_prompt_while_there_are_no_facts(
    context: ToolContext, store: ConversationStore
) -> None:
    for request in ("recall task", "task"):
        assert await memory(context, request) == (
            "task: no task is recorded, as this conversation keeps no facts yet; the first "
            "prompt, entry 2, turn 1 at 13:05:12, from the conversation's store\n"
            "What does overview.md say?\n"
            "[end of what recall found]"
        )


# -- paging ------------------------------------------------------------------------------------


@pytest.fixture
def long_output(conversation: Any) -> ConversationStore:
    """A conversation whose entry 3 is a 400-line tool output."""
    store = ConversationStore()
    store.add(PendingEntry("instructions", "x"), turn=None, origin="carried", time=None)
    text = "".join(f"row {n:03d} " + "." * 40 + "\n" for n in range(1, 401))
    call = ToolCall(id="0badcafe", name="run_command", arguments={"command": "seq"})
    store.add_turn(
        [
            PendingEntry("toolCalls", [call]),
            PendingEntry("toolOutput", ToolOutputValue("0badcafe", "run_command", text)),
        ],
        turn=1,
        time=STAMP,
    )
    conversation.store = store
    return store


async def test_a_long_entry_is_paged_within_the_budget(
    context: ToolContext, long_output: ConversationStore
) -> None:
    result = await memory(context, "recall entry 3")
    lines = result.splitlines()
    assert len(result.encode()) <= context.output_budget
    assert lines[2].startswith("row 001")
    assert lines[-1] == f'[more: memory "recall entry 3 from line {len(lines) - 2}"]'


async def test_from_line_starts_the_page_there(
    context: ToolContext, long_output: ConversationStore
) -> None:
    result = await memory(context, "recall entry 3 from line 399")
    assert result.splitlines()[2:] == [
        "row 399 " + "." * 40,
        "row 400 " + "." * 40,
        "[end of what recall found]",
    ]


async def test_matching_shows_numbered_lines_and_counts_the_rest(
    context: ToolContext, long_output: ConversationStore
) -> None:
    result = await memory(context, "recall entry 3 matching row 12")
    assert result.splitlines()[2:] == [
        *[f"{n}\trow {n} " + "." * 40 for n in range(120, 130)],
        "(10 matching, 390 other lines)",
        "[end of what recall found]",
    ]


async def test_lines_a_to_b(context: ToolContext, long_output: ConversationStore) -> None:
    result = await memory(context, "entry 3 lines 10-11")
    assert [line[:7] for line in result.splitlines()[2:4]] == ["row 010", "row 011"]
    assert result.endswith("[end of what recall found]")


async def test_head_and_tail(context: ToolContext, long_output: ConversationStore) -> None:
    head = (await memory(context, "entry 3 head 2")).splitlines()[2:]
    tail = (await memory(context, "entry 3 tail 1")).splitlines()[2:]
    assert [line[:7] for line in head] == ["row 001", "row 002", "[end of"]
    assert [line[:7] for line in tail] == ["row 400", "[end of"]


async def test_recall_output_reads_the_kept_whole(
    context: ToolContext, conversation: Any, long_output: ConversationStore, home: Path
) -> None:
    kept = home / "output" / conversation.session / "0badcafe"
    kept.parent.mkdir(parents=True)
    kept.write_text("the whole\noutput\n")
    assert await memory(context, "recall output 0badcafe") == (
        "output 0badcafe: run_command output, entry 3, kept whole in the output store\n"
        "the whole\noutput\n"
        "[end of what recall found]"
    )


async def test_recall_output_without_a_kept_file_reads_the_store(
    context: ToolContext, long_output: ConversationStore
) -> None:
    result = await memory(context, "recall output 0badcafe from line 400")
    assert result.splitlines() == [
        "output 0badcafe: run_command output, entry 3, from the conversation's store",
        "row 400 " + "." * 40,
        "[end of what recall found]",
    ]


# -- what needs facts or a model ---------------------------------------------------------------


async def test_note_needs_facts(context: ToolContext, store: ConversationStore) -> None:
    result = await memory(context, "note entity release codename = BLUE HERON")
    assert result == "error: this conversation keeps no facts, so nothing can be noted"
    assert await memory(context, "remember tests ci = green") == result


async def test_task_with_text_needs_facts(context: ToolContext, store: ConversationStore) -> None:
    result = await memory(context, "task ship 1.0; objective: tagged")
    assert result == "error: this conversation keeps no facts, so the task cannot be noted"


@pytest.mark.parametrize("verb", ["summarise", "summarize", "condense"])
async def test_summarise_and_condense_need_a_model_attached(
    context: ToolContext, store: ConversationStore, verb: str, recorded: list[Any]
) -> None:
    result = await memory(context, f"{verb} entry 4: what failed?")
    assert result.startswith("error: ")
    assert 'page through it with "recall entry 4"' in result
    assert recorded[-1].failure == "off" and recorded[-1].target == "entry 4"


async def test_a_fact_query_says_there_are_no_facts(
    context: ToolContext, store: ConversationStore
) -> None:
    result = await memory(context, "recall the release codename")
    assert result.startswith("memory: this conversation keeps no facts yet, so there is nothing")


async def test_a_fact_id_says_there_are_no_facts(
    context: ToolContext, store: ConversationStore
) -> None:
    assert await memory(context, "recall c12") == (
        "memory: no fact c12; this conversation keeps no facts yet"
    )


# -- the record --------------------------------------------------------------------------------


async def test_a_recall_is_recorded(
    context: ToolContext, store: ConversationStore, recorded: list[Any]
) -> None:
    result = await memory(context, "recall entry 4")
    assert recorded == [
        ContextMemory(
            request="recall entry 4",
            action="recall",
            target="entry 4",
            found=True,
            entries=[4],
            events=["c" * 16],
            from_="store",
            offset=1,
            bytes=len(result.encode()),
        )
    ]


async def test_a_recall_that_finds_nothing_is_recorded_as_not_found(
    context: ToolContext, store: ConversationStore, recorded: list[Any]
) -> None:
    await memory(context, "recall entry 42")
    assert (recorded[0].found, recorded[0].target, recorded[0].entries) == (False, "entry 42", [])


async def test_a_matching_recall_records_its_filter(
    context: ToolContext, long_output: ConversationStore, recorded: list[Any]
) -> None:
    await memory(context, "recall entry 3 matching row 12 from line 100")
    assert (recorded[0].filter, recorded[0].offset) == ("row 12", 100)


async def test_a_note_is_recorded_as_not_noted(
    context: ToolContext, store: ConversationStore, recorded: list[Any]
) -> None:
    await memory(context, "note tests ci = green")
    assert recorded == [
        ContextMemory(request="note tests ci = green", action="note", noted=False, failure="off")
    ]


async def test_an_empty_recall_says_what_to_ask(
    context: ToolContext, store: ConversationStore
) -> None:
    assert await memory(context, "recall") == (
        'memory: say what to recall, such as "recall entry 7", "recall turn 2" or "recall task"'
    )


# -- notes -------------------------------------------------------------------------------------


class _Log:
    def __init__(self) -> None:
        self.events: list[Any] = []

    def record(self, details: Any) -> str:
        self.events.append(details)
        return f"e{len(self.events)}"


@pytest.fixture
def log() -> _Log:
    """Where the conversation's fact events go."""
    return _Log()


@pytest.fixture
def facts(conversation, log: _Log) -> Any:
    from wisp.agent.facts import ConversationFacts
    from wisp.facts.book import FactBook

    conversation.facts = ConversationFacts(FactBook(), log, lambda: None)  # type: ignore[arg-type]
    return conversation.facts


async def test_a_note_is_held_until_the_turn_ends_then_kept(
    context: ToolContext, facts: Any, log: _Log, recorded: list[Any]
) -> None:
    result = await memory(context, "note Deploy Branch = release")
    assert result == "noted: deploy branch = release"
    assert recorded == [
        ContextMemory(
            request="note Deploy Branch = release", action="note", noted=True,
            subject="deploy", name="branch", value="release", class_="dynamic",
        )
    ]  # fmt: skip
    assert facts.book.in_force() == []  # not before the turn ends
    facts.settle()
    (fact,) = facts.book.in_force()
    assert (fact.source, fact.method, fact.value, fact.detail) == (
        "model", "noted", "release", "memory",
    )  # fmt: skip
    (event,) = log.events
    assert isinstance(event, FactRecorded) and event.sources == [recorded[0]]


async def test_a_permanent_note_is_a_proposal(context: ToolContext, facts: Any, recorded) -> None:
    result = await memory(context, "note permanent: user name = Ana")
    assert result == "noted: user name = Ana" + PROPOSAL
    assert recorded[0].class_ == "permanent"


@pytest.mark.parametrize(
    ("request_", "failure"),
    [
        ("note the branch is release", "shape"),
        ("note deploy = release", "name"),
        ("note = release", "subject"),
        ("note deploy branch =", "shape"),
    ],
)
async def test_a_note_that_says_no_fact_is_refused_saying_how(
    context: ToolContext, facts: Any, recorded: list[Any], request_: str, failure: str
) -> None:
    result = await memory(context, request_)
    assert result == NOTE_FAILURES[failure] and result.startswith("error:")
    assert (recorded[0].noted, recorded[0].failure) == (False, failure)


async def test_a_turn_notes_at_most_eight_facts(context: ToolContext, facts: Any) -> None:
    for n in range(8):
        assert (await memory(context, f"note item {n} = x")).startswith("noted:")
    assert await memory(context, "note item 8 = x") == NOTE_FAILURES["full"]


async def test_facts_are_recalled_by_id_and_by_words(
    context: ToolContext, facts: Any, recorded: list[Any]
) -> None:
    book = facts.book
    book.record("db", "port", "5432", source="model", method="noted")
    book.record("db", "port", "5433", source="person", method="stated")
    book.record("deploy", "branch", "release", source="person", method="stated")
    assert await memory(context, "recall fact c1") == (
        "fact c1: db port = 5432 (model, noted, version 1; outranked)"
    )
    assert await memory(context, "recall facts db") == (
        "fact c2: db port = 5433 (person, stated, version 1; in force)\n"
        "fact c1: db port = 5432 (model, noted, version 1; outranked)"
    )
    assert await memory(context, "recall fact release") == (
        "fact c3: deploy branch = release (person, stated, version 1; in force)"
    )
    assert await memory(context, "recall fact c9") == "memory: no fact c9; recall facts lists them"
    assert await memory(context, "recall facts nothing") == "memory: no fact matches 'nothing'"
    assert (recorded[1].target, recorded[1].found, recorded[1].facts) == (
        "fact",
        True,
        ["c2", "c1"],
    )


async def test_the_model_sets_the_task_unless_the_person_pinned_it(
    context: ToolContext, facts: Any, store: ConversationStore, recorded: list[Any]
) -> None:
    assert (await memory(context, "recall task")).startswith(
        "task: no task is recorded, task TEXT records one; the first prompt"
    )
    assert await memory(context, "task ship 1.0; objective: tagged") == (
        "noted: the task is ship 1.0; objective: tagged"
    )
    facts.settle()
    assert await memory(context, "recall task") == (
        "task: ship 1.0; objective: tagged (fact c1, set by the model)"
    )
    assert (recorded[1].action, recorded[1].noted, recorded[1].value) == (
        "task", True, "ship 1.0; objective: tagged",
    )  # fmt: skip
    facts.book.record("task", "current", "ship 2.0", source="person", method="stated")
    assert await memory(context, "task ship 1.1") == (
        "error: the person set this conversation's task; it stays as they set it"
    )
    assert (recorded[-1].noted, recorded[-1].failure) == (False, "pinned")
