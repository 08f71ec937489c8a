"""`wisp notify` through each route that can run here (docs/watch.md, "Routes"): the desktop's
notification service on a session bus the test starts, the terminal's sequence read as raw bytes
from a pseudo-terminal's master side, and every route that cannot serve skipped with its reason
in the `notification` event."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path

import pytest

from tests.conftest import WISP
from tests.hang import HANG
from tests.notify.bus import SessionBus, Shown


def notifications(audit_lines) -> list[dict]:
    return [line["details"] for line in audit_lines() if line["kind"] == "notification"]


def test_the_desktops_service_shows_it(run_wisp, notification_service: SessionBus, audit_lines):
    done = run_wisp("notify", "Build", "tests pass")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")  # quiet, as notify-send
    assert notification_service.shown == [Shown("wisp", "Build", "tests pass", 1)]
    [event] = notifications(audit_lines)
    assert event == {
        "title": "Build",
        "body": "tests pass",
        "source": "user",
        "outcome": "posted",
        "route": "app",
        "skipped": ["host: no front end hosts wisp", "terminal: stderr is not a terminal"],
    }
    starts = [line for line in audit_lines() if line["kind"] == "session.start"]
    assert [start["details"]["entryPoint"] for start in starts] == ["notify"]


def test_a_bus_with_no_notification_service_is_said(run_wisp, session_bus, audit_lines):
    done = run_wisp("notify", "Build", "tests pass")
    assert done.returncode == 1
    assert "wisp: notification not shown: no route could post it" in done.stderr
    assert "  app: no notification service on the session bus" in done.stderr
    [event] = notifications(audit_lines)
    assert (event["outcome"], event["reason"]) == ("refused", "no route could post it")
    assert "route" not in event


def test_with_no_session_bus_every_route_says_why(run_wisp, audit_lines):
    done = run_wisp("notify", "--json", "Build")
    assert done.returncode == 1
    event = json.loads(done.stdout)
    assert event["skipped"] == [
        "host: no front end hosts wisp",
        "terminal: stderr is not a terminal",
        "app: no desktop session bus (DBUS_SESSION_BUS_ADDRESS is not set)",
    ]
    assert notifications(audit_lines) == [event]


def test_the_title_and_body_are_bounded_and_made_plain(run_wisp, notification_service):
    run_wisp("notify", "T\x1b]9;evil\x07" + "t" * 100, "line one\nline two\x07" + "b" * 400)
    [shown] = notification_service.shown
    assert "\x1b" not in shown.summary and "\x07" not in shown.body
    assert len(shown.summary) == 64 and shown.summary.endswith("…")
    assert shown.body.startswith("line one line two ") and len(shown.body) == 256


def test_the_body_may_come_from_stdin(run_wisp, notification_service):
    assert run_wisp("notify", "Build", "-", input="3 passed\n").returncode == 0
    assert notification_service.shown[0].body == "3 passed"


def test_routes_follow_notify_routes(run_wisp, notification_service, audit_lines):
    assert run_wisp("config", "set", "notify.routes", '["app"]').returncode == 0
    run_wisp("notify", "Build")
    assert "skipped" not in notifications(audit_lines)[-1]  # host and terminal not even tried
    assert run_wisp("config", "set", "notify.routes", "[]").returncode == 0
    done = run_wisp("notify", "Build")
    assert done.returncode == 1 and "notify.routes names no route" in done.stderr
    assert len(notification_service.shown) == 1


def at_a_terminal(wisp_env: dict[str, str], **terminal: str) -> tuple[int, bytes]:
    """`wisp notify Build "tests pass"` with its stdin, stdout and stderr on a pseudo-terminal;
    its exit status and every byte the terminal was sent."""
    env = {k: v for k, v in wisp_env.items() if k not in ("TERM", "TERM_PROGRAM")} | terminal
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [str(WISP), "notify", "Build", "tests pass"],
        stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True,
    )  # fmt: skip
    os.close(slave)
    received = bytearray()
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: every holder of the slave side has closed it
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    return process.wait(HANG), bytes(received)


@pytest.mark.parametrize(
    ("terminal", "sequence"),
    [
        ({"TERM_PROGRAM": "WezTerm"}, b"\x1b]9;Build: tests pass\x07"),
        ({"TERM_PROGRAM": "ghostty"}, b"\x1b]9;Build: tests pass\x07"),
        ({"TERM": "foot"}, b"\x1b]777;notify;Build;tests pass\x07"),
        ({"TERM_PROGRAM": "kitty"}, b":d=0:p=title;Build\x1b\\\x1b]99;i=wisp"),
    ],
)
def test_a_terminal_that_shows_notifications_gets_its_sequence(
    wisp_env: dict[str, str], wisp_home: Path, audit_lines, terminal: dict, sequence: bytes
) -> None:
    status, received = at_a_terminal(wisp_env, **terminal)
    assert status == 0, received
    assert sequence in received
    [event] = notifications(audit_lines)
    assert (event["route"], event["skipped"]) == ("terminal", ["host: no front end hosts wisp"])


def test_a_terminal_with_no_sequence_is_passed_over_with_its_name(
    wisp_env: dict[str, str], notification_service: SessionBus, audit_lines
) -> None:
    env = wisp_env | {"DBUS_SESSION_BUS_ADDRESS": notification_service.address}
    status, received = at_a_terminal(env, TERM_PROGRAM="tmux", TERM="tmux-256color")
    assert status == 0 and b"\x1b]" not in received
    [event] = notifications(audit_lines)
    assert event["route"] == "app"
    assert event["skipped"][1] == "terminal: tmux has no notification sequence"
