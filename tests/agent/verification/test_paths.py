"""Paths a reply names against the paths calls acted on (wisp/agent/verification/paths.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wisp.agent.verification.paths import mentions, same_file

HERE = Path("/work/project")


@pytest.mark.parametrize(
    ("claimed", "called"),
    [
        ("config.ini", "config.ini"),
        ("./config.ini", "config.ini"),
        ("config.ini", "/work/project/config.ini"),
        ("/work/project/config.ini", "config.ini"),
        ("/work/project/src/app.py", "./src/app.py"),
        ("src/app.py", "/work/project/src/app.py"),
        ("app.py", "src/app.py"),  # a bare name: the file of that name in any folder
        ("src/app.py", "/elsewhere/src/app.py"),
        ("`notes.md`", "notes.md"),
        ("docs/../notes.md", "notes.md"),
    ],
)
def test_one_file_however_it_is_written(claimed: str, called: str) -> None:
    assert same_file(claimed, called, HERE)


@pytest.mark.parametrize(
    ("claimed", "called"),
    [
        ("config.ini", "config.ini.bak"),
        ("/work/project/config.ini", "/other/config.ini"),
        ("/other/config.ini", "config.ini"),
        ("src/app.py", "lib/app.py"),
        ("app.py", "myapp.py"),
    ],
)
def test_other_files_are_other_files(claimed: str, called: str) -> None:
    assert not same_file(claimed, called, HERE)


def test_a_command_mentions_a_file_by_its_name() -> None:
    assert mentions("sed -i s/a/b/ src/config.ini", "config.ini")
    assert mentions("cat /work/project/notes.md | head", "./notes.md")
    assert not mentions("cat notes.md.bak", "notes.md")
    assert not mentions("cat mynotes.txt", "notes.md")
