"""Held-out negatives: `wisp scan` over this repository's own tracked files, run as the
installed script. Wisp's source holds no secret and no one's personal data, so every finding
must be explained by one entry below: the labelled corpus, or a test's made-up value in the
place wisp reads such values from. A false finding in wisp's own source is fixed in the rules
(`wisp/scan/`), not explained here; an entry that explains nothing any more is dropped."""

from __future__ import annotations

import json
import os
import subprocess
from fnmatch import fnmatchcase
from pathlib import Path

import msgspec
import pytest

from tests.conftest import WISP
from tests.hang import HANG

REPO = Path(__file__).resolve().parents[2]


class Explained(msgspec.Struct, frozen=True):
    glob: str
    """The files it covers, relative to the repository (`fnmatch`: `*` crosses folders)."""
    kind: str
    """The kind it covers, or `*` for every kind."""
    reason: str


class Found(msgspec.Struct, frozen=True):
    file: str
    line: int
    column: int
    kind: str


FAKE_KEY = "a test's made-up key, written where wisp reads keys (config.json, the environment)"
RULE_EXAMPLE = "the rules' own tests: each kind in the surroundings it turns up in"

EXPLAINED = (
    Explained("tests/scan/corpus/*", "*", "the labelled corpus: fake values on purpose"),
    Explained("tests/scan/test_rules.py", "*", RULE_EXAMPLE),
    Explained("tests/scan/test_redact.py", "*", RULE_EXAMPLE),
    Explained("tests/scan/test_searching.py", "*", "texts each rule's fast search must agree on"),
    Explained("tests/test_redaction.py", "*", "masking tests: what a person may type"),
    Explained("tests/cli/test_scan_command.py", "email", "the test repository's author"),
    Explained("tests/facts/test_book.py", "github-token", "a fact's value, masked"),
    Explained("tests/facts/test_book.py", "openai-key", "a fact's value, masked"),
    Explained("tests/config/test_secrets.py", "password-assignment", FAKE_KEY),
    Explained("tests/cli/test_config_command.py", "password-assignment", FAKE_KEY),
    Explained("tests/models/test_openai_compat.py", "password-assignment", FAKE_KEY),
    Explained("tests/tools/test_inspect.py", "password-assignment", FAKE_KEY),
)


def explains(entry: Explained, found: Found) -> bool:
    return fnmatchcase(found.file, entry.glob) and entry.kind in ("*", found.kind)


@pytest.fixture(scope="module")
def findings(tmp_path_factory: pytest.TempPathFactory) -> list[Found]:
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=False
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout: no tracked files to scan")
    files = [name for name in listed.stdout.decode().split("\0") if name]
    env = {k: v for k, v in os.environ.items() if k not in ("WISP_HOME", "WISP_LOG")}
    env["WISP_HOME"] = str(tmp_path_factory.mktemp("wisp-home"))
    scanned = subprocess.run(
        [str(WISP), "scan", "--json", *files],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=HANG, check=False,
    )  # fmt: skip
    assert scanned.returncode in (0, 1), scanned.stderr
    return [msgspec.convert(json.loads(line), Found) for line in scanned.stdout.splitlines()]


def test_every_finding_in_this_repository_is_explained(findings: list[Found]) -> None:
    unexplained = [
        f"{found.file}:{found.line}: {found.kind}"
        for found in findings
        if not any(explains(entry, found) for entry in EXPLAINED)
    ]
    assert unexplained == [], "fix the rules (wisp/scan/) or the file:\n" + "\n".join(unexplained)


def test_every_explanation_still_explains_a_finding(findings: list[Found]) -> None:
    idle = [entry for entry in EXPLAINED if not any(explains(entry, found) for found in findings)]
    assert idle == []


def test_wisp_s_own_code_and_docs_have_nothing_to_explain(findings: list[Found]) -> None:
    assert [found for found in findings if not found.file.startswith("tests/")] == []
