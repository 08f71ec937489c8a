"""``wisp notify TITLE [BODY]``: tell the person something, through the first route that can
(docs/watch.md, "Notifications"). Its own audited session, entry point ``notify``, recording one
``notification``. Quiet when posted, as notify-send is; refused, the reason and each route passed
over go to stderr and it exits 1."""

from __future__ import annotations

import argparse
import asyncio
import sys

import msgspec

from wisp.cli.context import Context, command_session

REFUSED_EXIT = 1

EPILOG = """\
examples:
  wisp notify "Build finished"               a title alone
  wisp notify Deploy "staging is up"         a title and a body
  make test; wisp notify "tests done" "exit $?"
  tail -n 3 build.log | wisp notify Build -  the body read from stdin

Routes are tried in notify.routes' order (host, terminal, app): a front end hosting wisp, the
terminal's notification sequence (ghostty, WezTerm, kitty, foot), the desktop's notification
service over D-Bus. The title is cut to 64 characters and the body to 256. Recorded in the
audit log as notification (entryPoint notify). exit status: 0 posted, 1 not shown (the reason
on stderr), 2 a usage error."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "notify",
        help="Show a desktop notification.",
        description="Show a desktop notification through the first route that can.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("title", metavar="TITLE", help="a few words")
    parser.add_argument(
        "body", metavar="BODY", nargs="?", default="", help="more words; - reads them from stdin"
    )
    parser.add_argument(
        "--json", action="store_true", help="print the recorded notification as JSON"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, context: Context) -> int:
    body = sys.stdin.read() if args.body == "-" else args.body
    return asyncio.run(_notify(args.title, body, context, as_json=args.json))


async def _notify(title: str, body: str, context: Context, *, as_json: bool) -> int:
    from wisp.notify.notifier import build_notifier

    with command_session(context, "notify") as log:
        config = context.load_config()
        notifier = build_notifier(
            lambda: config.settings.notify, log.record, env=context.environ,
            terminal=context.stderr,
        )  # fmt: skip
        event = await notifier.post(title, body, source="user")
    if as_json:
        print(msgspec.json.encode(event).decode(), file=context.stdout, flush=True)
    if event.outcome == "posted":
        return 0
    context.warn(f"notification not shown: {event.reason}")
    for skipped in event.skipped or []:
        print(f"  {skipped}", file=context.stderr, flush=True)
    return REFUSED_EXIT
