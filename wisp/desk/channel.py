"""The desk's channel under ``WISP_HOME/pending``, one for every kind of request (docs/policy.md,
"Approvals out of band" and "Questions out of band").

A waiting face files ``<id><request_suffix>``; whoever answers (``wisp approvals``, ``wisp
questions``, a ``wisp chat --json`` relaying to its front end) makes ``<id><answer_suffix>``.
The suffixes are the kind's own (``.request.json`` and ``.answer.json`` for an approval,
``.question.json`` and ``.reply.json`` for a question), so no kind reads another's files. The
folder is 0700 and each file 0600. A request is written by rename, so a reader never sees half
of one; an answer by hard link of a finished temporary file to its name, so only the first
answer is taken. Each answer carries a binding, SHA-256 over the request's own fields
(``Filed.binding``), so it answers that request and no other.

Confined commands can neither read nor write ``WISP_HOME`` (docs/sandbox.md): that, not this
file format, is what keeps the model from answering its own requests.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from wisp.desk.kind import ChannelError, F, Kind, R
from wisp.home import ensure_private_dir, replace_atomically

PENDING_DIR = "pending"

Record = Callable[[Any], Any]
"""Writes one audit Details on some session's log."""


def pending_dir(home: Path) -> Path:
    return home / PENDING_DIR


def request_path(home: Path, kind: Kind[Any, Any, Any], request_id: str) -> Path:
    return pending_dir(home) / f"{request_id}{kind.request_suffix}"


def answer_path(home: Path, kind: Kind[Any, Any, Any], request_id: str) -> Path:
    return pending_dir(home) / f"{request_id}{kind.answer_suffix}"


def is_request_id(text: str) -> bool:
    """A request id names a file: hex only, so ``../x`` names nothing."""
    return 0 < len(text) <= 32 and all(char in "0123456789abcdef" for char in text)


def expiry(timeout: float | None) -> str | None:
    """When a request filed now with ``timeout`` expires (ISO 8601, Z); None without one."""
    if not timeout:
        return None
    return (datetime.now(UTC) + timedelta(seconds=timeout)).strftime("%Y-%m-%dT%H:%M:%SZ")


def file_request(home: Path, kind: Kind[R, Any, Any], request: R) -> Path:
    """Write the request (folder 0700, file 0600, by rename); ``OSError`` when it cannot be."""
    ensure_private_dir(pending_dir(home))
    path = request_path(home, kind, request.id)
    body = json.dumps(msgspec.to_builtins(request), indent=2).encode() + b"\n"
    replace_atomically(path, body)
    return path


def withdraw(home: Path, kind: Kind[Any, Any, Any], request_id: str) -> None:
    """Remove the request and any answer to it: nobody waits for either any more."""
    for path in (request_path(home, kind, request_id), answer_path(home, kind, request_id)):
        with contextlib.suppress(OSError):  # gone already, or not ours to remove
            path.unlink()


def read_request(home: Path, kind: Kind[R, Any, Any], request_id: str) -> R | None:
    """The request filed under ``request_id``, or None when there is none (or it is
    unreadable)."""
    if not is_request_id(request_id):
        return None
    try:
        raw = request_path(home, kind, request_id).read_bytes()
        return msgspec.json.decode(raw, type=kind.record_type)
    except (OSError, ValueError):  # msgspec's errors are ValueErrors
        return None


def write_answer(home: Path, kind: Kind[R, F, Any], request: R, given: Any, via: str) -> F:
    """Check the person's answer against the request and make ``<id><answer_suffix>`` by hard
    link, so only the first answer is taken; the answer as filed. ``ChannelError`` when it does
    not fit, the request no longer waits, or it was answered already."""
    answer = kind.answer(request, given, via)
    if read_request(home, kind, request.id) != request:
        raise ChannelError(f"{kind.noun} {request.id} no longer waits")
    taken = f"{kind.noun} {request.id} was answered already"
    _link_once(home, request.id, answer_path(home, kind, request.id), answer, taken)
    return answer


def _link_once(home: Path, key: str, target: Path, answer: Any, taken: str) -> None:
    """Write ``answer`` to a private temporary file, then hard-link it to ``target``: a link
    never replaces a file, so of two answers only the first is taken, whole. ``ChannelError``
    saying ``taken`` when ``target`` exists already."""
    fd, temporary = tempfile.mkstemp(prefix=f".{key}.", suffix=".tmp", dir=pending_dir(home))
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(json.dumps(msgspec.to_builtins(answer)).encode() + b"\n")
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(temporary, target)
        except FileExistsError:
            raise ChannelError(taken) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def read_answer(home: Path, kind: Kind[Any, F, Any], request_id: str) -> F | None:
    """The answer filed for ``request_id``, None when there is none yet; ``ChannelError``
    when there is one that cannot be read, or holds no answer of this kind."""
    unreadable = f"the {kind.answer_noun} file cannot be read"
    try:
        raw = answer_path(home, kind, request_id).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ChannelError(f"{unreadable} ({exc.strerror or exc})") from None
    try:
        answer = msgspec.json.decode(raw, type=kind.answer_type)
    except msgspec.DecodeError as exc:
        raise ChannelError(f"{unreadable} ({exc})") from None
    kind.check_filed(answer)
    return answer


def list_waiting(home: Path, kind: Kind[R, Any, Any], record: Record | None = None) -> list[R]:
    """Every request of ``kind`` still waiting, oldest first. Stale ones (their server is gone,
    or their time has passed; never one of a kind that ``hands_over``) are swept on the way:
    removed, and the kind's stale event (``approval.settled`` or ``inquiry.settled``
    ``stale``) recorded by ``record`` on the sweeping process's own log."""
    folder = pending_dir(home)
    try:
        names = sorted(os.listdir(folder))
    except OSError:  # none yet, or unreadable: nothing waits that this process can answer
        return []
    waiting: list[R] = []
    now = datetime.now(UTC)
    for name in names:
        if not name.endswith(kind.request_suffix):
            _sweep_orphan_answer(home, kind, name)
            continue
        request = read_request(home, kind, name.removesuffix(kind.request_suffix))
        if request is None:
            continue
        why = None if kind.hands_over else stale_reason(request, now)
        if why is None:
            waiting.append(request)
            continue
        withdraw(home, kind, request.id)
        if record is not None:
            seconds = float(max(0, int(time.time()) - request.created))
            record(kind.stale_event(request, why, seconds))
    return sorted(waiting, key=lambda request: (request.created, request.id))


def stale_reason(request: Any, now: datetime) -> str | None:
    """Why nobody waits for ``request`` any more, or None while its server still does."""
    if not is_alive(request.pid):
        return f"its server (pid {request.pid}) is gone"
    if request.expires_at is None:
        return None
    try:
        expires = datetime.fromisoformat(request.expires_at)
    except ValueError:
        return f"its expiry cannot be read ({request.expires_at!r})"
    if expires <= now:
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


def _sweep_orphan_answer(home: Path, kind: Kind[Any, Any, Any], name: str) -> None:
    """An answer whose request is gone (it was answered another way meanwhile)."""
    if not name.endswith(kind.answer_suffix):
        return
    request_id = name.removesuffix(kind.answer_suffix)
    if request_path(home, kind, request_id).exists():
        return
    with contextlib.suppress(OSError):
        answer_path(home, kind, request_id).unlink()
