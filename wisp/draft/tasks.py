"""The draft tasks: wisp's own (``commit``, ``summary``, ``reply``) and the person's
(``draft.tasks.<name>``), each with what it gathers and how its reply is cleaned (docs/draft.md,
"Tasks")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from wisp.config.draft_tasks import ConfiguredDraft
from wisp.errors import WispError
from wisp.spelling import meant

STDIN = "-"

Shape = Literal["commit", "text"]
"""How a reply is cleaned: a commit message (a subject of at most 72 characters, every code
fence dropped) or a text (a fence around the whole dropped)."""

Given = Literal["text", "more"]
"""What the INPUTs on the command line are: the text itself (stdin when none is given), or more
beside what the task gathers on its own."""


class DraftError(WispError):
    """A draft that cannot be written: an unknown task, an input that failed, nothing staged."""

    exit_code = 2


class Gather(msgspec.Struct, frozen=True, kw_only=True):
    """One input a task gathers: a command's output (run confined), a file's text, or stdin."""

    kind: Literal["command", "file", "stdin"]
    value: str
    """The command line, the file's path, or ``-``."""
    label: str
    """How the prompt names it."""
    optional: bool = False
    """A command that fails gives nothing, rather than stopping the draft."""
    if_empty: str | None = None
    """The error when it gives nothing (a commit with nothing staged)."""


class DraftTask(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    instructions: str
    gathers: tuple[Gather, ...] = ()
    given: Given = "more"
    ask: str = "Write the text now, as the instructions say."
    """The request's last line, after the inputs: a small model answers what it read last."""
    reply_tokens: int = 400
    """The reply's most tokens: a small model given room runs on."""
    shape: Shape = "text"


ONLY_THE_TEXT = (
    "Write only the text itself, ready to use: no preamble such as 'Here is', no notes about "
    "it, no code fence around it."
)

COMMIT = DraftTask(
    name="commit",
    instructions=(
        "You write git commit messages. Write the commit message for the staged changes "
        "below. Its first line is a summary of what the change does, at most 72 characters, "
        "in the style of the repository's recent commit subjects (the imperative mood, "
        "'Fix …', 'Add …', when they show no other). When the change needs more explaining, "
        "add an empty line and then a few short lines on what changed and why. " + ONLY_THE_TEXT
    ),
    gathers=(
        Gather(
            kind="command",
            value="git log -n 10 --no-color --format=%s",
            label="The repository's last commit subjects, newest first (their style)",
            optional=True,  # a repository with no commit yet has none
        ),
        Gather(
            kind="command",
            value="git diff --cached --no-color --no-ext-diff --stat --patch",
            label="The staged changes",
            if_empty="nothing is staged to commit: stage the changes first (git add)",
        ),
    ),
    ask="Write the commit message for the staged changes above.",
    reply_tokens=80,  # a subject and a few lines: on local, two or three seconds
    shape="commit",
)

SUMMARY = DraftTask(
    name="summary",
    instructions=(
        "Summarise the text below for the person who will read it: what it is, its main "
        "points, and anything that needs doing, in a few short paragraphs or a short list. "
        + ONLY_THE_TEXT
    ),
    given="text",
    ask="Write the summary of the text above.",
)

REPLY = DraftTask(
    name="reply",
    instructions=(
        "Write a reply to the message below, as the person it was sent to, ready to send: "
        "answer what it asks, briefly, in its own language and tone. " + ONLY_THE_TEXT
    ),
    given="text",
    ask="Write the reply to the message above.",
)

BUILT_IN: dict[str, DraftTask] = {task.name: task for task in (COMMIT, SUMMARY, REPLY)}

CONFIGURED_REPLY_TOKENS = 500


def draft_task(name: str, configured: Mapping[str, ConfiguredDraft]) -> DraftTask:
    """The task ``name``: wisp's own, else the person's from ``draft.tasks``; a
    ``DraftError`` saying why there is none."""
    if name in BUILT_IN:
        if name in configured:
            raise DraftError(
                f"draft.tasks.{name}: {name} is one of wisp's own tasks; give yours another name"
            )
        return BUILT_IN[name]
    if name not in configured:
        raise DraftError(_unknown(name, configured))
    entry = configured[name]
    if entry.problem is not None:
        raise DraftError(entry.problem)
    gathers = tuple(
        Gather(kind=item.kind, value=item.value, label=_label(item.kind, item.value))
        for item in entry.inputs
    )
    return DraftTask(
        name=name,
        instructions=f"{entry.instructions}\n\n{ONLY_THE_TEXT}",
        gathers=gathers,
        reply_tokens=CONFIGURED_REPLY_TOKENS,
    )


def _unknown(name: str, configured: Mapping[str, ConfiguredDraft]) -> str:
    known = [*BUILT_IN, *configured]
    near = meant(name, known, fold_case=True)
    hint = f'; did you mean "{near}"?' if near else ""
    return (
        f"no draft task {name!r}: the tasks are {', '.join(known)}{hint} (a task of your own "
        f"is draft.tasks.{name} in config.json: docs/draft.md)"
    )


def gathered_for(task: DraftTask, inputs: Sequence[str]) -> list[Gather]:
    """What ``task`` gathers with ``inputs`` (the command line's files, ``-`` for stdin): its
    own first, then those; a task whose inputs are the text reads stdin when none is given."""
    given = list(inputs) or ([STDIN] if task.given == "text" else [])
    if given.count(STDIN) > 1:
        raise DraftError("stdin (-) can be read once; name it once")
    own = [_given(path) for path in given]
    return [*task.gathers, *own]


def _given(path: str) -> Gather:
    kind: Literal["file", "stdin"] = "stdin" if path == STDIN else "file"
    return Gather(kind=kind, value=path, label=_label(kind, path))


def _label(kind: str, value: str) -> str:
    match kind:
        case "command":
            return f"The output of {value}"
        case "stdin":
            return "The text"
        case _:
            return f"The file {value}"
