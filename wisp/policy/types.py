"""The policy's vocabulary, shared by the splitter, the rules, the gate and the runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol

import msgspec

Level = Literal["safe", "moderate", "dangerous"]
LEVEL_ORDER: dict[str, int] = {"safe": 0, "moderate": 1, "dangerous": 2}
Threshold = Literal["safe", "moderate", "dangerous", "never"]
Scope = Literal["once", "session", "project", "always"]


class CommandFacts(msgspec.Struct, frozen=True):
    """What the shell will hand one simple command, as the deny list judges what it does
    (docs/policy.md, "What the deny list stops")."""

    words: tuple[str, ...] = ()
    """Its words as the shell passes them, wrappers included: each word's value after quote
    removal, or its text as written where part of it is only known when the line runs."""
    word_feeds: tuple[tuple[str, ...], ...] = ()
    """For each word, the programs whose output it holds (``$(curl x)``, ``<(wget …)``)."""
    stdin_feeds: tuple[str, ...] = ()
    """The programs whose output it may read on stdin: earlier in its pipeline, ``< <(…)``, a
    here-string or heredoc holding a substitution, or what feeds the shell whose script it is in."""
    writes: tuple[str, ...] = ()
    """The targets of its writing redirections (``> /dev/sda``), as ``words`` shows a word."""
    reads: tuple[str, ...] = ()
    """The files its input redirections read (``< install.sh``)."""


class SimpleCommand(msgspec.Struct, frozen=True):
    """One simple command of a line (docs/policy.md, "Splitting a line")."""

    text: str
    """The command's own text, trimmed."""
    executable: str | None
    """The program by basename, wrappers unwrapped; None when there is none to read."""
    subcommand: str | None
    """The verb of a multiplexer (``git status`` → ``status``)."""
    pattern: str
    """The approval key: ``"git push *"``, ``"ls *"``, or the exact text."""
    legacy_pattern: str | None = None
    """``"<exe> *"`` for a command with a verb, so approvals stored before verbs still count."""
    readable: bool = True
    """False when the parser could not read it, or its program is named only when the line runs
    (``$X``, ``$(…)``, ``eval "$X"``): it is then rated as cautiously as possible."""
    normalised: tuple[str, ...] = ()
    """The command as the shell runs it, once from each wrapper looked through, outermost first:
    quotes and backslashes removed, the program by name, runs of short options joined, and
    ``| `` in front when it reads a pipe (``\\sudo /bin/rm -r -f "/"`` → ``sudo rm -rf /``,
    ``rm -rf /``). Empty when it cannot be read. The deny list is matched against these too."""
    facts: CommandFacts | None = None
    """What it is handed, for judging what it does; None for text with no command to read."""
    has_computed_folder: bool = False
    """Its program is named by a path whose folder is only known when the line runs
    (``"$VENV/bin/pytest"``): judged by the name, but no classifier may rate it lower."""


class Assessment(msgspec.Struct):
    """A verdict on one simple command: its level and the reasons for it."""

    level: Level
    reasons: list[str]
    sources: list[str] = msgspec.field(default_factory=lambda: ["rules"])
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)


ONLY_PERSON = "onlyPerson"
"""The key of an ``Assessment``'s metadata naming why only a person may approve the command
(``ApprovalQuestion.only_person``)."""

ASKED_EACH_TIME = "askedEachTime"
"""The key of an ``Assessment``'s metadata naming why the request is asked of the person every
time, whatever the threshold, and approved once at most: no cache, no standing approval and no
scope wider than once covers it (the model's ``models`` tool: a check, an enable, a pull). Such
an approval has its own id, which what it allows records (docs/policy.md, "Requests asked
each time")."""


class ApprovalQuestion(msgspec.Struct, frozen=True):
    """What the person is asked about one command (or a whole line)."""

    line: str
    command: str
    pattern: str
    level: Level
    reasons: list[str]
    directory: Path
    outside_sandbox: bool = False
    network: bool = False
    """Whether approving it opens the network to it (``commandPolicy.sandbox.network: ask`` and
    the rules mark its program): ``--yes`` never does, only ``--yes-network`` or a person."""
    is_unreadable: bool = False
    """Whether wisp could not read what runs (a program named by a variable, a substitution or
    ``eval``): ``--yes`` never approves it, only a person can."""
    only_person: str | None = None
    """Why only a person may approve it, never ``--yes`` (a tool ``mcpServers.NAME.deny``
    lists); None for most."""
    once_only: bool = False
    """Whether an approval holds for this one request alone (a run outside the sandbox, a
    request asked each time): a wider scope answered is taken as once."""


Answer = Literal["once", "session", "project", "always", "deny"]


class Approver(Protocol):
    """Asks the person; returns their answer, or None when none came (timed out, nobody)."""

    can_ask: bool
    """False when nobody can be asked (no terminal, no front end): every request is denied."""

    async def ask(self, question: ApprovalQuestion, timeout: float | None) -> Answer | None: ...


class QuestionAnswer(msgspec.Struct, frozen=True):
    """The person's answer to the model's question (the ``ask`` tool)."""

    text: str | None = None
    declined: bool = False
    via: str | None = None
    """The way this answer came, where a face has more than one (``wisp mcp``: ``elicitation``,
    ``cli``, ``tui``); None leaves the asker's own ``via``."""


class Asker(Protocol):
    """Puts the model's question to the person (plain chat: the terminal; a front end: a
    ``question`` line)."""

    can_ask: bool

    async def ask(
        self, question: str, options: list[str], timeout: float | None
    ) -> QuestionAnswer | None: ...
