"""The network setting through the real ``wisp`` (docs/sandbox.md, "Network"): ``--yes`` never
opens the network to a command, ``--yes-network`` does, and the old ``allowNetwork`` is still read,
with a note. A real listener on 127.0.0.1 answers every connection from a thread of its own; a
``script:`` model asks for the command; stdin is not a terminal, so nobody else can answer."""

from __future__ import annotations

import json
import socketserver
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hang import HANG
from wisp.sandbox.plan import probe_uncached

REPLY = b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"


class Listener(socketserver.ThreadingTCPServer):
    daemon_threads = True
    connections: list[str]


class Answer(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.server.connections.append("connected")  # type: ignore[attr-defined]
        self.request.sendall(REPLY)


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener(("127.0.0.1", 0), Answer)
    server.connections = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(autouse=True)
def cut_everything() -> None:
    support = probe_uncached()
    if support.landlock_abi is None or not (support.namespace or support.bwrap):
        pytest.skip("turning the network off for every protocol needs a namespace or bubblewrap")


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


def port_of(listener: Listener) -> int:
    return listener.server_address[1]


def curl(listener: Listener) -> str:
    return f"curl -sS http://127.0.0.1:{port_of(listener)}/"


def python_client(listener: Listener) -> str:
    code = (
        "import socket; "
        f"s = socket.create_connection(('127.0.0.1', {port_of(listener)})); print(s.recv(64))"
    )
    return f'{sys.executable} -c "{code}"'


def run(
    wisp_script: Path, wisp_env: dict[str, str], workdir: Path, switch: str, command: str
) -> subprocess.CompletedProcess[str]:
    """``wisp SWITCH`` with a model that asks to run ``command`` once."""
    call = {"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}
    script = workdir.parent / "script.json"
    script.write_text(json.dumps({"responses": [call, {"text": "done"}]}))
    done = subprocess.run(
        [str(wisp_script), switch, "-m", f"script:{script}", "go"],
        env=wisp_env, cwd=workdir, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def tool_results(audit_lines) -> list[str]:
    return [e["details"]["output"] for e in audit_lines() if e["kind"] == "tool.result"]


def test_yes_alone_does_not_open_the_network(
    wisp_script: Path, wisp_env: dict[str, str], workdir: Path, listener: Listener, audit_lines
) -> None:
    done = run(wisp_script, wisp_env, workdir, "--yes", curl(listener))

    assert listener.connections == []
    [result] = tool_results(audit_lines)
    assert "--yes never opens" in result and "--yes-network" in result
    assert "--yes never opens the network" in done.stderr  # said at start


def test_yes_network_opens_it_to_a_marked_program(
    wisp_script: Path, wisp_env: dict[str, str], workdir: Path, listener: Listener, audit_lines
) -> None:
    run(wisp_script, wisp_env, workdir, "--yes-network", curl(listener))

    assert listener.connections == ["connected"]
    decision = next(e["details"] for e in audit_lines() if e["kind"] == "policy.decision")
    assert decision["network"] is True


def test_yes_network_leaves_an_unmarked_program_offline(
    wisp_script: Path, wisp_env: dict[str, str], workdir: Path, listener: Listener, audit_lines
) -> None:
    run(wisp_script, wisp_env, workdir, "--yes-network", python_client(listener))

    assert listener.connections == []
    [result] = tool_results(audit_lines)
    assert "wisp config set commandPolicy.sandbox.network on" in result


@pytest.mark.parametrize(("old", "connects"), [("false", False), ("true", True)])
def test_allow_network_is_still_read_with_a_note(
    wisp_script: Path, wisp_env: dict[str, str], workdir: Path, listener: Listener, run_wisp,
    old: str, connects: bool,
) -> None:  # fmt: skip
    assert run_wisp("config", "set", "commandPolicy.sandbox.allowNetwork", old).returncode == 0
    # --yes-network would open it to curl under ask: off must hold even so.
    done = run(wisp_script, wisp_env, workdir, "--yes-network", curl(listener))

    assert listener.connections == (["connected"] if connects else [])
    mode = "on" if connects else "off"
    assert f"allowNetwork {old} is read as commandPolicy.sandbox.network {mode}" in done.stderr


@pytest.mark.parametrize("face", [[], ["chat"], ["mcp"], ["acp"]])
def test_every_face_with_yes_has_yes_network(run_wisp, face: list[str]) -> None:
    done = run_wisp(*face, "--help")
    assert done.returncode == 0, done.stderr
    assert "--yes-network" in done.stdout
