"""The draft tasks: wisp's own, the person's from draft.tasks, and what each gathers
(docs/draft.md, "Tasks")."""

from __future__ import annotations

import pytest

from wisp.config.draft_tasks import ConfiguredDraft, DraftInput
from wisp.draft.tasks import COMMIT, DraftError, draft_task, gathered_for

STANDUP = ConfiguredDraft(
    name="standup",
    instructions="Write my stand-up note.",
    inputs=[DraftInput("command", "git log -n 3 --format=%s"), DraftInput("file", "todo.txt")],
)


def test_a_task_of_the_persons_gathers_its_inputs_then_those_given() -> None:
    task = draft_task("standup", {"standup": STANDUP})
    assert task.instructions.startswith("Write my stand-up note.")
    gathered = gathered_for(task, ["notes.txt", "-"])
    assert [(g.kind, g.value) for g in gathered] == [
        ("command", "git log -n 3 --format=%s"),
        ("file", "todo.txt"),
        ("file", "notes.txt"),
        ("stdin", "-"),
    ]


def test_summary_and_reply_read_stdin_when_no_input_is_named() -> None:
    for name in ("summary", "reply"):
        (gathered,) = gathered_for(draft_task(name, {}), [])
        assert gathered.kind == "stdin"
    assert [g.kind for g in gathered_for(COMMIT, [])] == ["command", "command"]


def test_an_unknown_task_is_named_with_those_there_are() -> None:
    with pytest.raises(DraftError) as raised:
        draft_task("comit", {"standup": STANDUP})
    assert str(raised.value) == (
        "no draft task 'comit': the tasks are commit, summary, reply, standup; did you mean "
        '"commit"? (a task of your own is draft.tasks.comit in config.json: docs/draft.md)'
    )


def test_a_task_of_the_persons_with_a_problem_says_it() -> None:
    broken = ConfiguredDraft(name="x", problem="config.json: draft.tasks.x.inputs: expected …")
    with pytest.raises(DraftError, match=r"draft\.tasks\.x\.inputs"):
        draft_task("x", {"x": broken})


def test_a_task_of_the_persons_may_not_take_a_name_of_wisps_own() -> None:
    with pytest.raises(DraftError, match=r"draft\.tasks\.commit: commit is one of wisp's own"):
        draft_task("commit", {"commit": STANDUP})


def test_stdin_is_read_once() -> None:
    with pytest.raises(DraftError, match="stdin"):
        gathered_for(COMMIT, ["-", "-"])
