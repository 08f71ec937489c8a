"""The ``notify`` lines of a chat whose front end posts notifications (docs/protocol.md,
"`notify`").

Once a front end's ``hello`` declares ``notify``, it hears of the moments a person who looked
away wants to know about: a turn that ended (its first words, or how it failed or was stopped),
an approval or a question that waits for them. The notices watch the lines the chat writes, so
an approval relayed from ``wisp mcp`` is seen the same as the chat's own. Each notice is
bounded (``TITLE_CHARS``, ``BODY_CHARS``) and at most ``BURST`` of each kind (turn ends, waits)
go out in any ``WINDOW_SECONDS``.

The waiting ones go through the chat's one notifier, to the front end alone, and are recorded
as ``notification`` (``source`` ``approval`` or ``inquiry``, ``route: host``). A turn's end is
not: none of the kind's sources is a turn's end (docs/logging.md, "notification"), so it is
written here, at most ``BURST`` in any ``WINDOW_SECONDS``.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import Callable, Sequence

from wisp import protocol as p
from wisp.notify import notice as bounds
from wisp.notify.notifier import Notifier
from wisp.notify.routes import HostRoute

BURST = 4
WINDOW_SECONDS = 30.0
"""At most ``BURST`` turn ends in any ``WINDOW_SECONDS``: a run of quick turns does not flood
the desktop. The waits are held to the notifier's own rate, each source its own room, so quick
turns never use up the room of an approval that comes later."""
FIRST_WORDS = 120
"""The reply's first characters a turn's notice shows."""
MARKS = re.compile(r"^(?:#{1,6} |> ?|[-*+] |`{3,}\S*)+")
"""Markdown's marks at a line's start: a heading's, a quote's, a list item's, a fence."""
KEPT_REPLY = 1024
"""The reply's characters kept while the turn runs, enough for its first line."""

Write = Callable[[p.Outbound], None]


class Notices:
    """A line writer that adds a ``notify`` line after the lines a person may be waited on."""

    def __init__(
        self,
        write: Write,
        *,
        notifier: Notifier | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.write = write
        self.notifier = notifier
        """The chat's notifier, whose host is this front end; without one, no waiting notice."""
        self.clock = clock
        self.enabled = False
        """The front end's hello declared ``notify``."""
        self._reply: list[str] = []
        self._reply_chars = 0
        self._turns: deque[float] = deque()
        self._posting: set[asyncio.Task[object]] = set()

    def declare(self, effects: Sequence[str]) -> None:
        """A front end's hello: its effects say whether it posts notifications."""
        self.enabled = p.Effect.NOTIFY in effects

    def __call__(self, line: p.Outbound) -> None:
        self.write(line)
        if not self.enabled:
            return
        match line:
            case p.Turn(phase="start"):
                self._reply, self._reply_chars = [], 0
            case p.Delta(text=text) if self._reply_chars < KEPT_REPLY:
                self._reply.append(text)
                self._reply_chars += len(text)
            case p.Turn(phase="end"):
                if self._room():
                    self.write(turn_notice(line, "".join(self._reply)))
                self._reply, self._reply_chars = [], 0
            case p.Approval():
                self._wait_notice(approval_notice(line), "approval")
            case p.Question(question=question):
                self._wait_notice(notice("wisp: question waiting", question, sound=True), "inquiry")
            case _:
                pass

    def _wait_notice(self, line: p.Notify, source: str) -> None:
        """Tell the front end a person is waited on, through the notifier (recorded)."""
        if self.notifier is None:
            return
        posting = asyncio.ensure_future(
            self.notifier.post(
                line.title,
                line.body,
                source=source,
                subtitle=line.subtitle,
                sound=line.sound,
                only=("host",),
            )
        )
        self._posting.add(posting)  # held until done: a task only the loop holds may vanish
        posting.add_done_callback(self._posting.discard)

    def _room(self) -> bool:
        """Whether one more turn's notice fits the rate; if so, it is counted."""
        now = self.clock()
        while self._turns and now - self._turns[0] >= WINDOW_SECONDS:
            self._turns.popleft()
        if len(self._turns) >= BURST:
            return False
        self._turns.append(now)
        return True


def protocol_host(write: Write, effects: Callable[[], Sequence[str]]) -> HostRoute:
    """The ``host`` route of ``wisp chat --json``: a ``notify`` line to a front end whose
    ``hello`` declared ``notify``."""

    def send(shown: bounds.Notice) -> None:
        write(
            p.Notify(title=shown.title, subtitle=shown.subtitle, body=shown.body, sound=shown.sound)
        )

    return HostRoute(send, lambda: p.Effect.NOTIFY in effects())


def notice(title: str, body: str, *, sound: bool, subtitle: str | None = None) -> p.Notify:
    """A ``notify`` line within the bounds."""
    shown = bounds.notice(title, body, subtitle=subtitle, sound=sound)
    return p.Notify(title=shown.title, subtitle=shown.subtitle, body=shown.body, sound=sound)


def turn_notice(end: p.Turn, reply: str) -> p.Notify:
    """``wisp: turn finished`` with the reply's first words, or how long it took; a failed or
    stopped turn says so."""
    number = end.turn
    took = _seconds(end.seconds if isinstance(end.seconds, float | int) else 0.0)
    outcome = end.outcome if isinstance(end.outcome, str) else "ok"
    if outcome == "error":
        return notice("wisp: turn failed", f"turn {number} failed after {took}", sound=False)
    if outcome == "stopped":
        return notice("wisp: turn stopped", f"turn {number} stopped after {took}", sound=False)
    words = first_words(reply)
    body = words or f"turn {number} finished in {took}"
    return notice("wisp: turn finished", body, sound=False)


def approval_notice(approval: p.Approval) -> p.Notify:
    """``wisp: approval waiting`` with the level and the command (or the fact to keep)."""
    if approval.kind == "fact":
        return notice("wisp: fact to keep", approval.command, sound=True)
    client = approval.client if isinstance(approval.client, str) else None
    subtitle = f"from {client}" if approval.source == "mcp" and client else None
    body = f"[{approval.level}] {approval.command}"
    return notice("wisp: approval waiting", body, sound=True, subtitle=subtitle)


def first_words(reply: str) -> str:
    """The reply's first line with words, its spaces collapsed and its Markdown marks (`#`,
    `>`, a list's `-`, a fence) left off, cut at a word near ``FIRST_WORDS``."""
    for raw in reply.splitlines():
        line = MARKS.sub("", " ".join(raw.split()))
        if line:
            return bounds.bounded(line, FIRST_WORDS, at_word=True)
    return ""


def _seconds(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
