"""The one notifier (docs/watch.md, "Notifications"): a request to tell the person something is
bounded, held to a rate, tried route by route in ``notify.routes``' order, and recorded as one
``notification``: posted by the first route that could, or refused with the reason, each route
passed over named with why (``skipped``)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Collection, Mapping
from typing import TextIO

from wisp.audit.kinds import Notification
from wisp.config.sections import Notify as NotifySettings
from wisp.notify.notice import Notice, notice
from wisp.notify.routes import (
    NO_HOST,
    PROTOCOL_OUTPUT,
    Route,
    RouteFailed,
    TerminalRoute,
    Unavailable,
)

ROUTES = ("host", "terminal", "app")
"""Every route, in the order ``notify.routes`` tries them by default."""
SOURCES = ("model", "user", "watch", "approval", "inquiry")
"""Who asks: the model's ``notify`` tool, ``wisp notify``, ``wisp watch``, a command waiting
for approval under ``wisp mcp``, the model's question waiting there."""
WINDOW_SECONDS = 60.0
OFF = "the model's notifications are off (notify.enabled is false)"

Record = Callable[[Notification], object]


class Notifier:
    """Posts each request by the first route that can serve, and records it."""

    def __init__(
        self,
        routes: Mapping[str, Route],
        *,
        record: Record,
        settings: Callable[[], NotifySettings],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.routes = routes
        self.record = record
        self.settings = settings
        """``notify`` in config.json, read at each request: a change made while wisp runs
        (``wisp config set notify.enabled false``) holds from the next one."""
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
        record: Record | None = None,
    ) -> Notification:
        """Post a notification and record it (with ``record`` when given: a tool call's own);
        the recorded event says how it went. ``only`` narrows the routes (a front end's own
        notices go to it alone)."""
        shown = notice(title, body, subtitle=subtitle, sound=sound)
        record = record or self.record
        settings = self.settings()
        if source == "model" and not settings.enabled:
            return self.refuse(shown, source, OFF, record=record)
        if not shown.title and not shown.body:
            return self.refuse(shown, source, "the title and the body are empty", record=record)
        if not self._room(source, settings.per_minute):
            reason = f"more than {settings.per_minute} a minute"
            return self.refuse(shown, source, reason, record=record)
        skipped: list[str] = []
        for name in settings.routes:
            if name not in self.routes or (only is not None and name not in only):
                continue
            route = self.routes[name]
            reason = route.unavailable()
            if reason is None:
                try:
                    await route.post(shown)
                except RouteFailed as exc:
                    reason = str(exc)
                else:
                    event = _event(shown, source, "posted", route=name, skipped=skipped)
                    record(event)
                    return event
            skipped.append(f"{name}: {reason}")
        reason = "no route could post it" if skipped else "notify.routes names no route"
        event = _event(shown, source, "refused", reason=reason, skipped=skipped)
        record(event)
        return event

    def refuse(
        self, shown: Notice, source: str, reason: str, *, record: Record | None = None
    ) -> Notification:
        """Refuse before any route (off, empty, over a limit): recorded, with neither a route
        nor ``skipped``."""
        event = _event(shown, source, "refused", reason=reason)
        (record or self.record)(event)
        return event

    def _room(self, source: str, per_minute: int) -> bool:
        """Whether one more request from ``source`` fits the minute; if so, it is counted."""
        now = self.clock()
        sent = self._sent.setdefault(source, deque())
        while sent and now - sent[0] >= WINDOW_SECONDS:
            sent.popleft()
        if len(sent) >= per_minute:
            return False
        sent.append(now)
        return True


def _event(
    shown: Notice,
    source: str,
    outcome: str,
    *,
    route: str | None = None,
    reason: str | None = None,
    skipped: list[str] | None = None,
) -> Notification:
    """The ``notification`` event: title and body as bounded, ``skipped`` only when a route
    was passed over."""
    event = Notification(title=shown.title, body=shown.body, source=source, outcome=outcome)
    if route is not None:
        event.route = route
    if reason is not None:
        event.reason = reason
    if skipped:
        event.skipped = skipped
    return event


def build_notifier(
    settings: Callable[[], NotifySettings],
    record: Record,
    *,
    env: Mapping[str, str],
    host: Route | None = None,
    terminal: TextIO | None = None,
) -> Notifier:
    """A face's notifier, as ``notify`` in config.json orders it: its host when it has one, the
    terminal it writes to when it has one (never the stream a protocol runs on), and the
    desktop's service."""
    from wisp.notify.app import AppRoute

    routes: dict[str, Route] = {
        "host": host if host is not None else Unavailable("host", NO_HOST),
        "terminal": TerminalRoute(terminal, env)
        if terminal is not None
        else Unavailable("terminal", PROTOCOL_OUTPUT),
        "app": AppRoute(env),
    }
    return Notifier(routes, record=record, settings=settings)
