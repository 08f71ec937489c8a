"""A desktop's notification service for tests: a D-Bus session bus started with
`dbus-daemon --session`, and a listener that owns `org.freedesktop.Notifications` on it and
keeps every `Notify` call, as a desktop's notification daemon would show it."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import msgspec
import pytest
from dbus_fast.annotations import DBusDict, DBusInt32, DBusSignature, DBusStr, DBusUInt32
from dbus_fast.service import ServiceInterface, method

from tests.hang import HANG

DBUS_DAEMON = shutil.which("dbus-daemon")
needs_dbus = pytest.mark.skipif(
    DBUS_DAEMON is None,
    reason="dbus-daemon is not installed (Debian's dbus package; .ci/run installs it)",
)


class Shown(msgspec.Struct, frozen=True):
    """One `Notify` call as the service received it."""

    app_name: str
    summary: str
    body: str
    urgency: int | None


class SessionBus(msgspec.Struct):
    """A running session bus: its address, and what its notification service was asked to
    show (empty when the bus has no such service)."""

    address: str
    shown: list[Shown]


StrList = Annotated[list[str], DBusSignature("as")]
Information = Annotated[list[str], DBusSignature("ssss")]


class Notifications(ServiceInterface):
    """`org.freedesktop.Notifications` as a desktop's daemon serves it, keeping each call."""

    def __init__(self, shown: list[Shown]) -> None:
        super().__init__("org.freedesktop.Notifications")
        self.shown = shown

    @method()
    def Notify(
        self,
        app_name: DBusStr,
        replaces_id: DBusUInt32,
        app_icon: DBusStr,
        summary: DBusStr,
        body: DBusStr,
        actions: StrList,
        hints: DBusDict,
        expire_timeout: DBusInt32,
    ) -> DBusUInt32:
        urgency = hints.get("urgency")
        self.shown.append(
            Shown(app_name, summary, body, None if urgency is None else urgency.value)
        )
        return len(self.shown)

    @method()
    def GetCapabilities(self) -> StrList:
        return ["body"]

    @method()
    def GetServerInformation(self) -> Information:
        return ["wisp-tests", "wisp", "1", "1.2"]


def _daemon(folder: Path) -> tuple[subprocess.Popen[str], str]:
    assert DBUS_DAEMON is not None
    process = subprocess.Popen(
        [DBUS_DAEMON, "--session", "--nofork", f"--address=unix:path={folder / 'bus'}",
         "--print-address=1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    address = process.stdout.readline().strip()  # printed once it listens
    assert address, "dbus-daemon printed no address"
    return process, address


@pytest.fixture
def session_bus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wisp_env: dict[str, str]
) -> Iterator[SessionBus]:
    """A session bus with no notification service on it; DBUS_SESSION_BUS_ADDRESS names it,
    here and in the environment the test's wisp runs with."""
    if DBUS_DAEMON is None:
        pytest.skip("dbus-daemon is not installed (Debian's dbus package; .ci/run installs it)")
    folder = tmp_path / "dbus"
    folder.mkdir()
    process, address = _daemon(folder)
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
    wisp_env["DBUS_SESSION_BUS_ADDRESS"] = address
    try:
        yield SessionBus(address, [])
    finally:
        process.terminate()
        process.wait(HANG)


@pytest.fixture
def notification_service(session_bus: SessionBus) -> Iterator[SessionBus]:
    """The session bus, with a listener owning org.freedesktop.Notifications on it, served
    from a thread of its own so a test may wait on a wisp process meanwhile."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def serve() -> object:
        from dbus_fast.aio import MessageBus

        bus = await MessageBus(bus_address=session_bus.address).connect()
        bus.export("/org/freedesktop/Notifications", Notifications(session_bus.shown))
        await bus.request_name("org.freedesktop.Notifications")
        return bus

    bus = asyncio.run_coroutine_threadsafe(serve(), loop).result(HANG)
    try:
        yield session_bus
    finally:
        loop.call_soon_threadsafe(bus.disconnect)  # type: ignore[attr-defined]
        loop.call_soon_threadsafe(loop.stop)
        thread.join(HANG)
        loop.close()
