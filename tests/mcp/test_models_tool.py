"""The model's ``models`` tool through a real ``wisp mcp`` (docs/models.md, "The models tool"):
a ``script:`` model asks to pull, enable or check a model, the request waits on the person, who
answers with ``wisp approvals`` at a pseudo-terminal, and what the change records carries
``source: tool`` and the id of the approval that allowed it (``approval.decided``'s). The pull
comes from a loopback Hugging Face Hub (tests/models/fake_hub.py) and runs in the background."""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tests.hang import HANG
from tests.mcp.conftest import Connect, approvals, waiting_request, write_config, write_script
from tests.models.conftest import free_port, ollama_pull_lines
from tests.models.fake_hub import FakeHub, HubFile, HubRepo, serving

REPO = "acme/Tiny-GGUF"
FILE = "tiny-Q4_K_M.gguf"
NAME = "tiny-Q4_K_M"
DATA = bytes(range(256)) * 800  # 200 KB: a file small enough to arrive at once
SHA256 = hashlib.sha256(DATA).hexdigest()
PULL = f"models pull hf:{REPO}/{FILE}"
AuditLines = Callable[[], list[dict]]


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with serving(FakeHub()) as hub:
        hub.add(REPO, HubRepo("acme", [HubFile(FILE, data=DATA)]))
        yield hub


@pytest.fixture
def hf_home(tmp_path: Path) -> Path:
    return tmp_path / "hf"


@pytest.fixture
def wisp_env(wisp_home: Path, hub: FakeHub, hf_home: Path) -> dict[str, str]:
    """The environment of every ``wisp`` the test starts: the fresh home, and the loopback Hub
    in place of the real one."""
    env = {k: v for k, v in os.environ.items() if k not in ("WISP_HOME", "WISP_LOG")}
    return env | {
        "WISP_HOME": str(wisp_home),
        "HF_HOME": str(hf_home),
        "HF_ENDPOINT": hub.endpoint,
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }


def call(arguments: dict[str, str]) -> dict[str, Any]:
    return {"tool_calls": [{"name": "models", "arguments": arguments}]}


DONE = {"text": "Done."}


def details(events: list[dict], kind: str) -> list[dict]:
    return [event["details"] for event in events if event["kind"] == kind]


async def recorded(audit_lines: AuditLines, kind: str) -> list[dict]:
    """The events of ``kind``, once there is one: a background pull records itself when it
    ends, after the call that started it has returned."""
    async with asyncio.timeout(HANG):
        while True:
            try:
                events = audit_lines()
            except msgspec.DecodeError:  # a line being written
                events = []
            if found := [event for event in events if event["kind"] == kind]:
                return found
            await asyncio.sleep(0.01)


def blobs(hf_home: Path) -> Path:
    return hf_home / "hub" / f"models--{REPO.replace('/', '--')}" / "blobs"


def stored(wisp_home: Path) -> dict[str, Any]:
    return msgspec.json.decode((wisp_home / "config.json").read_bytes())


Asking = Callable[..., Any]


@pytest.fixture
def asking(connect: Connect, tmp_path: Path, wisp_home: Path) -> Asking:
    """``async with asking(responses, settings) as (client, call)``: a ``wisp mcp`` whose
    config has ``models.tool`` on (and ``settings``), its thread ``m`` asked once, ``call``
    the running ``respond``, its model a script of ``responses``."""

    @asynccontextmanager
    async def thread(
        responses: list[dict[str, Any]], settings: dict[str, Any] | None = None
    ) -> AsyncIterator[tuple[Any, asyncio.Task[Any]]]:
        settings = settings or {}
        models = {"tool": True, **settings.get("models", {})}
        write_config(wisp_home, {**settings, "models": models})
        script = write_script(tmp_path, responses)
        async with connect(["-m", f"script:{script}"]) as client:
            asked = client.call_tool("respond", {"prompt": "Do it.", "thread_id": "m"})
            yield client, asyncio.create_task(asked)

    return thread


class Person:
    """The person, answering the thread's requests with ``wisp approvals`` at a terminal."""

    def __init__(self, home: Path, env: dict[str, str], terminal: int) -> None:
        self.home, self.env, self.terminal = home, env, terminal

    async def waiting(self) -> Any:
        """The request the thread filed, once it is filed."""
        return await waiting_request(self.home)

    async def answers(self, verb: str, request: Any) -> str:
        return await approvals(self.env, verb, request.id, stdin=self.terminal)


@pytest.fixture
def person(wisp_home: Path, wisp_env: dict[str, str], terminal: int) -> Person:
    return Person(wisp_home, wisp_env, terminal)


# -- pull --------------------------------------------------------------------------------------


