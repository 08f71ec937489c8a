"""The one notifier (wisp/notify/notifier.py): routes tried in notify.routes' order, each one
passed over named with its reason, a failed post falling through to the next, a rate per
source, and the model's requests refused while notify.enabled is off."""

from __future__ import annotations

import msgspec

from wisp.audit.kinds import Notification
from wisp.config.sections import Notify
from wisp.notify.notice import Notice
from wisp.notify.notifier import OFF, WINDOW_SECONDS, Notifier
from wisp.notify.routes import RouteFailed


class Route:
    """A route that serves, cannot serve (``why``), or fails when tried (``fails``)."""

    def __init__(self, name: str, *, why: str | None = None, fails: str | None = None) -> None:
        self.name = name
        self.why = why
        self.fails = fails
        self.posted: list[Notice] = []

    def unavailable(self) -> str | None:
        return self.why

    async def post(self, notice: Notice) -> None:
        if self.fails:
            raise RouteFailed(self.fails)
        self.posted.append(notice)


class Setup:
    def __init__(self, *routes: Route, enabled: bool = False, order: list[str] | None = None):
        self.recorded: list[Notification] = []
        self.now = 0.0
        self.settings = Notify(
            enabled=enabled,
            routes=order or [route.name for route in routes],
            per_minute=3,
            per_turn=2,
        )
        self.notifier = Notifier(
            {route.name: route for route in routes},
            record=self.recorded.append,
            settings=lambda: self.settings,
            clock=lambda: self.now,
        )


async def test_the_first_route_that_can_serve_posts_it_and_those_before_say_why() -> None:
    host, terminal, app = Route("host", why="no front end"), Route("terminal"), Route("app")
    setup = Setup(host, terminal, app)
    event = await setup.notifier.post("Build", "tests pass", source="watch")
    assert (event.outcome, event.route, event.skipped) == (
        "posted",
        "terminal",
        ["host: no front end"],
    )
    assert terminal.posted == [Notice("Build", "tests pass")] and not app.posted
    assert setup.recorded == [event]


async def test_a_route_that_fails_falls_through_to_the_next() -> None:
    app = Route("app")
    setup = Setup(Route("terminal", fails="could not write"), app)
    event = await setup.notifier.post("Build", "", source="user")
    assert (event.route, event.skipped) == ("app", ["terminal: could not write"])


async def test_notify_routes_orders_and_narrows_them() -> None:
    host, app = Route("host"), Route("app")
    setup = Setup(host, app, order=["app"])
    event = await setup.notifier.post("Build", "", source="user")
    assert (event.route, event.skipped, host.posted) == ("app", msgspec.UNSET, [])


async def test_nothing_can_serve_refuses_it_with_every_reason() -> None:
    setup = Setup(Route("host", why="a"), Route("app", why="b"))
    event = await setup.notifier.post("Build", "", source="user")
    assert (event.outcome, event.reason, event.skipped) == (
        "refused", "no route could post it", ["host: a", "app: b"],
    )  # fmt: skip


async def test_each_source_has_its_own_minute() -> None:
    app = Route("app")
    setup = Setup(app, enabled=True)
    outcomes = [(await setup.notifier.post("m", "", source="model")).outcome for _ in range(4)]
    assert outcomes == ["posted"] * 3 + ["refused"]
    assert setup.recorded[-1].reason == "more than 3 a minute"
    assert setup.recorded[-1].skipped is msgspec.UNSET  # refused before any route
    assert (await setup.notifier.post("wait", "", source="approval")).outcome == "posted"
    setup.now += WINDOW_SECONDS
    assert (await setup.notifier.post("m", "", source="model")).outcome == "posted"


async def test_the_models_requests_are_refused_while_notify_enabled_is_off() -> None:
    app = Route("app")
    setup = Setup(app, enabled=True)
    assert (await setup.notifier.post("m", "", source="model")).outcome == "posted"
    setup.settings = msgspec.structs.replace(setup.settings, enabled=False)  # set while running
    event = await setup.notifier.post("m", "", source="model")
    assert (event.outcome, event.reason) == ("refused", OFF)
    # The person's own requests are theirs: the switch is the model's.
    assert (await setup.notifier.post("w", "", source="watch")).outcome == "posted"


async def test_an_empty_request_is_refused() -> None:
    setup = Setup(Route("app"))
    event = await setup.notifier.post(" \n", "\x1b", source="user")
    assert (event.outcome, event.reason) == ("refused", "the title and the body are empty")
