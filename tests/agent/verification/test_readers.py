"""Each family's reader against the turn's calls (wisp/agent/verification/readers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.verification.trail import command, edit, read, trail
from tests.recorded import recorded
from wisp.agent.verification.calls import Call, turn_calls
from wisp.agent.verification.claims import Claim, find_claims
from wisp.agent.verification.readers import READERS
from wisp.audit.event import AuditEvent

HERE = Path("/work/project")


def reason(reply: str, *calls: list[AuditEvent], here: Path = HERE) -> str | None:
    """Why the reply's one claim is not supported by the calls, or None."""
    (claim,) = find_claims(reply)
    return READERS[claim.family].check(claim, turn_calls(trail(*calls)), here)


@pytest.mark.parametrize(
    ("reply", "line"),
    [
        ("I ran the tests.", "pytest -q"),
        ("I ran the tests.", "python -m unittest discover"),
        ("I ran the tests.", "tox -e py312"),
        ("I ran the tests.", "npm test"),
        ("I ran the tests.", "cargo test"),
        ("I ran the tests.", "go test ./..."),
        ("I ran the tests.", "make check"),
        ("I ran the tests.", "python test_app.py"),
        ("All tests passed.", "uv run pytest"),
        ("I've installed requests.", "pip install requests"),
        ("I've installed the dependencies.", "uv sync"),
        ("I've installed the dependencies.", "sudo apt-get install -y jq"),
        ("I've installed the dependencies.", "npm ci"),
        ("I built the project.", "make"),
        ("I built the project.", "cargo build --release"),
        ("I built the project.", "npm run build"),
        ("I built the project.", "python -m build"),
        ("I committed the changes.", "git add -A && git commit -m fix"),
        ("I pushed the branch.", "git push origin main"),
        ("I ran `ls -la`.", "ls -la /tmp"),
        ("I ran hello.py.", "python3 ./hello.py"),
        ("I ran python hello.py.", "python3 hello.py"),
        ("I executed the script.", "bash run.sh"),
        ("I tested it.", "python -c 'import app'"),
        ("I deleted old.log.", "rm -f logs/old.log"),
        ("I updated config.ini.", "sed -i s/80/8080/ config.ini"),
        ("I read notes.md.", "cat notes.md"),
    ],
)
def test_a_command_that_ran_supports_the_claim(reply: str, line: str) -> None:
    assert reason(reply, command(line)) is None


def test_a_tool_the_claim_names_supports_it() -> None:
    date = [recorded("tool.call", "d", tool="current_date", arguments={})]
    date.append(recorded("tool.result", "d", tool="current_date", output="2026-12-02"))
    assert reason("I ran current_date.", date) is None
    assert reason("I ran current_date.") == "no command ran"


def test_a_failed_command_still_ran() -> None:
    assert reason("I ran the tests.", command("pytest", "failed")) is None


@pytest.mark.parametrize(
    ("reply", "calls", "why"),
    [
        ("I ran the tests.", [], "no command ran"),
        ("I ran the tests.", [command("ls")], "no test command ran"),
        ("All tests passed.", [], "no command ran"),
        ("I ran `ls -la`.", [command("pwd")], "no `ls` command ran"),
        ("I executed the script.", [], "no command ran"),
        ("I've installed requests.", [command("python -V")], "no install command ran"),
        ("I built the project.", [command("ls")], "no build command ran"),
        ("I committed the changes.", [command("git status")], "no git commit ran"),
        ("I pushed the branch.", [command("git commit -m x")], "no git push ran"),
        ("I ran the tests.", [command("pytest", "denied")], "`pytest` was denied: it did not run"),
        (
            "I ran the tests.",
            [command("pytest", "declined")],
            "`pytest` was declined: it did not run",
        ),
        ("I deleted old.log.", [command("ls old.log")], "no command removed old.log"),
        ("I've updated config.ini.", [], "no edit of config.ini"),
        ("I've updated config.ini.", [edit("other.ini")], "no edit of config.ini"),
        (
            "I've updated config.ini.",
            [edit("config.ini", ok=False)],
            "the edit of config.ini failed",
        ),
        ("I updated the file.", [read("a.txt")], "no file was edited"),
        ("I read notes.md.", [], "no read of notes.md"),
        ("I read notes.md.", [read("notes.md", ok=False)], "the read of notes.md failed"),
        ("I opened the file.", [edit("a.txt")], "no file was read"),
    ],
)
def test_a_claim_no_call_did_is_flagged(
    reply: str, calls: list[list[AuditEvent]], why: str
) -> None:
    assert reason(reply, *calls) == why


@pytest.mark.parametrize(
    ("reply", "path"),
    [
        ("I've updated config.ini.", "config.ini"),
        ("I've updated config.ini.", "/work/project/config.ini"),
        ("I've updated /work/project/config.ini.", "config.ini"),
        ("I've updated ./src/app.py.", "/work/project/src/app.py"),
        ("I've updated app.py.", "src/app.py"),
        ("I updated the file.", "anything.txt"),
    ],
)
def test_an_edit_of_the_file_supports_the_claim(reply: str, path: str) -> None:
    assert reason(reply, edit(path)) is None


def test_a_read_of_the_file_by_absolute_path_supports_the_claim() -> None:
    assert reason("I read /work/project/notes.md.", read("notes.md")) is None
    assert reason("I read /elsewhere/notes.md.", read("notes.md")) == (
        "no read of /elsewhere/notes.md"
    )


def test_every_family_has_a_named_reader() -> None:
    names = {reader.name for reader in READERS.values()}
    assert len(names) == len(READERS)
    assert "" not in names


def test_a_reader_reads_calls_not_words() -> None:
    claim = Claim("edit", "updated config.ini", path="config.ini")
    spoken = [Call("read_file", {"path": "config.ini"}, "succeeded")]
    assert READERS["edit"].check(claim, spoken, HERE) == "no edit of config.ini"
