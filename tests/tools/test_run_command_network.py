"""The network for the model's commands (docs/sandbox.md, "Network"): a real listener on
127.0.0.1, real commands in the real sandbox, the real gate with a scripted person.

Under ``off`` nothing connects; under ``ask`` a program the rules mark (curl) is asked about and
connects once approved, and one they do not mark (a Python one-liner) runs offline, its failure
saying how to allow the network; ``--yes`` alone never opens it, ``--yes-network`` does; a ``!``
command keeps it. Every client waits for the listener's reply, so a connection that got through
is always served before the command ends: no clock decides."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from wisp.audit.kinds import PolicyDecision
from wisp.config.sections import NetworkMode
from wisp.policy.approval_cache import SessionApprovals
from wisp.policy.approvals import ApprovalStore
from wisp.policy.approvers import NobodyApprover, YesApprover
from wisp.policy.gate import ApprovalGate
from wisp.policy.patterns import CommandPatterns
from wisp.policy.types import Answer, ApprovalQuestion, Approver
from wisp.sandbox.plan import CUT_ALL, probe_uncached
from wisp.sandbox.writable import WritableSet
from wisp.tools.command_runner import CommandRunner, CommandSettings, Ran, Refused

REPLY = b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"


class Listener:
    """A TCP server on the loopback that answers every connection and counts them."""

    def __init__(self) -> None:
        self.connections = 0
        self.port = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        writer.write(REPLY)
        await writer.drain()
        writer.close()


class Person:
    """The person, as a script: each question gets the next answer."""

    can_ask = True

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.questions: list[ApprovalQuestion] = []

    async def ask(self, question: ApprovalQuestion, timeout: float | None) -> Answer | None:
        self.questions.append(question)
        return self.answers.pop(0)


@pytest.fixture
async def listener() -> AsyncIterator[Listener]:
    found = Listener()
    server = await asyncio.start_server(found.serve, "127.0.0.1", 0)
    found.port = server.sockets[0].getsockname()[1]
    async with server:
        yield found


@pytest.fixture(autouse=True)
def cut_everything() -> None:
    support = probe_uncached()
    if support.landlock_abi is None or not (support.namespace or support.bwrap):
        pytest.skip("turning the network off for every protocol needs a namespace or bubblewrap")


def python_client(port: int) -> str:
    """Not marked by the rules: connects, then waits for the listener's reply."""
    code = f"import socket; s = socket.create_connection(('127.0.0.1', {port})); print(s.recv(64))"
    return f'{sys.executable} -c "{code}"'


def curl(port: int) -> str:
    return f"curl -sS http://127.0.0.1:{port}/"


class Harness:
    def __init__(self, tmp_path: Path) -> None:
        self.workdir = tmp_path / "work"
        self.workdir.mkdir()
        self.home = tmp_path / "wisp-home"
        self.home.mkdir()
        self.recorded: list[Any] = []

    def record(self, details: Any) -> str:
        self.recorded.append(details)
        return str(len(self.recorded))

    def runner(self, network: NetworkMode, approver: Approver | None = None) -> CommandRunner:
        # At dangerous, no command here is asked for its level: only the network asks.
        gate = ApprovalGate(
            "dangerous",
            approver or Person(),
            ApprovalStore(self.home / "approvals.json"),
            record=self.record,
            session=SessionApprovals(),
        )
        return CommandRunner(
            patterns=CommandPatterns.compile(),
            gate=gate,
            writable=WritableSet.build(
                working_directory=self.workdir, home=self.home, environ=os.environ
            ),
            support=probe_uncached(),
            settings=CommandSettings(network=network),
            environ=os.environ,
        )

    async def run(self, runner: CommandRunner, line: str) -> Ran | Refused:
        return await runner.run_for_model(
            line, self.workdir, timeout=None, turn=1, record=self.record
        )

    def decision(self) -> PolicyDecision:
        return [d for d in self.recorded if isinstance(d, PolicyDecision)][-1]


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    return Harness(tmp_path)


