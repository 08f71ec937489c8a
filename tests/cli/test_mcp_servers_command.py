"""``wisp mcp-servers`` as a user runs it: every configured server started to show its state
and tools with their levels, a broken entry and a failing server named, ``check NAME`` for one
(docs/mcp.md, "MCP servers as tools")."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.mcp_client.test_servers import SERVER


def configure(home: Path, servers: dict) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text(json.dumps({"mcpServers": servers}))


def test_lists_each_server_its_state_and_its_tools_levels(
    run_wisp, wisp_home: Path, tmp_path: Path
) -> None:
    notes = {"command": sys.executable, "args": [str(SERVER)]}
    configure(wisp_home, {
        "notes": {**notes, "trustAnnotations": True, "tools": ["list_notes", "delete_note"]},
        "broken": {**notes, "env": {"NOTES_FAIL": "1"}},
        "off": {"command": "anything", "enabled": False},
        "bad": {"url": "ftp://example.net"},
    })  # fmt: skip
    listed = run_wisp("mcp-servers", "--json", cwd=tmp_path)
    assert listed.returncode == 1, listed.stderr  # one failed, one has a problem
    reports = {r["name"]: r for r in map(json.loads, listed.stdout.splitlines())}
    assert [reports[name]["state"] for name in ("notes", "broken", "off", "bad")] == [
        "ready", "failed", "disabled", "problem",
    ]  # fmt: skip
    tools = {t["name"]: t for t in reports["notes"]["tools"]}
    assert tools["notes__list_notes"] == {
        "name": "notes__list_notes", "level": "safe", "offered": True,
        "description": "The notes' names, one a line.",
    }  # fmt: skip
    assert tools["notes__delete_note"]["level"] == "dangerous"
    assert tools["notes__chart"]["offered"] is False
    assert reports["broken"]["note"].endswith(
        "(stderr: notes: cannot open the notes database: permission denied)"
    )
    assert reports["bad"]["note"].endswith("mcpServers.bad.url: expected an http(s) URL")

    checked = run_wisp("mcp-servers", "check", "notes", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert (
        checked.stdout.splitlines()[1] == "  notes__list_notes  safe  The notes' names, one a line."
    )
    unknown = run_wisp("mcp-servers", "check", "nope", cwd=tmp_path)
    assert unknown.returncode == 2
    assert "no MCP server named nope in mcpServers (configured: notes, broken, off, bad)" in (
        unknown.stderr
    )


def test_a_server_s_env_and_headers_are_secrets_shown_as_set_and_never_logged(
    run_wisp, wisp_home: Path, tmp_path: Path, audit_lines
) -> None:
    header = "ghp_" + "Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8Vb7"
    configure(wisp_home, {"tracker": {"url": "https://mcp.example.net/mcp"}})
    set_headers = run_wisp(
        "config", "set", "mcpServers.tracker.headers", json.dumps({"Authorization": header})
    )
    assert set_headers.returncode == 0, set_headers.stderr
    assert set_headers.stdout.strip() == "mcpServers.tracker.headers = set (config.json)"
    shown = run_wisp("config", "get", "mcpServers.tracker")
    assert header not in shown.stdout and '"headers":"[redacted]"' in shown.stdout
    listed = run_wisp("config", "list")
    assert header not in listed.stdout
    assert header not in json.dumps(audit_lines())
    stored = json.loads((wisp_home / "config.json").read_text())
    assert stored["mcpServers"]["tracker"]["headers"] == {"Authorization": header}
