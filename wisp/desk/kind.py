"""A kind of request on the desk: what an approval, a question, or a later kind says for itself
(docs/design.md, "A request that waits on a person"). The channel, the wait and the answering
path take a ``Kind`` and ask it only these things."""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import msgspec

from wisp.audit.kinds import Details
from wisp.policy.approvers import escape_controls


class ChannelError(Exception):
    """An answer that could not be written or read, or that does not fit; the message says why."""


class Filed(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The base of every kind's filed record, as its ``<id><request_suffix>`` holds it
    (camelCase): who waits for it and until when. A kind's record adds what it asks."""

    id: str
    thread: str | None = None
    client: str | None = None
    pid: int
    """The waiting server's process id: once it is gone, the request is stale."""
    created: int
    """When it was filed, in whole seconds since the epoch."""
    expires_at: str | None = None
    """ISO 8601 (Z) when a time limit applies; None for a request that waits until answered."""

    binding_fields: ClassVar[tuple[str, ...]] = ()
    """The fields an answer's binding covers, in order."""

    @property
    def binding(self) -> str:
        """SHA-256 over the JSON list of ``binding_fields``: an answer carrying it fits this
        request only (not an id reused, nor a request replaced)."""
        fields = [getattr(self, name) for name in self.binding_fields]
        return hashlib.sha256(json.dumps(fields).encode()).hexdigest()


class Settled(msgspec.Struct):
    """How one wait ended: ``answered`` (with the face's answer and the way it came),
    ``timed-out``, ``abandoned`` or ``failed`` (with the reason)."""

    outcome: str
    answer: Any = None
    via: str | None = None
    reason: str | None = None


R = TypeVar("R", bound=Filed)
"""A kind's filed record."""


class AnswerFile(Protocol):
    """What every kind's filed answer (a Struct, ``<id><answer_suffix>``) has besides the answer
    itself: the request's id, the way it came, and the request's binding."""

    @property
    def id(self) -> str: ...

    @property
    def via(self) -> str: ...

    @property
    def binding(self) -> str: ...


F = TypeVar("F", bound=AnswerFile)
"""A kind's filed answer."""
T = TypeVar("T")
"""A kind's answer as the face that asked gets it."""


class Kind(ABC, Generic[R, F, T]):
    """What differs from one kind of request to another. A subclass sets the attributes and
    fills the abstract methods; the others have a body here and are optional."""

    name: ClassVar[str]
    """``approval``: the waiting notice's title says ``wisp: approval waiting``, and the command
    that answers it at a terminal is ``wisp approvals``."""
    noun: ClassVar[str]
    """``request``: its file is ``<id>.request.json``; ``no request 3f9a1c2e is waiting``."""
    answer_noun: ClassVar[str]
    """``answer``: its answer's file is ``<id>.answer.json``; ``the answer file cannot be
    read``. File names of its own, so no kind ever reads another's files."""
    refused_words: ClassVar[str]
    """``an answer to approval request``: ``… 3f9a1c2e was refused: <reason>``, the ``error``
    recorded for an answer file that does not fit."""
    record_type: type[R]
    answer_type: type[F]
    hands_over: ClassVar[bool] = False
    """Whether a request outlives the wait that filed it: True for a fact to keep, which has no
    time limit, so a server that stops (or a thread that closes) first leaves it filed and the
    answering process applies the answer itself. False: the request is withdrawn with its wait,
    and stale once its server is gone."""

    @property
    def source(self) -> str:
        """The ``source`` of its waiting notice and the ``context`` of an answer refused: its
        name, unless the audit has a word of its own for it."""
        return self.name

    @property
    def command(self) -> str:
        """The command that answers it at a terminal: ``approvals``."""
        return f"{self.name}s"

    @property
    def request_suffix(self) -> str:
        return f".{self.noun}.json"

    @property
    def answer_suffix(self) -> str:
        return f".{self.answer_noun}.json"

    # -- answers --------------------------------------------------------------------------------

    @abstractmethod
    def answer(self, request: R, given: Any, via: str) -> F:
        """The person's answer as it is filed; ``ChannelError`` when it does not fit."""
        ...

    @abstractmethod
    def answered_event(self, asked: str, given: Any, via: str, refused: str | None) -> Details:
        """The answering process's record of ``given`` written as the answer to the request
        ``asked`` names, or refused for the reason ``refused`` (``delivered`` has the fields)."""
        ...

    def check_filed(self, answer: F) -> None:
        """``ChannelError`` when an answer file read back holds no answer of this kind."""

    @abstractmethod
    def face_answer(self, answer: F) -> T:
        """A filed answer as the asking face returns it."""
        ...

    @abstractmethod
    def failure(self, reason: str) -> Exception:
        """What the wait raises when no way is left to ask."""
        ...

    @abstractmethod
    def no_way_left(self, out_of_band: bool) -> str:
        """Why no way is left, once the dialog could not ask and nothing is filed."""
        ...

    # -- how it is shown ------------------------------------------------------------------------

    @abstractmethod
    def listing(self, waiting: list[R], now: int) -> list[str]:
        """The lines its command's ``pending`` prints for what waits, oldest first."""
        ...

    @abstractmethod
    def banner_body(self, request: R) -> str:
        """The waiting notice's text: what waits, for which thread, and how to answer it."""
        ...

    @abstractmethod
    def confirmation(self, request: R, answer: F) -> str:
        """What its command prints once an answer is written."""
        ...

    def refused_message(self, request_id: str, reason: str) -> str:
        return f"{self.refused_words} {request_id} was refused: {reason}"

    # -- what it records ------------------------------------------------------------------------

    @abstractmethod
    def stale_event(self, request: R, why: str, seconds: float) -> Details:
        """The sweeping process's record of a request nobody waits for any more."""
        ...

    def pending_event(
        self, request: R, outcome: str, reason: str | None, *, alongside: bool, delay: float
    ) -> Details | None:
        """The asking thread's record of a request filed (or not); None records nothing, and
        then the request is not settled either."""
        return None

    def settled_event(
        self, request: R, settled: Settled, seconds: float, banner: str
    ) -> Details | None:
        """The asking thread's record of how a filed request's wait ended."""
        return None


def delivered(refused: str | None) -> dict[str, Any]:
    """An answered event's ``delivery``, ``written``; or ``refused`` with its ``reason``."""
    if refused is None:
        return {"delivery": "written"}
    return {"delivery": "refused", "reason": refused}


def waits_for(request: Filed) -> str:
    """``thread release of claude-code``: who a request waits for, as a listing and a
    confirmation say it."""
    where = f"thread {escape_controls(request.thread or '-')}"
    if request.client:
        where += f" of {escape_controls(request.client)}"
    return where


def age(seconds: int) -> str:
    """``42s``, ``3m``, ``2h``, ``1d``: how long a request has waited, in a listing."""
    seconds = max(0, seconds)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def table(rows: list[tuple[str, ...]]) -> list[str]:
    """``rows`` (a header first) as a listing's lines, each column as wide as its widest cell."""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