async def test_off_refuses_every_connection(harness: Harness, listener: Listener) -> None:
    person = Person()
    runner = harness.runner("off", person)

    for line in (python_client(listener.port), curl(listener.port)):
        ran = await harness.run(runner, line)
        assert isinstance(ran, Ran) and ran.result.exit_status != 0, line
        assert (harness.decision().network, harness.decision().network_cut) == (False, CUT_ALL)

    assert listener.connections == 0
    assert person.questions == []  # off never asks: there is nothing to approve
    assert ran.refusal is not None
    assert "commandPolicy.sandbox.network is off" in ran.refusal.line


async def test_ask_asks_about_a_marked_program_saying_network(
    harness: Harness, listener: Listener
) -> None:
    person = Person("deny")

    refused = await harness.run(harness.runner("ask", person), curl(listener.port))

    assert isinstance(refused, Refused) and listener.connections == 0
    [question] = person.questions
    assert question.network and question.pattern == "curl * (network)"
    assert question.reasons[0] == "network: fetches or sends over the network"


async def test_ask_runs_a_marked_program_with_the_network_once_approved(
    harness: Harness, listener: Listener
) -> None:
    ran = await harness.run(harness.runner("ask", Person("once")), curl(listener.port))

    assert isinstance(ran, Ran), ran
    assert (ran.result.exit_status, ran.result.stdout) == (0, "ok")
    assert listener.connections == 1
    assert harness.decision().network is True


async def test_ask_runs_an_unmarked_program_offline_with_the_line_saying_how_to_allow_it(
    harness: Harness, listener: Listener
) -> None:
    person = Person()

    ran = await harness.run(harness.runner("ask", person), python_client(listener.port))

    assert isinstance(ran, Ran) and ran.result.exit_status != 0
    assert listener.connections == 0 and person.questions == []
    assert ran.refusal is not None
    assert "wisp config set commandPolicy.sandbox.network on" in ran.refusal.line
    assert (harness.decision().network, harness.decision().network_cut) == (False, CUT_ALL)


async def test_yes_alone_does_not_open_the_network(harness: Harness, listener: Listener) -> None:
    runner = harness.runner("ask", YesApprover(NobodyApprover()))

    refused = await harness.run(runner, curl(listener.port))

    assert isinstance(refused, Refused) and "--yes-network" in refused.reason
    assert listener.connections == 0


async def test_yes_network_opens_it(harness: Harness, listener: Listener) -> None:
    runner = harness.runner("ask", YesApprover(NobodyApprover(), network=True))

    ran = await harness.run(runner, curl(listener.port))

    assert isinstance(ran, Ran) and ran.result.exit_status == 0
    assert listener.connections == 1


async def test_on_lets_every_command_connect(harness: Harness, listener: Listener) -> None:
    ran = await harness.run(harness.runner("on"), python_client(listener.port))

    assert isinstance(ran, Ran) and ran.result.exit_status == 0, ran
    assert listener.connections == 1 and harness.decision().network is True


async def test_a_command_the_person_types_keeps_the_network_under_off(
    harness: Harness, listener: Listener
) -> None:
    runner = harness.runner("off")

    ran = await runner.run_typed(
        python_client(listener.port), harness.workdir, record=harness.record
    )

    assert isinstance(ran, Ran) and ran.result.exit_status == 0, ran
    assert listener.connections == 1
    assert (harness.decision().origin, harness.decision().network) == ("person", True)


async def test_a_failure_that_says_network_is_unreachable_says_how_to_allow_it(
    harness: Harness,
) -> None:
    # A datagram to the loopback: no listener is needed for the kernel to refuse the send.
    code = (
        "import socket; "
        "socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', 9))"
    )
    ran = await harness.run(harness.runner("ask"), f'{sys.executable} -c "{code}"')

    assert isinstance(ran, Ran) and "Network is unreachable" in ran.result.stderr
    assert ran.refusal is not None
    assert ran.refusal.line.startswith("sandbox: this command ran offline")


async def test_unsafe_asks_nothing_of_the_network_it_cannot_cut(
    harness: Harness, listener: Listener
) -> None:
    person = Person()
    runner = harness.runner("ask", person)
    runner.settings = msgspec.structs.replace(runner.settings, unsafe=True)

    ran = await harness.run(runner, curl(listener.port))

    assert isinstance(ran, Ran) and ran.result.exit_status == 0
    assert person.questions == [] and listener.connections == 1
