"""The routes a notification can take, each able to say why it cannot serve (docs/watch.md,
"Routes"): ``host``, a front end that posts notifications itself, and ``terminal``, the
terminal's own notification sequence. The desktop's service is ``app`` (``wisp.notify.app``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Protocol, TextIO

from wisp.notify.notice import Notice
from wisp.notify.sequences import TerminalNotices, sequence_for


class RouteFailed(Exception):
    """The route was tried and could not post: the message says why, in a few words."""


class Route(Protocol):
    """One way to reach the person."""

    name: str

    def unavailable(self) -> str | None:
        """Why this route cannot serve now, in a few words; None when it can."""
        ...

    async def post(self, notice: Notice) -> None:
        """Post ``notice``; ``RouteFailed`` when it could not."""
        ...


class HostRoute:
    """The front end that hosts wisp posts it: ``wisp chat --json``'s ``notify`` line to a
    front end whose ``hello`` declared ``notify``, or an ACP client's session update."""

    name = "host"

    def __init__(self, send: Callable[[Notice], object], declared: Callable[[], bool]) -> None:
        self.send = send
        self.declared = declared

    def unavailable(self) -> str | None:
        return None if self.declared() else "the front end did not declare notify"

    async def post(self, notice: Notice) -> None:
        self.send(notice)


class Unavailable:
    """A route the face cannot have, and why: no front end hosts ``wisp notify``, and under
    ``wisp chat --json`` the terminal is the front end's."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    def unavailable(self) -> str | None:
        return self.reason

    async def post(self, notice: Notice) -> None:  # pragma: no cover - never available
        raise RouteFailed(self.reason)


NO_HOST = "no front end hosts wisp"
PROTOCOL_OUTPUT = "wisp's output is a protocol's here, not a terminal's"


class TerminalRoute:
    """The terminal's notification sequence (OSC 9, OSC 99, OSC 777), written to ``stream``
    when it is a terminal known to show one."""

    name = "terminal"

    def __init__(self, stream: TextIO, env: Mapping[str, str] | None = None) -> None:
        self.stream = stream
        self.env = os.environ if env is None else env
        self.notices = TerminalNotices(sequence_for(self.env))

    def unavailable(self) -> str | None:
        try:
            at_terminal = self.stream.isatty()
        except (OSError, ValueError):
            at_terminal = False
        if not at_terminal:
            return f"{_stream_name(self.stream)} is not a terminal"
        if self.notices.sequence is None:
            if self.env.get("WISP_NOTIFY", "").strip().lower() == "off":
                return "WISP_NOTIFY is off"
            return f"{_terminal_name(self.env)} has no notification sequence"
        return None

    async def post(self, notice: Notice) -> None:
        text = self.notices.text(notice.title, notice.subtitle, notice.body)
        if text is None:  # pragma: no cover - unavailable() said so first
            raise RouteFailed("no notification sequence")
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError) as exc:
            raise RouteFailed(f"could not write to the terminal: {exc}") from None


def _stream_name(stream: TextIO) -> str:
    name = getattr(stream, "name", "")
    return {"<stderr>": "stderr", "<stdout>": "stdout"}.get(name, "the output")


def _terminal_name(env: Mapping[str, str]) -> str:
    """The terminal as wisp knows it: ``TERM_PROGRAM`` when set, else ``TERM``."""
    return env.get("TERM_PROGRAM") or env.get("TERM") or "a terminal with no TERM"
