"""The ``app`` route: the desktop's notification service, ``org.freedesktop.Notifications`` on
the session bus (docs/watch.md, "Routes").

Spoken through ``dbus-fast``, the maintained asyncio D-Bus library, with one ``Notify`` call.
``desktop-notifier`` wraps the same call but logs a failure and returns as if it had posted, and
the route must say when it could not."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path

from wisp.notify.notice import Notice
from wisp.notify.routes import RouteFailed

SERVICE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
APP_NAME = "wisp"
CALL_SECONDS = 5.0
"""How long a notification service may take to answer before the route counts as failed: a
hung service must not hold up a watch or an approval."""
URGENCY = {False: 1, True: 2}
"""The spec's urgency byte: normal, or critical for a notice that wants a sound (one waiting
on the person)."""


class AppRoute:
    """Posts through the session bus's notification service."""

    name = "app"

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.env = os.environ if env is None else env

    def bus_address(self) -> str | None:
        """The session bus: ``DBUS_SESSION_BUS_ADDRESS``, else the user's bus under
        ``XDG_RUNTIME_DIR`` where it exists."""
        address = self.env.get("DBUS_SESSION_BUS_ADDRESS", "").strip()
        if address:
            return address
        runtime = self.env.get("XDG_RUNTIME_DIR", "")
        if runtime and Path(runtime, "bus").exists():
            return f"unix:path={Path(runtime, 'bus')}"
        return None

    def unavailable(self) -> str | None:
        if self.bus_address() is None:
            return "no desktop session bus (DBUS_SESSION_BUS_ADDRESS is not set)"
        return None

    async def post(self, notice: Notice) -> None:
        try:
            await asyncio.wait_for(self._notify(notice), CALL_SECONDS)
        except TimeoutError:
            raise RouteFailed(
                f"the notification service did not answer within {CALL_SECONDS:g} s"
            ) from None

    async def _notify(self, notice: Notice) -> None:
        from dbus_fast import Message, MessageType, Variant  # only when a notice is posted
        from dbus_fast.aio import MessageBus

        address = self.bus_address()
        try:
            bus = await MessageBus(bus_address=address).connect()
        except Exception as exc:  # dbus-fast raises OSError, auth and address errors alike
            raise RouteFailed(f"could not reach the session bus: {exc}") from None
        title = f"{notice.title} — {notice.subtitle}" if notice.subtitle else notice.title
        try:
            reply = await bus.call(
                Message(
                    destination=SERVICE,
                    path=PATH,
                    interface=SERVICE,
                    member="Notify",
                    signature="susssasa{sv}i",
                    body=[
                        APP_NAME,
                        0,
                        "",
                        title,
                        notice.body,
                        [],
                        {"urgency": Variant("y", URGENCY[notice.sound])},
                        -1,
                    ],
                )
            )
        finally:
            bus.disconnect()
        if reply is None or reply.message_type == MessageType.ERROR:
            raise RouteFailed(_error_text(reply))


def _error_text(reply: object) -> str:
    """A D-Bus error in words: a desktop with no notification service is the common one."""
    name = getattr(reply, "error_name", None) or "no reply"
    if name == "org.freedesktop.DBus.Error.ServiceUnknown":
        return "no notification service on the session bus"
    body = getattr(reply, "body", None)
    detail = f": {body[0]}" if body and isinstance(body[0], str) else ""
    return f"the notification service refused it ({name}{detail})"