async def test_a_pull_the_model_asks_for_waits_on_the_person_and_records_their_approval(
    asking: Asking, person: Person, wisp_home: Path, hf_home: Path, audit_lines: AuditLines
) -> None:
    pulling = [
        call({"action": "pull", "name": f"hf:{REPO}"}),
        {"text": "The pull has started."},
        call({"action": "list"}),
        {"text": "It is pulled."},
    ]
    async with asking(pulling) as (client, started):
        request = await person.waiting()
        assert not started.done()  # the call waits on the person
        assert (request.command, request.level) == (PULL, "dangerous")
        assert any("published by acme" in reason for reason in request.reasons)
        assert PULL in await approvals(person.env, "pending", stdin=person.terminal)
        await person.answers("approve", request)
        first = await started
        [pulled] = await recorded(audit_lines, "model.pull")
        listed = await client.call_tool("respond", {"prompt": "Is it done?", "thread_id": "m"})

    [said] = first.structured_content["calls"]
    assert said["output"].startswith(f"approved: {PULL} started in the background (approval ")
    events = audit_lines()
    [decided] = details(events, "approval.decided")
    approval = decided["approvalID"]
    assert approval and (decided["decision"], decided["scope"]) == ("approved", "once")
    assert (pulled["details"]["source"], pulled["details"]["approval"]) == ("tool", approval)
    assert (pulled["details"]["model"], pulled["details"]["outcome"]) == (
        f"local:{NAME}",
        "fetched",
    )
    [publisher] = details(events, "model.publisher")
    assert (publisher["source"], publisher["approval"]) == ("tool", approval)
    # acme is not in models.trustedPublishers: the person approved this pull alone.
    assert (publisher["publisher"], publisher["decision"], publisher["asked"]) == (
        "acme",
        "once",
        True,
    )
    [checksum] = details(events, "config.change")
    assert (checksum["path"], checksum["source"], checksum["approval"]) == (
        f"local.models.{NAME}.sha256",
        "tool",
        approval,
    )
    # All in the asking thread's log, in order: the answer, who published it, the pull.
    thread = next(e["session"] for e in events if e["kind"] == "approval.decided")
    kinds = [e["kind"] for e in events if e["session"] == thread]
    assert (
        kinds.index("approval.decided") < kinds.index("model.publisher") < kinds.index("model.pull")
    )
    assert (blobs(hf_home) / SHA256).read_bytes() == DATA
    assert stored(wisp_home)["local"]["models"][NAME]["sha256"] == SHA256
    # The model learns how its pull ended from the tool's list.
    [listing] = listed.structured_content["calls"]
    assert f"{PULL}: pulled hf:{REPO}/{FILE} as local:{NAME}" in listing["output"]
    assert any(line.startswith(f"local:{NAME} · ") for line in listing["output"].splitlines())


async def test_a_trusted_publishers_pull_is_still_asked_and_recorded_as_trusted(
    asking: Asking, person: Person, wisp_home: Path, audit_lines: AuditLines
) -> None:
    trusting = {"models": {"trustedPublishers": ["ACME"]}}
    pulling = [call({"action": "pull", "name": f"hf:{REPO}"}), DONE]
    async with asking(pulling, trusting) as (_, started):
        request = await person.waiting()
        assert any("whom models.trustedPublishers lists" in r for r in request.reasons)
        await person.answers("approve", request)
        await started
        [pulled] = await recorded(audit_lines, "model.pull")

    events = audit_lines()
    approval = details(events, "approval.decided")[0]["approvalID"]
    [publisher] = details(events, "model.publisher")
    assert (publisher["decision"], publisher["reason"], publisher["approval"]) == (
        "trusted",
        "listed in models.trustedPublishers",
        approval,
    )
    assert (pulled["details"]["outcome"], pulled["details"]["approval"]) == ("fetched", approval)
    # The model's pull never adds to the trusted publishers.
    assert stored(wisp_home)["models"]["trustedPublishers"] == ["ACME"]


async def test_an_ollama_pull_runs_in_the_background_once_approved(
    asking: Asking, person: Person, ollama: Any, audit_lines: AuditLines
) -> None:
    layer = "sha256:" + "3f2a9c1e" * 8
    ollama.pull_with(ollama_pull_lines((layer, 5_000, 1_000)))
    pulling = [call({"action": "pull", "name": "ollama:qwen3:8b"}), DONE]
    async with asking(pulling, {"ollama": {"baseURL": ollama.base_url}}) as (_, started):
        request = await person.waiting()
        assert request.command == "models pull ollama:qwen3:8b"
        await person.answers("approve", request)
        await started
        [pulled] = await recorded(audit_lines, "model.pull")

    approval = details(audit_lines(), "approval.decided")[0]["approvalID"]
    assert {key: pulled["details"][key] for key in ("model", "outcome", "source", "approval")} == {
        "model": "ollama:qwen3:8b",
        "outcome": "fetched",
        "source": "tool",
        "approval": approval,
    }
    assert ollama.server.requests_to("/api/pull")[0].body == {"model": "qwen3:8b", "stream": True}


