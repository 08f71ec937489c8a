"""The one notifier (docs/watch.md, "Notifications"): a request to tell the person something is
bounded, held to a rate, tried route by route in ``notify.routes``' order, and recorded as one
``notification``: posted by the first route that could, or refused with the reason, each route
passed over named with why (``skipped``)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TextIO

from wisp.audit.kinds import Notification
from wisp.notify.notice import Notice, notice
from wisp.notify.routes import NoHost, NoTerminal, Route, RouteFailed, TerminalRoute

ROUTES = ("host", "terminal", "app")
"""Every route, in the order they are tried by default."""
SOURCES = ("model", "user", "watch", "approval", "inquiry")
"""Who asks: the model's ``notify`` tool, ``wisp notify``, ``wisp watch``, a command waiting
for approval under ``wisp mcp``, the model's question waiting there."""
WINDOW_SECONDS = 60.0

Record = Callable[[Notification], object]


class Notifier:
    """Posts each request by the first route that can serve, and records it."""

    def __init__(
        self,
        routes: Mapping[str, Route],
        *,
        record: Record,
        order: Sequence[str] = ROUTES,
        per_minute: int = 5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.routes = routes
        self.record = record
        self.order = [name for name in order if name in routes]
        """The routes tried, in ``notify.routes``' order; one left out is never tried."""
        self.per_minute = per_minute
        self.clock = clock
        self._sent: dict[str, deque[float]] = {}
        """The times each source's requests were let through, within the last minute: each
        source has its own room, so a model's requests never use up an approval's."""

    async def post(
        self,
        title: str,
        body: str,
        *,
        source: str,
        subtitle: str | None = None,
        sound: bool = False,
        only: Collection[str] | None = None,
    ) -> Notification:
        """Post a notification and record it; the recorded event says how it went. ``only``
        narrows the routes (a front end's own notices go to it alone)."""
        shown = notice(title, body, subtitle=subtitle, sound=sound)
        if not shown.title and not shown.body:
            return self.refuse(shown, source, "the title and the body are empty")
        if not self._room(source):
            return self.refuse(shown, source, f"more than {self.per_minute} a minute")
        skipped: list[str] = []
        for name in self.order:
            if only is not None and name not in only:
                continue
            route = self.routes[name]
            reason = route.unavailable()
            if reason is None:
                try:
                    await route.post(shown)
                except RouteFailed as exc:
                    reason = str(exc)
                else:
                    return self._recorded(shown, source, "posted", route=name, skipped=skipped)
            skipped.append(f"{name}: {reason}")
        reason = "no route could post it" if skipped else "notify.routes names no route"
        return self._recorded(shown, source, "refused", reason=reason, skipped=skipped)

    def refuse(self, shown: Notice, source: str, reason: str) -> Notification:
        """Refuse before any route (off, empty, over a limit): recorded, with neither a route
        nor ``skipped``."""
        return self._recorded(shown, source, "refused", reason=reason)

    def _recorded(
        self,
        shown: Notice,
        source: str,
        outcome: str,
        *,
        route: str | None = None,
        reason: str | None = None,
        skipped: list[str] | None = None,
    ) -> Notification:
        event = Notification(title=shown.title, body=shown.body, source=source, outcome=outcome)
        if route is not None:
            event.route = route
        if reason is not None:
            event.reason = reason
        if skipped:
            event.skipped = skipped
        self.record(event)
        return event

    def _room(self, source: str) -> bool:
        """Whether one more request from ``source`` fits the minute; if so, it is counted."""
        now = self.clock()
        sent = self._sent.setdefault(source, deque())
        while sent and now - sent[0] >= WINDOW_SECONDS:
            sent.popleft()
        if len(sent) >= self.per_minute:
            return False
        sent.append(now)
        return True


def build_notifier(
    order: Sequence[str],
    per_minute: int,
    record: Record,
    *,
    env: Mapping[str, str],
    host: Route | None = None,
    terminal: TextIO | None = None,
) -> Notifier:
    """A face's notifier: its host when it has one, the terminal it writes to when it has
    one (never the stream a protocol runs on), and the desktop's service."""
    from wisp.notify.app import AppRoute

    routes: dict[str, Route] = {
        "host": host if host is not None else NoHost(),
        "terminal": TerminalRoute(terminal, env) if terminal is not None else NoTerminal(),
        "app": AppRoute(env),
    }
    return Notifier(routes, record=record, order=order, per_minute=per_minute)
