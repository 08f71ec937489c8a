"""A loopback Hugging Face Hub, for ``wisp models pull hf:…`` through ``HF_ENDPOINT``.

It speaks what ``huggingface_hub`` asks of the Hub (its file_download.py and hf_api.py):

- ``GET /api/models/{repo}`` and ``/api/models/{repo}/revision/{rev}``: the model's info, with
  ``id``, ``author``, ``sha``, ``cardData`` and ``siblings`` (``rfilename``, ``size``,
  ``blobId``, and ``lfs`` with ``sha256``, ``size`` and ``pointerSize`` for LFS files);
- ``HEAD`` and ``GET /{repo}/resolve/{rev}/{file}``: for an LFS file, a 302 as the Hub gives,
  with ``X-Repo-Commit``, ``ETag`` (the pointer's), ``X-Linked-Etag`` (the file's SHA-256),
  ``X-Linked-Size`` and ``Location`` on a second server, the "CDN", on another port (another
  origin, so the library stops at the redirect, as it does for the Hub's real CDN);
- ``GET /cdn/{sha256}`` on the CDN: the bytes, honouring ``Range`` (206 with
  ``Content-Range``).

Errors carry ``X-Error-Code`` (``RepoNotFound``, ``EntryNotFound``) as the Hub's do. Faults for
the tests: the CDN breaks the connection after some bytes once, stalls after some bytes until
released, or serves different bytes than the SHA-256 it advertises.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tests.hang import HANG

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class HubFile:
    """One file of a repository: its bytes are read from ``path`` or held in ``data``."""

    name: str
    data: bytes | None = None
    path: Path | None = None
    lfs: bool = True
    served: bytes | None = None
    """What the CDN sends instead of the file (a corrupted copy); None: the file."""

    def content(self) -> bytes:
        return self.data if self.data is not None else self.path.read_bytes()  # type: ignore[union-attr]

    @property
    def size(self) -> int:
        return len(self.data) if self.data is not None else self.path.stat().st_size  # type: ignore[union-attr]

    @property
    def sha256(self) -> str:
        return _sha256(self.content())


@dataclass
class HubRepo:
    author: str
    files: list[HubFile]
    licence: str = "apache-2.0"
    sha: str = COMMIT


@dataclass
class Faults:
    break_after: int | None = None
    """The CDN's next GET sends this many bytes, then drops the connection (once)."""
    stall_after: int | None = None
    """The CDN's next GET sends this many bytes, then waits for ``release`` (once)."""
    release: threading.Event = field(default_factory=threading.Event)


@dataclass
class FakeHub:
    repos: dict[str, HubRepo] = field(default_factory=dict)
    faults: Faults = field(default_factory=Faults)
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)
    """(method, path, Range header) of every request, both servers."""
    endpoint: str = ""
    cdn: str = ""
    _blobs: dict[str, HubFile] = field(default_factory=dict)

    def add(self, repository: str, repo: HubRepo) -> None:
        self.repos[repository] = repo
        for file in repo.files:
            self._blobs[file.sha256] = file

    def ranges(self) -> list[str | None]:
        """The ``Range`` header of each GET of a file's bytes."""
        return [rng for method, path, rng in self.requests if path.startswith("/cdn/")]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    hub: FakeHub

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_HEAD(self) -> None:
        self._route(head=True)

    def do_GET(self) -> None:
        self._route(head=False)

    def _route(self, *, head: bool) -> None:
        path = unquote(urlsplit(self.path).path)
        self.hub.requests.append((self.command, path, self.headers.get("Range")))
        if path.startswith("/api/models/"):
            return self._info(path.removeprefix("/api/models/"))
        if path.startswith("/cdn/"):
            return self._bytes(path.removeprefix("/cdn/"), head=head)
        match = re.fullmatch(r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
        if match:
            return self._resolve(*match.groups())
        self._error(404, "EntryNotFound")

    def _info(self, rest: str) -> None:
        repository, _, _revision = rest.partition("/revision/")
        repo = self.hub.repos.get(repository)
        if repo is None:
            return self._error(401, "RepoNotFound")
        siblings = []
        for file in repo.files:
            sibling: dict[str, object] = {"rfilename": file.name, "size": file.size}
            sibling["blobId"] = hashlib.sha1(file.content()).hexdigest()
            if file.lfs:
                sibling["lfs"] = {"sha256": file.sha256, "size": file.size, "pointerSize": 134}
            siblings.append(sibling)
        body = {
            "id": repository,
            "author": repo.author,
            "sha": repo.sha,
            "private": False,
            "cardData": {"license": repo.licence},
            "siblings": siblings,
        }
        self._send(200, json.dumps(body).encode(), {"Content-Type": "application/json"})

    def _resolve(self, repository: str, revision: str, name: str) -> None:
        repo = self.hub.repos.get(repository)
        if repo is None:
            return self._error(401, "RepoNotFound")
        file = next((f for f in repo.files if f.name == name), None)
        if file is None:
            return self._error(404, "EntryNotFound", {"X-Repo-Commit": repo.sha})
        headers = {"X-Repo-Commit": repo.sha, "Content-Type": "text/plain"}
        if not file.lfs:
            headers["ETag"] = f'"{hashlib.sha1(file.content()).hexdigest()}"'
            return self._send(200, file.content(), headers)
        headers |= {
            "ETag": '"pointer-etag"',
            "X-Linked-Etag": f'"{file.sha256}"',
            "X-Linked-Size": str(file.size),
            "Location": f"{self.hub.cdn}/cdn/{file.sha256}",
        }
        self._send(302, b"Found. Redirecting", headers)

    def _bytes(self, sha256: str, *, head: bool) -> None:
        file = self.hub._blobs.get(sha256)
        if file is None:
            return self._error(404, "EntryNotFound")
        data = file.served if file.served is not None else file.content()
        start = 0
        status, headers = (
            200,
            {"Content-Type": "application/octet-stream", "Accept-Ranges": "bytes"},
        )
        if match := re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or ""):
            start = int(match.group(1))
            if start >= len(data):
                return self._send(416, b"", {"Content-Range": f"bytes */{len(data)}"})
            status = 206
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        body = data[start:]
        headers["Content-Length"] = str(len(body))
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if head:
            return
        faults = self.hub.faults
        cut = faults.break_after if faults.break_after is not None else faults.stall_after
        if cut is None or cut >= start + len(body):
            self.wfile.write(body)
            return
        self.wfile.write(body[: max(0, cut - start)])
        self.wfile.flush()
        if faults.break_after is not None:
            faults.break_after = None
        else:
            faults.stall_after = None
            faults.release.wait(HANG)
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(2)

    def _error(self, status: int, code: str, extra: dict[str, str] | None = None) -> None:
        body = json.dumps({"error": code}).encode()
        headers = {"X-Error-Code": code, "Content-Type": "application/json", **(extra or {})}
        self._send(status, body, headers)

    def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


@contextlib.contextmanager
def serving(hub: FakeHub) -> Iterator[FakeHub]:
    """The Hub and its CDN on two loopback ports, until the block ends."""
    handler = type("Handler", (_Handler,), {"hub": hub})
    servers = [ThreadingHTTPServer(("127.0.0.1", 0), handler) for _ in range(2)]
    for server in servers:
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
    hub.endpoint, hub.cdn = (f"http://127.0.0.1:{s.server_address[1]}" for s in servers)
    try:
        yield hub
    finally:
        hub.faults.release.set()
        for server in servers:
            server.shutdown()
            server.server_close()
