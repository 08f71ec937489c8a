"""``notify``: the model tells the person something worth their attention (a long task
finished, something needs them) with a notification, through wisp's one notifier (docs/watch.md,
"Notifications"). Offered only when ``notify.enabled`` is on; at most ``notify.perTurn`` a turn
and the notifier's ``notify.perMinute`` a minute. No approval: it shows words, it runs nothing."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from wisp.agent.types import ToolContext
from wisp.notify.notice import notice
from wisp.notify.notifier import Notifier
from wisp.tools.arguments import parse_arguments, schema_of

REPEATED = "the same notification was posted this turn"


class NotifyArgs(msgspec.Struct, kw_only=True):
    title: Annotated[str, msgspec.Meta(description="A few words")]
    message: Annotated[str, msgspec.Meta(description="One or two sentences")]


class NotifyTool:
    """Posts the model's notification; the result says the route, or why it was not shown."""

    name = "notify"
    description = "Show the person a desktop notification, for something worth their attention."
    parameters = schema_of(NotifyArgs)
    read_only = True

    def __init__(self, notifier: Notifier, per_turn: int) -> None:
        self.notifier = notifier
        self.per_turn = per_turn
        self._turn: tuple[str, int] | None = None
        self._this_turn = 0
        self._posted: dict[tuple[str, str], str] = {}
        """This turn's notifications posted, by title and message, and the route of each: a
        small model repeats its call, and the person wants to be told once."""

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> str:
        args = parse_arguments(self.name, arguments, NotifyArgs, context.notes)
        if isinstance(args, str):
            return args
        self._start_turn(context)
        route = self._posted.get((args.title, args.message))
        if route is not None:
            # Recorded, as every request of the tool is; the model is told it was shown.
            shown = notice(args.title, args.message)
            self.notifier.refuse(shown, "model", REPEATED, record=context.record)
            return f"notification already posted via {route} this turn; it is not shown twice"
        if not self._room():
            shown = notice(args.title, args.message)
            event = self.notifier.refuse(
                shown, "model", f"more than {self.per_turn} this turn", record=context.record
            )
        else:
            event = await self.notifier.post(
                args.title, args.message, source="model", record=context.record
            )
        if event.outcome == "posted":
            self._posted[(args.title, args.message)] = str(event.route)
            return f"notification posted via {event.route}"
        return f"error: notification not shown: {event.reason}"

    def _start_turn(self, context: ToolContext) -> None:
        """A new turn has its own room and its own record of what was posted."""
        turn = (context.conversation.session, context.conversation.turn)
        if turn != self._turn:
            self._turn, self._this_turn, self._posted = turn, 0, {}

    def _room(self) -> bool:
        """Whether this turn has room for one more; if so, it is counted."""
        if self._this_turn >= self.per_turn:
            return False
        self._this_turn += 1
        return True
