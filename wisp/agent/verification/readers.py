"""One reader per family of claim: it reads the turn's calls and says why a claim is not
supported, or None when a call did what the claim says.

Commands are matched by their line: a claim to have run the tests by a test runner's, an
install by a package manager's, a build by a build tool's, a commit or push by ``git``'s. A
command the gate denied, or the person declined, did not run; one that failed did. A file claim
is matched by an ``edit_file`` or ``read_file`` of the same file (docs in ``paths``), or by a
command that ran and names the file (``sed -i … config.ini``, ``cat notes.md``); a claim that
names no file ("I updated the file") by any call of that kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

from wisp.agent.verification.calls import Call
from wisp.agent.verification.claims import Claim, Family
from wisp.agent.verification.paths import mentions, same_file

SHOWN_COMMAND = 40

TEST_RUNNER = re.compile(
    r"test|\bcheck\b|\b(?:tox|nox|jest|mocha|vitest|rspec|phpunit|ctest|ava|spec)\b",
    re.IGNORECASE,
)
"""pytest, python -m unittest, tox, nox, npm test, cargo test, go test, make test/check…"""
INSTALLER = re.compile(
    r"install|\b(?:uv|poetry|yarn|pnpm|cargo|npm|bun|pipx)\s+(?:add|sync|ci|i)\b"
    r"|\bgo\s+get\b|\bconda\s+create\b",
    re.IGNORECASE,
)
"""pip/uv/npm/apt/brew/cargo/go install, uv add, npm ci…"""
BUILDER = re.compile(
    r"build|compile|\b(?:make|cmake|ninja|gcc|g\+\+|cc|clang|clang\+\+|tsc|javac|gradlew?|mvn|"
    r"bazel|meson|rustc|webpack|vite|scons)\b|setup\.py",
    re.IGNORECASE,
)
"""make, cargo build, npm run build, python -m build, go build, gcc…"""
COMMITTER = re.compile(r"\b(?:git|hg|jj|svn)\b[^;&|]*\bcommit\b")
PUSHER = re.compile(r"\b(?:git|hg|jj)\b[^;&|]*\bpush\b")
REMOVER = re.compile(r"\b(?:rm|unlink|rmdir|del|shred|trash|trash-put)\b")


class Reader(msgspec.Struct, frozen=True):
    """Checks one family of claims against the calls."""

    name: str
    check: Callable[[Claim, Sequence[Call], Path], str | None]


def _shown(command: str) -> str:
    command = " ".join(command.split())
    if len(command) > SHOWN_COMMAND:
        command = command[: SHOWN_COMMAND - 1] + "…"
    return f"`{command}`"


def _commands(calls: Sequence[Call], matches: Callable[[str], bool]) -> str | None:
    """None when a matching command ran; else why not: what matched but did not run, or that
    none matched."""
    blocked: list[Call] = []
    for call in calls:
        line = call.command
        if line is None or not matches(line):
            continue
        if call.done:
            return None
        blocked.append(call)
    if blocked:
        return f"{_shown(blocked[0].command or '')} was {blocked[0].outcome}: it did not run"
    return ""


def _command_reason(calls: Sequence[Call], matches: Callable[[str], bool], what: str) -> str | None:
    reason = _commands(calls, matches)
    if reason != "":
        return reason
    if not any(call.command is not None and call.done for call in calls):
        return "no command ran"
    return f"no {what} ran"


def _program_runs(program: str) -> Callable[[str], bool]:
    """A command line with ``program`` as one of its words (``python`` takes ``python3``)."""
    stem = re.escape(program)
    if re.fullmatch(r"python[\d.]*", program):
        stem = r"python[\d.]*"
    pattern = re.compile(rf"(?<![\w.-]){stem}(?![\w-])")
    return lambda line: pattern.search(line) is not None


def _any(_line: str) -> bool:
    return True


def check_command(claim: Claim, calls: Sequence[Call], _wd: Path) -> str | None:
    if _names_a_done_tool(claim, calls):
        return None  # "I ran current_date": a tool, not a command
    if claim.program is None:
        return _command_reason(calls, _any, "command")
    return _command_reason(calls, _program_runs(claim.program), f"`{claim.program}` command")


def _names_a_done_tool(claim: Claim, calls: Sequence[Call]) -> bool:
    return any(
        call.done and re.search(rf"(?<![\w-]){re.escape(call.tool)}(?![\w-])", claim.quote)
        for call in calls
    )


def check_tests(claim: Claim, calls: Sequence[Call], _wd: Path) -> str | None:
    def runs_tests(line: str) -> bool:
        named = claim.program is not None and _program_runs(claim.program)(line)
        return named or TEST_RUNNER.search(line) is not None

    return _command_reason(calls, runs_tests, "test command")


def check_tested(_claim: Claim, calls: Sequence[Call], _wd: Path) -> str | None:
    """ "I tested it": any command that ran (a test can be any run of the code)."""
    return _command_reason(calls, _any, "command")


def _pattern_check(
    pattern: re.Pattern[str], what: str
) -> Callable[[Claim, Sequence[Call], Path], str | None]:
    def check(_claim: Claim, calls: Sequence[Call], _wd: Path) -> str | None:
        return _command_reason(calls, lambda line: pattern.search(line) is not None, what)

    return check


def check_edit(claim: Claim, calls: Sequence[Call], wd: Path) -> str | None:
    return _file_reason(claim, calls, wd, "edit_file", "edit of", "no file was edited")


def check_read(claim: Claim, calls: Sequence[Call], wd: Path) -> str | None:
    return _file_reason(claim, calls, wd, "read_file", "read of", "no file was read")


def check_delete(claim: Claim, calls: Sequence[Call], wd: Path) -> str | None:
    def removes(line: str) -> bool:
        named = claim.path is None or mentions(line, claim.path)
        return named and REMOVER.search(line) is not None

    what = "command removed it" if claim.path is None else f"command removed {claim.path}"
    reason = _commands(calls, removes)
    return reason if reason != "" else f"no {what}"


def _file_reason(
    claim: Claim, calls: Sequence[Call], wd: Path, tool: str, noun: str, none: str
) -> str | None:
    """An ``edit_file``/``read_file`` of the file that succeeded, or a command that ran and
    names it; a claim naming no file takes any call of the tool."""
    failed: Call | None = None
    for call in calls:
        if call.tool == tool and (claim.path is None or same_file(claim.path, call.path or "", wd)):
            if call.done:
                return None
            failed = failed or call
        if (
            claim.path is not None
            and call.done
            and call.command
            and mentions(call.command, claim.path)
        ):
            return None
    if failed is not None:
        return f"the {noun} {claim.path or failed.path} failed"
    return none if claim.path is None else f"no {noun} {claim.path}"


READERS: dict[Family, Reader] = {
    "command": Reader("commands", check_command),
    "tests": Reader("tests", check_tests),
    "tested": Reader("tested", check_tested),
    "install": Reader("installs", _pattern_check(INSTALLER, "install command")),
    "build": Reader("builds", _pattern_check(BUILDER, "build command")),
    "commit": Reader("commits", _pattern_check(COMMITTER, "git commit")),
    "push": Reader("pushes", _pattern_check(PUSHER, "git push")),
    "edit": Reader("edits", check_edit),
    "delete": Reader("deletions", check_delete),
    "read": Reader("reads", check_read),
}
"""Each family's reader; its name is what ``response.verification`` records."""
