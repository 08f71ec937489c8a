"""With the network off, ``policy.decision`` records what was really cut: a UDP datagram from a
confined command, sent through the real ``wisp --yes`` with a ``script:`` model."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import no_namespaces
from tests.hang import HANG
from wisp.sandbox.plan import probe


@pytest.fixture
def receiver() -> Iterator[socket.socket]:
    """A UDP socket on the loopback, for a confined command to send to."""
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.settimeout(HANG)
    try:
        yield udp
    finally:
        udp.close()


def send_datagram(port: int) -> str:
    code = (
        "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
        f"s.sendto(b'x', ('127.0.0.1', {port})); print('sent')"
    )
    return f'{sys.executable} -c "{code}"'


def run_with_network_off(
    wisp: list[str], wisp_env: dict[str, str], tmp_path: Path, command: str
) -> str:
    """Run ``command`` as the model's with the network off; wisp's stderr."""
    config = subprocess.run(
        [*wisp, "config", "set", "commandPolicy.sandbox.network", "off"],
        env=wisp_env, capture_output=True, text=True, timeout=HANG,
    )  # fmt: skip
    assert config.returncode == 0, config.stderr
    script = tmp_path / "s.json"
    call = {"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}
    script.write_text(json.dumps({"responses": [call, {"text": "done"}]}))
    done = subprocess.run(
        [*wisp, "--yes", "-m", f"script:{script}", "send"],
        env=wisp_env, cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=HANG,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stderr


def recorded(audit_lines, kind: str) -> dict:
    return next(e["details"] for e in audit_lines() if e["kind"] == kind)


def test_with_the_namespace_udp_is_cut_and_the_decision_says_all(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, receiver: socket.socket,
    audit_lines,
) -> None:  # fmt: skip
    if probe().landlock_abi is None or not probe().namespace:
        pytest.skip("no Landlock, or no mount namespace here")
    port = receiver.getsockname()[1]
    run_with_network_off([str(wisp_script)], wisp_env, tmp_path, send_datagram(port))
    outcome = recorded(audit_lines, "command.outcome")
    assert outcome["exitStatus"] != 0 and "Network is unreachable" in outcome["stderr"]
    decision = recorded(audit_lines, "policy.decision")
    assert (decision["network"], decision["networkCut"]) == (False, "all")


def test_under_landlock_alone_udp_passes_and_the_decision_says_tcp(
    wisp_script: Path, wisp_env: dict[str, str], tmp_path: Path, receiver: socket.socket,
    audit_lines,
) -> None:  # fmt: skip
    # As on a machine where no namespace can be made: Landlock cuts TCP only, and the record
    # must not claim more.
    if probe().landlock_abi is None or probe().landlock_abi < 4:
        pytest.skip("Landlock's TCP rules (ABI 4) are needed")
    if not no_namespaces.supported():
        pytest.skip(no_namespaces.REASON_UNSUPPORTED)
    wisp = [*no_namespaces.launcher(), str(wisp_script)]
    said = run_with_network_off(wisp, wisp_env, tmp_path, send_datagram(receiver.getsockname()[1]))
    # ... and wisp says so at start, once: off cannot cut UDP here.
    assert said.count("TCP is cut, UDP and DNS stay open") == 1, said
    outcome = recorded(audit_lines, "command.outcome")
    assert (outcome["exitStatus"], outcome["stdout"]) == (0, "sent\n")
    assert receiver.recv(1) == b"x"
    decision = recorded(audit_lines, "policy.decision")
    assert (decision["network"], decision["networkCut"]) == (True, "tcp")
