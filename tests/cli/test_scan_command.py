"""`wisp scan` and `wisp redact` run as the installed script: a diff's added lines at their new
numbers, a file redacted byte for byte, the exit codes a pre-commit hook relies on, and an
audit log that holds no value found."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import WISP

AWS_KEY = "AKIA" + "QWERTYUIOPASDFGH"
EMAIL = "ana.lima@" + "acme-corp.net"
GITHUB = "ghp_" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8"
BEFORE = "import os\n\nREGION = 'eu-west-1'\n\n\ndef main():\n    return REGION\n"
AFTER = (
    "import os\n\nREGION = 'eu-west-1'\n"
    f"KEY_ID = '{AWS_KEY}'\n\n\ndef main():\n"
    f"    # owner: {EMAIL}\n    return REGION\n"
)


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False, env=env
    )
    assert done.returncode == 0 or args[0] == "commit", done.stderr
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "dev@acme-corp.net")
    git(repo, "config", "user.name", "Dev")
    (repo / "app.py").write_text(BEFORE)
    git(repo, "add", "app.py")
    git(repo, "commit", "-q", "-m", "first")
    return repo


def test_a_diff_reports_only_its_added_secrets_at_their_new_lines(run_wisp, repo: Path) -> None:
    (repo / "app.py").write_text(AFTER)
    diff = git(repo, "diff")
    scanned = run_wisp("scan", "--diff", input=diff)
    assert scanned.returncode == 1, scanned.stderr
    assert scanned.stdout == "app.py:4:11: aws-access-key  AKIA…\napp.py:8:14: email  ana.…\n"
    # Detected on stdin without --diff, and as JSON.
    as_json = run_wisp("scan", "--json", "-", input=diff)
    assert [json.loads(line) for line in as_json.stdout.splitlines()] == [
        {"file": "app.py", "line": 4, "column": 11, "kind": "aws-access-key"},
        {"file": "app.py", "line": 8, "column": 14, "kind": "email"},
    ]
    assert AFTER.splitlines()[3][10:].startswith(AWS_KEY)
    assert AFTER.splitlines()[7][13:].startswith(EMAIL)


def test_redact_leaves_every_other_byte_unchanged(run_wisp, repo: Path) -> None:
    (repo / "app.py").write_text(AFTER)
    redacted = run_wisp("redact", str(repo / "app.py"))
    assert redacted.returncode == 1, redacted.stderr
    assert redacted.stdout == AFTER.replace(AWS_KEY, "[REDACTED:aws-access-key]").replace(
        EMAIL, "[REDACTED:email]"
    )
    assert (repo / "app.py").read_text() == AFTER  # never in place unless asked
    out = repo / "shared.py"
    assert run_wisp("redact", "-o", str(out), str(repo / "app.py")).returncode == 1
    assert out.read_text() == redacted.stdout
    assert run_wisp("redact", "--in-place", str(repo / "app.py")).returncode == 1
    assert (repo / "app.py").read_text() == redacted.stdout


def test_nothing_found_is_0_and_an_error_is_2(run_wisp, repo: Path) -> None:
    clean = run_wisp("scan", str(repo))
    assert (clean.returncode, clean.stdout) == (0, "")
    missing = run_wisp("scan", str(repo / "missing.txt"))
    assert missing.returncode == 2 and "missing.txt" in missing.stderr
    assert run_wisp("redact", "--in-place", "-", input="x").returncode == 2


def test_a_folder_is_walked_as_git_sees_it_and_binary_files_are_counted(
    run_wisp, repo: Path
) -> None:
    (repo / ".gitignore").write_text("ignored.env\n")
    (repo / "ignored.env").write_text(f"TOKEN={GITHUB}\n")
    (repo / "new.env").write_text(f"TOKEN={GITHUB}\n")
    (repo / "blob.bin").write_bytes(b"\0\1" + GITHUB.encode())
    scanned = run_wisp("scan", str(repo))
    assert scanned.returncode == 1
    assert scanned.stdout == f"{repo / 'new.env'}:1:7: github-token  ghp_…\n"
    assert "1 binary file skipped" in scanned.stderr


def test_a_patch_file_in_a_folder_is_scanned_whole(run_wisp, repo: Path) -> None:
    (repo / "app.py").write_text(AFTER)
    patch = git(repo, "diff").replace(f"+KEY_ID = '{AWS_KEY}'", f"-KEY_ID = '{AWS_KEY}'")
    (repo / "rotate.patch").write_text(patch)
    git(repo, "checkout", "app.py")
    scanned = run_wisp("scan", "--json", str(repo))
    found = [
        (json.loads(line)["file"], json.loads(line)["kind"]) for line in scanned.stdout.splitlines()
    ]
    # The key a patch removes is still in the repository, in the patch: found there.
    assert found == [
        (str(repo / "rotate.patch"), "aws-access-key"),
        (str(repo / "rotate.patch"), "email"),
    ]


def test_sarif_names_wisp_and_each_finding_s_region(run_wisp, repo: Path) -> None:
    (repo / "app.py").write_text(AFTER)
    log = json.loads(run_wisp("scan", "--sarif", str(repo / "app.py")).stdout)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    assert run["tool"]["driver"]["name"] == "wisp"
    assert {"aws-access-key", "email"} <= {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    regions = [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]) for r in run["results"]
    ]
    assert regions == [
        ("aws-access-key", {"startLine": 4, "startColumn": 11}),
        ("email", {"startLine": 8, "startColumn": 14}),
    ]


def test_the_audit_log_holds_no_value_found(run_wisp, repo: Path, wisp_home: Path, audit_lines):
    secrets = f"KEY_ID={AWS_KEY}\ntoken: {GITHUB}\nmail {EMAIL}\n"
    (repo / "leak.env").write_text(secrets)
    assert run_wisp("scan", str(repo / "leak.env")).returncode == 1
    assert run_wisp("redact", "-", input=secrets).returncode == 1
    logged = b"".join(
        path.read_bytes() for path in (wisp_home / "logs").rglob("*") if path.is_file()
    )
    for value in (AWS_KEY, GITHUB, EMAIL, AWS_KEY[:8], GITHUB[:8]):
        assert value.encode() not in logged
    events = [(e["kind"], e["details"]) for e in audit_lines()]
    scans = [details for kind, details in events if kind == "secrets.scan"]
    assert scans == [
        {"source": str(repo / "leak.env"), "bytes": len(secrets), "diff": False,
         "thorough": False, "findings": 3,
         "kinds": {"aws-access-key": 1, "github-token": 1, "email": 1},
         "failedChunks": 0, "classifier": "personal@2"},
    ]  # fmt: skip
    (redaction,) = [details for kind, details in events if kind == "redaction"]
    assert redaction["source"] == "-" and redaction["replaced"]["github-token"] == 1
    entry_points = [d.get("entryPoint") for kind, d in events if kind == "session.start"]
    assert entry_points == ["scan", "redact"]


def test_the_pre_commit_hook_refuses_a_commit_adding_a_key(repo: Path, wisp_env) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ngit diff --cached | '{WISP}' scan --diff\n")
    hook.chmod(0o755)
    env = {**wisp_env, "PATH": os.environ["PATH"]}
    (repo / "app.py").write_text(AFTER)
    git(repo, "add", "app.py")
    refused = subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", "-m", "add key"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert refused.returncode != 0
    assert "app.py:4:11: aws-access-key" in refused.stdout + refused.stderr
    assert git(repo, "log", "--oneline").count("\n") == 1
    (repo / "app.py").write_text(BEFORE + "# nothing secret\n")
    git(repo, "add", "app.py")
    accepted = subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", "-m", "a comment"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert accepted.returncode == 0, accepted.stderr


def test_a_command_s_output_is_scanned_and_a_denied_command_is_an_error(
    run_wisp, repo: Path, audit_lines
) -> None:
    (repo / "app.py").write_text(AFTER)
    ran = run_wisp("scan", "--", "cat", "app.py", cwd=repo)
    assert ran.returncode == 1, ran.stderr
    assert ran.stdout.splitlines() == [
        "cat app.py:4:11: aws-access-key  AKIA…",
        "cat app.py:8:14: email  ana.…",
    ]
    (scan,) = [e["details"] for e in audit_lines() if e["kind"] == "secrets.scan"]
    assert (scan["source"], scan["workingDirectory"]) == ("cat app.py", str(repo))
    denied = run_wisp("scan", "--", "rm", "-rf", "/", cwd=repo)
    assert denied.returncode == 2 and "deny" in denied.stderr


def test_redact_past_max_bytes_says_it_was_truncated(run_wisp) -> None:
    text = f"id {AWS_KEY}\n" + "filler line\n" * 10
    redacted = run_wisp("redact", "--max-bytes", "30", "-", input=text)
    assert redacted.returncode == 1
    assert redacted.stdout == (
        "id [REDACTED:aws-access-key]\nfiller\n[wisp redact: truncated after 30 bytes]\n"
    )
