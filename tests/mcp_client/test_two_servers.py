"""Two real servers configured at once: the MCP project's filesystem server from npm (written by
no one here) and one written with the Python SDK in these tests. A scripted model calls a
read-only tool of a trusted server (it runs unasked), destructive tools (asked: refused where no
one can answer, approved under --yes) and a tool of a server no one configured (an error the
model reads); the audit log holds each call and each decision (docs/mcp.md, "Approving a
server's tools")."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.mcp_client.test_servers import SERVER


def run_with_servers(run_wisp, wisp_home: Path, tmp_path: Path, filesystem: list[str], *args: str):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "plan.txt").write_text("ship on Friday\n")
    notes = tmp_path / "notes"
    notes.mkdir(exist_ok=True)
    (notes / "old.txt").write_text("stale\n")
    wisp_home.mkdir(parents=True, exist_ok=True)
    servers = {
        "files": {"command": filesystem[0], "args": [*filesystem[1:], str(work)],
                  "trustAnnotations": True},
        "notes": {"command": sys.executable, "args": [str(SERVER)],
                  "env": {"NOTES_DIR": str(notes)}},
    }  # fmt: skip
    (wisp_home / "config.json").write_text(json.dumps({"mcpServers": servers}))
    calls = [
        ("files__read_text_file", {"path": str(work / "plan.txt")}),
        ("files__write_file", {"path": str(work / "new.txt"), "content": "written\n"}),
        ("notes__delete_note", {"name": "old.txt"}),
        ("tracker__create_issue", {"title": "x"}),
    ]
    responses = [{"tool_calls": [{"name": n, "arguments": a}]} for n, a in calls]
    model = tmp_path / "model.json"
    model.write_text(json.dumps({"responses": [*responses, {"text": "Done."}]}))
    done = run_wisp(*args, "-m", f"script:{model}", "tidy up", cwd=work)
    assert done.returncode == 0, done.stderr
    return work, notes


def outputs(events: list[dict]) -> dict[str, str]:
    return {
        e["details"]["tool"]: e["details"]["output"] for e in events if e["kind"] == "tool.result"
    }


def decisions(events: list[dict]) -> dict[str, str]:
    return {
        e["details"]["command"].split()[0]: e["details"]["decision"]
        for e in events
        if e["kind"] == "approval.decided"
    }


def test_without_anyone_to_ask_destructive_tools_are_refused(
    run_wisp, wisp_home: Path, tmp_path: Path, audit_lines, filesystem_server: list[str]
) -> None:
    work, notes = run_with_servers(run_wisp, wisp_home, tmp_path, filesystem_server)
    events = audit_lines()
    said = outputs(events)
    assert "ship on Friday" in said["files__read_text_file"]
    assert said["files__write_file"].startswith("error: files__write_file not approved")
    assert said["notes__delete_note"].startswith("error: notes__delete_note not approved")
    assert "files__read_text_file" in said["tracker__create_issue"]  # what is offered
    assert not (work / "new.txt").exists() and (notes / "old.txt").exists()
    # Asked (and refused, nobody being there to answer); the trusted read was never asked.
    requested = [
        e["details"]["command"].split()[0] for e in events if e["kind"] == "approval.requested"
    ]
    assert requested == ["files__write_file", "notes__delete_note"]
    assert decisions(events) == {"files__write_file": "denied", "notes__delete_note": "denied"}
    called = [e["details"]["tool"] for e in events if e["kind"] == "tool.call"]
    assert called == [
        "files__read_text_file", "files__write_file", "notes__delete_note",
        "tracker__create_issue",
    ]  # fmt: skip


def test_under_yes_destructive_tools_are_approved_and_run(
    run_wisp, wisp_home: Path, tmp_path: Path, audit_lines, filesystem_server: list[str]
) -> None:
    work, notes = run_with_servers(run_wisp, wisp_home, tmp_path, filesystem_server, "--yes")
    assert (work / "new.txt").read_text() == "written\n"
    assert not (notes / "old.txt").exists()
    events = audit_lines()
    assert decisions(events) == {"files__write_file": "approved", "notes__delete_note": "approved"}
    assert outputs(events)["notes__delete_note"] == "deleted old.txt"
