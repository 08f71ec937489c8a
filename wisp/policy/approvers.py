"""Who answers the gate (docs/policy.md, "Approvers and --yes"): the person at the terminal,
``--yes``, or nobody.

An approver returns the person's ``Answer``, ``None`` when no answer came, or raises
``ApprovalRefused`` to deny with a reason of its own (nobody to ask, an unrecognised answer, the
end of input). The gate owns the wait limit, the caches and the audit; approvers only ask.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TextIO

from wisp.policy.types import Answer, ApprovalQuestion, Approver

ReadLine = Callable[[], Awaitable[str | None]]
"""The next line of input without its newline, or None at the end of input."""

REASON_WIDTH = 110
"""Each reason is cut to this many characters in the dialog."""

_ANSWERS: dict[str, Answer] = {
    "y": "once",
    "yes": "once",
    "once": "once",
    "s": "session",
    "session": "session",
    "p": "project",
    "project": "project",
    "a": "always",
    "always": "always",
    "n": "deny",
    "no": "deny",
    "": "deny",
}


class ApprovalRefused(Exception):
    """An approver's refusal with its own reason; the gate records it as ``denied``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


UNREADABLE_YES_REASON = (
    "--yes never approves a command whose program is only known when it runs (named by a "
    "variable, a substitution, eval or an alias): write the program's name out, or approve it "
    "yourself in wisp chat"
)


NETWORK_YES_REASON = (
    "it needs the network, which --yes never opens (commandPolicy.sandbox.network is ask); "
    "to allow it, rerun with --yes-network, approve it yourself in wisp chat, or set "
    "commandPolicy.sandbox.network on (wisp config set commandPolicy.sandbox.network on)"
)


def nobody_reason(question: ApprovalQuestion) -> str:
    """Why a request is refused when nobody can be asked, and how to allow it next time."""
    if question.network and not question.is_unreadable and not question.outside_sandbox:
        return (
            "no one can approve it here (no terminal and no front end), and it needs the "
            "network (commandPolicy.sandbox.network is ask); to allow it, rerun with "
            "--yes-network, approve it in wisp chat, or set commandPolicy.sandbox.network on "
            "(wisp config set commandPolicy.sandbox.network on)"
        )
    if question.is_unreadable:
        return (
            "no one can approve it here (no terminal and no front end), and wisp cannot read "
            "what it runs: its program is only known when it runs (named by a variable, a "
            "substitution, eval or an alias), which --yes never approves; write the program's "
            "name out"
        )
    if question.outside_sandbox:
        return (
            "no one can approve a run outside the sandbox here (no terminal and no front end), "
            "and --yes never does; run it inside the sandbox, or from wisp chat"
        )
    ways = "rerun with --yes (approves every command once)"
    if question.level == "dangerous":
        return (
            f"no one can approve it here (no terminal and no front end); to allow it, {ways}, "
            "or set approval.threshold to never (wisp config set approval.threshold never)"
        )
    return (
        f"no one can approve it here (no terminal and no front end); to allow it, {ways}, "
        "set approval.threshold higher (wisp config set approval.threshold dangerous), "
        f"or approve {question.pattern!r} in wisp chat with [p]roject or [a]lways"
    )


class NobodyApprover:
    """No terminal and no front end (``respond`` with stdin not a terminal): every request is
    refused with a reason that names the ways to allow it."""

    can_ask = False

    async def ask(self, question: ApprovalQuestion, timeout: float | None) -> Answer | None:
        raise ApprovalRefused(nobody_reason(question))


