"""The out-of-band channel under ``WISP_HOME/pending`` (docs/policy.md, "Approvals out of band").

A waiting ``wisp mcp`` files ``<id>.request.json``; whoever answers (``wisp approvals``, or a
``wisp chat --json`` relaying to its front end) makes ``<id>.answer.json``. The folder is 0700
and each file 0600. A request is written by rename, so a reader never sees half of one; an
answer by hard link of a finished temporary file to its name, so only the first answer is
taken. Each answer carries a binding, SHA-256 over the request's own fields, so it releases
that request and no other (an id reused, a request replaced).

Confined commands can neither read nor write ``WISP_HOME`` (docs/sandbox.md): that, not this
file format, is what keeps the model from answering its own requests.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from wisp.audit.kinds import ApprovalSettled
from wisp.home import ensure_private_dir, replace_atomically
from wisp.policy.types import Answer

PENDING_DIR = "pending"
REQUEST_SUFFIX = ".request.json"
ANSWER_SUFFIX = ".answer.json"
ANSWERS: tuple[Answer, ...] = ("once", "session", "project", "always", "deny")

Record = Callable[[Any], Any]
"""Writes one audit Details on some session's log."""


class ChannelError(Exception):
    """An answer that could not be written or read; the message says why."""


class PendingRequest(msgspec.Struct, frozen=True):
    """One filed request, as ``<id>.request.json`` holds it."""

    id: str
    command: str
    line: str
    pattern: str
    directory: str
    level: str
    reasons: list[str]
    thread: str | None
    client: str | None
    pid: int
    """The waiting server's process id: once it is gone, the request is stale."""
    created: int
    """When it was filed, in whole seconds since the epoch."""
    expires_at: str | None = None
    """ISO 8601 (Z) when a timeout applies; None for a request that waits until answered."""
    outside_sandbox: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "command": self.command,
            "line": self.line,
            "pattern": self.pattern,
            "directory": self.directory,
            "level": self.level,
            "reasons": list(self.reasons),
            "thread": self.thread,
            "client": self.client,
            "pid": self.pid,
            "created": self.created,
            "expiresAt": self.expires_at,
            "outsideSandbox": self.outside_sandbox,
        }

    @classmethod
    def from_json(cls, data: Any) -> PendingRequest:
        """``ChannelError`` when a field is missing or of the wrong type."""
        try:
            request = cls(
                id=as_text(data["id"]),
                command=as_text(data["command"]),
                line=as_text(data["line"]),
                pattern=as_text(data["pattern"]),
                directory=as_text(data["directory"]),
                level=as_text(data["level"]),
                reasons=[as_text(reason) for reason in data.get("reasons", [])],
                thread=as_optional_text(data.get("thread")),
                client=as_optional_text(data.get("client")),
                pid=as_whole(data["pid"]),
                created=as_whole(data["created"]),
                expires_at=as_optional_text(data.get("expiresAt")),
                outside_sandbox=data.get("outsideSandbox") is True,
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ChannelError(f"not a pending request ({exc})") from None
        return request

    @property
    def binding(self) -> str:
        """SHA-256 over ``[id, command, line, pattern, directory, level, thread, pid,
        created]``: an answer carrying it fits this request only."""
        fields = [
            self.id,
            self.command,
            self.line,
            self.pattern,
            self.directory,
            self.level,
            self.thread,
            self.pid,
            self.created,
        ]
        return hashlib.sha256(json.dumps(fields).encode()).hexdigest()

    def expires(self) -> datetime | None:
        if self.expires_at is None:
            return None
        try:
            return datetime.fromisoformat(self.expires_at)
        except ValueError:
            return datetime.fromtimestamp(0, UTC)  # unreadable: treated as passed


class FiledAnswer(msgspec.Struct, frozen=True):
    """``<id>.answer.json``: the person's answer and the request it was given for."""

    id: str
    decision: Answer
    via: str
    """``cli`` (``wisp approvals``) or ``tui`` (a chat's front end)."""
    binding: str


def pending_dir(home: Path) -> Path:
    return home / PENDING_DIR


def request_path(home: Path, request_id: str) -> Path:
    return pending_dir(home) / f"{request_id}{REQUEST_SUFFIX}"


def answer_path(home: Path, request_id: str) -> Path:
    return pending_dir(home) / f"{request_id}{ANSWER_SUFFIX}"


def file_request(home: Path, request: PendingRequest) -> Path:
    """Write the request (folder 0700, file 0600, by rename); ``OSError`` when it cannot be."""
    ensure_private_dir(pending_dir(home))
    path = request_path(home, request.id)
    replace_atomically(path, json.dumps(request.to_json(), indent=2).encode() + b"\n")
    return path


def withdraw(home: Path, request_id: str) -> None:
    """Remove the request and any answer to it: nobody waits for either any more."""
    for path in (request_path(home, request_id), answer_path(home, request_id)):
        with contextlib.suppress(OSError):  # gone already, or not ours to remove
            path.unlink()


def read_request(home: Path, request_id: str) -> PendingRequest | None:
    """The request filed under ``request_id``, or None when there is none (or it is
    unreadable)."""
    if not is_request_id(request_id):
        return None
    try:
        data = json.loads(request_path(home, request_id).read_bytes())
        return PendingRequest.from_json(data)
    except (OSError, ValueError, ChannelError):
        return None


def is_request_id(text: str) -> bool:
    """A request id names a file: hex only, so ``../x`` names nothing."""
    return 0 < len(text) <= 32 and all(char in "0123456789abcdef" for char in text)


def write_answer(home: Path, request: PendingRequest, decision: Answer, via: str) -> None:
    """Make ``<id>.answer.json`` by hard link, so only the first answer is taken.
    ``ChannelError`` when the request no longer waits or was answered already."""
    if decision not in ANSWERS:
        raise ChannelError(f"not an answer: {decision!r}")
    if read_request(home, request.id) != request:
        raise ChannelError(f"request {request.id} no longer waits")
    body = {"id": request.id, "decision": decision, "via": via, "binding": request.binding}
    taken = f"request {request.id} was answered already"
    link_once(home, request.id, answer_path(home, request.id), body, taken)


def link_once(home: Path, key: str, target: Path, body: dict[str, Any], taken: str) -> None:
    """Write ``body`` to a private temporary file, then hard-link it to ``target``: a link
    never replaces a file, so of two answers only the first is taken, whole. ``ChannelError``
    saying ``taken`` when ``target`` exists already."""
    fd, temporary = tempfile.mkstemp(prefix=f".{key}.", suffix=".tmp", dir=pending_dir(home))
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(json.dumps(body).encode() + b"\n")
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(temporary, target)
        except FileExistsError:
            raise ChannelError(taken) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def read_answer(home: Path, request_id: str) -> FiledAnswer | None:
    """The answer filed for ``request_id``, None when there is none yet; ``ChannelError``
    when there is one that cannot be read."""
    try:
        raw = answer_path(home, request_id).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ChannelError(f"the answer file cannot be read ({exc.strerror or exc})") from None
    try:
        data = msgspec.json.decode(raw)
        answer = FiledAnswer(
            id=as_text(data["id"]),
            decision=data["decision"],
            via=as_text(data["via"]),
            binding=as_text(data["binding"]),
        )
    except (msgspec.DecodeError, KeyError, TypeError) as exc:
        raise ChannelError(f"the answer file cannot be read ({exc})") from None
    if answer.decision not in ANSWERS:
        raise ChannelError(f"the answer file holds no answer ({answer.decision!r})")
    return answer


def list_pending(home: Path, record: Record | None = None) -> list[PendingRequest]:
    """Every request still waiting, oldest first. Stale ones (their server is gone, or their
    time has passed) are swept on the way: removed, and ``approval.settled`` ``stale`` recorded
    by ``record`` on the sweeping process's own log."""
    folder = pending_dir(home)
    try:
        names = sorted(os.listdir(folder))
    except OSError:  # none yet, or unreadable: nothing waits that this process can answer
        return []
    waiting: list[PendingRequest] = []
    now = datetime.now(UTC)
    for name in names:
        if not name.endswith(REQUEST_SUFFIX):
            _sweep_orphan_answer(folder, name)
            continue
        request = read_request(home, name.removesuffix(REQUEST_SUFFIX))
        if request is None:
            continue
        why = stale_reason(request, now)
        if why is None:
            waiting.append(request)
            continue
        withdraw(home, request.id)
        if record is not None:
            record(_stale_event(request, why))
    return sorted(waiting, key=lambda request: (request.created, request.id))


def stale_reason(request: PendingRequest, now: datetime) -> str | None:
    """Why nobody waits for ``request`` any more, or None while its server still does."""
    if not is_alive(request.pid):
        return f"its server (pid {request.pid}) is gone"
    expires = request.expires()
    if expires is not None and expires <= now:
        return f"it expired at {request.expires_at}"
    return None


def is_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive
    return True


def _sweep_orphan_answer(folder: Path, name: str) -> None:
    """An answer whose request is gone (it was answered another way meanwhile)."""
    if not name.endswith(ANSWER_SUFFIX):
        return
    if (folder / (name.removesuffix(ANSWER_SUFFIX) + REQUEST_SUFFIX)).exists():
        return
    with contextlib.suppress(OSError):
        (folder / name).unlink()


def _stale_event(request: PendingRequest, why: str) -> ApprovalSettled:
    return ApprovalSettled(
        request=request.id,
        command=request.command,
        thread=request.thread or "",
        outcome="stale",
        reason=why,
        seconds=float(max(0, int(time.time()) - request.created)),
        banner="skipped",
    )


def as_text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    return value


def as_optional_text(value: Any) -> str | None:
    return None if value is None else as_text(value)


def as_whole(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected a whole number, got {type(value).__name__}")
    return value