async def test_a_refused_pull_fetches_nothing_and_the_model_is_told(
    asking: Asking,
    person: Person,
    wisp_home: Path,
    hf_home: Path,
    hub: FakeHub,
    audit_lines: AuditLines,
) -> None:
    async with asking([call({"action": "pull", "name": f"hf:{REPO}"}), DONE]) as (_, started):
        await person.answers("deny", await person.waiting())
        result = await started

    [said] = result.structured_content["calls"]
    assert said["output"] == (
        f"error: {PULL} not approved: declined by the user; nothing was changed"
    )
    events = audit_lines()
    [pull] = details(events, "model.pull")
    assert (pull["outcome"], pull["reason"], pull["source"], pull["approval"]) == (
        "declined",
        "declined by the user",
        "tool",
        None,
    )
    assert details(events, "model.publisher") == []  # recorded only once approved
    assert not blobs(hf_home).exists()
    assert not [path for path in hub.requests if path[1].startswith("/cdn/")]
    assert "local" not in stored(wisp_home)


# -- enable and check --------------------------------------------------------------------------


async def test_an_approved_enable_records_the_change_with_the_approval(
    asking: Asking, person: Person, wisp_home: Path, audit_lines: AuditLines
) -> None:
    enabling = [call({"action": "enable", "name": "ollama:qwen3"}), DONE]
    async with asking(enabling, {"models": {"disabled": ["ollama:qwen3"]}}) as (_, started):
        request = await person.waiting()
        assert request.command == "models enable ollama:qwen3:latest"
        await person.answers("approve", request)
        result = await started

    [said] = result.structured_content["calls"]
    assert said["output"] == "enabled ollama:qwen3:latest"
    events = audit_lines()
    [decided] = details(events, "approval.decided")
    [change] = details(events, "config.change")
    assert change == {
        "path": "models.disabled",
        "old": ["ollama:qwen3"],
        "new": None,
        "source": "tool",
        "approval": decided["approvalID"],
    }
    assert "disabled" not in stored(wisp_home)["models"]


async def test_an_approved_check_records_model_verified_with_the_approval(
    asking: Asking, person: Person, audit_lines: AuditLines
) -> None:
    pytest.importorskip("llama_cpp", reason="the check loads the embedded model: the local extra")
    async with asking([call({"action": "check", "name": "local"}), DONE]) as (_, started):
        request = await person.waiting()
        assert (request.command, request.level) == ("models check local", "moderate")
        await person.answers("approve", request)
        result = await started

    [said] = result.structured_content["calls"]
    assert "local holds a conversation but did not call a tool" in said["output"]
    events = audit_lines()
    approval = details(events, "approval.decided")[0]["approvalID"]
    [verified] = details(events, "model.verified")
    assert (verified["model"], verified["trigger"], verified["source"]) == (
        "local",
        "check",
        "tool",
    )
    assert verified["approval"] == approval
    [change] = details(events, "config.change")
    assert (change["source"], change["approval"]) == ("tool", approval)


# -- offered, and listing ----------------------------------------------------------------------


async def test_the_tool_is_off_by_default(
    connect: Connect, tmp_path: Path, audit_lines: AuditLines
) -> None:
    script = write_script(tmp_path, [call({"action": "list"}), DONE])
    async with connect(["-m", f"script:{script}"]) as client:
        result = await client.call_tool("respond", {"prompt": "Which models are there?"})

    [said] = result.structured_content["calls"]
    assert said["output"].startswith("error: there is no tool named models.")
    started = details(audit_lines(), "session.start")
    assert started and all("models" not in start["tools"] for start in started)


async def test_list_needs_no_approval(asking: Asking, audit_lines: AuditLines) -> None:
    refused_url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    nowhere = {
        name: {"baseURL": refused_url} for name in ("ollama", "llamacpp", "lmstudio", "openai")
    }
    async with asking([call({"action": "list"}), DONE], nowhere) as (_, started):
        result = await started

    [said] = result.structured_content["calls"]
    lines = said["output"].splitlines()
    assert lines[0] == "models (* the one in use):"
    assert lines[1].startswith("local · local · enabled · ")
    assert lines[2] == f"unreachable: Ollama at {refused_url} is unreachable: connection refused"
    events = audit_lines()
    assert all("models" in start["tools"] for start in details(events, "session.start"))
    assert details(events, "approval.requested") == []