class YesApprover:
    """``--yes``: every request approved ``once``, without asking. It lifts no deny pattern and
    no sandbox (those run before the gate), and never approves a run outside the sandbox.

    Nor does it approve a command wisp cannot read (``$X``, ``$(…)``, ``eval "$X"`` name their
    program only when they run), or one that would open the network unless ``network``
    (``--yes-network``) says so: that one goes to ``person``, the approver there would be
    without ``--yes``, or is refused with a reason when nobody can answer."""

    can_ask = True

    def __init__(self, person: Approver | None = None, *, network: bool = False) -> None:
        self.person = person
        self.network = network

    async def ask(self, question: ApprovalQuestion, timeout: float | None) -> Answer | None:
        if question.outside_sandbox:
            raise ApprovalRefused(
                "--yes never approves a run outside the sandbox; run it inside the sandbox, "
                "or approve it yourself in wisp chat"
            )
        if question.is_unreadable:
            return await self._to_person(question, timeout, UNREADABLE_YES_REASON)
        if question.only_person is not None:
            return await self._to_person(question, timeout, question.only_person)
        if question.network and not self.network:
            return await self._to_person(question, timeout, NETWORK_YES_REASON)
        return "once"

    async def _to_person(
        self, question: ApprovalQuestion, timeout: float | None, refusal: str
    ) -> Answer | None:
        if self.person is None or not self.person.can_ask:
            raise ApprovalRefused(refusal)
        return await self.person.ask(question, timeout)


class TerminalApprover:
    """Plain chat's dialog: the question on ``output`` (stderr), one line read with ``readline``.

    stdin is also the chat's own input, so the chat lends its line reader rather than this
    reading the stream itself. A person is at the keyboard: plain chat builds its gate with
    ``timeout_seconds=0`` (no timeout).
    """

    can_ask = True

    def __init__(
        self,
        readline: ReadLine,
        output: TextIO,
        *,
        persist_days: int = 30,
        user_home: Path | None = None,
    ) -> None:
        self.readline = readline
        self.output = output
        self.persist_days = persist_days
        self.user_home = user_home

    async def ask(self, question: ApprovalQuestion, timeout: float | None) -> Answer | None:
        self.output.write(self.render(question))
        self.output.flush()
        line = await self.readline()
        if line is None:
            raise ApprovalRefused("no answer: the input ended")
        return parse_answer(line)

    def render(self, question: ApprovalQuestion) -> str:
        """The dialog, every shown value with its controls escaped."""
        lines = ["", f"⚠ approve [{question.level}] {escape_controls(question.command)}"]
        if question.line.strip() != question.command:
            lines.append(f"  part of: {escape_controls(question.line.strip())}")
        lines.append(f"  in {escape_controls(self._shown_directory(question.directory))}")
        if question.outside_sandbox:
            lines.append("  outside the sandbox: it runs unconfined")
        elif question.network:
            lines.append("  network: approved, it runs with the network on")
        lines.extend(f"  - {escape_controls(_cut(reason))}" for reason in question.reasons)
        lines.append(f"  remembered as: {escape_controls(question.pattern)}")
        if question.outside_sandbox or question.once_only:
            keys = "  [y]once  [n]o › "
        else:
            days = f"{self.persist_days}d"
            keys = f"  [y]once  [s]ession  [p]roject {days}  [a]lways {days}  [n]o › "
        return "\n".join(lines) + "\n" + keys

    def _shown_directory(self, directory: Path) -> str:
        home = self.user_home
        if home is not None and directory.is_relative_to(home):
            rest = directory.relative_to(home)
            return "~" if rest == Path() else f"~/{rest}"
        return str(directory)


def parse_answer(text: str) -> Answer:
    """The person's typed answer; an unrecognised one is a refusal that quotes it."""
    answer = _ANSWERS.get(text.strip().lower())
    if answer is None:
        raise ApprovalRefused(f"unrecognised answer '{escape_controls(text.strip())}'")
    return answer


def _cut(reason: str) -> str:
    return reason if len(reason) <= REASON_WIDTH else reason[: REASON_WIDTH - 1] + "…"


_NAMED = {"\x1b": "\\e", "\r": "\\r", "\n": "\\n", "\t": "\\t"}
_BIDI = {*range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def escape_controls(text: str) -> str:
    """``text`` with C0 and C1 controls, DEL and the bidirectional overrides escaped, so a
    command cannot redraw the dialog it is shown in."""
    return "".join(_escape(char) for char in text)


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x20 or 0x7F <= code <= 0x9F or code in _BIDI:
        return _NAMED.get(char, f"\\u{{{code:X}}}")
    return char
