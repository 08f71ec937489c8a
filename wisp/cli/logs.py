"""``wisp logs``: read the audit log, one line an event, oldest first and newest last."""

from __future__ import annotations

import argparse
import shutil
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from wisp.audit import REGISTRY
from wisp.audit.event_filter import EventFilter
from wisp.audit.follower import Follower
from wisp.audit.line_scan import Record
from wisp.audit.log_files import Warn
from wisp.audit.reader import read_decoded, read_events, read_stored_lines
from wisp.audit.summary import summary_line
from wisp.cli.context import Context
from wisp.errors import UsageError
from wisp.spelling import meant

FOLLOW_DEFAULT_LAST = 10

EPILOG = """\
examples:
  wisp logs                                     everything, oldest first
  wisp logs --session 5fd0cf21                  one session (a prefix of its id is enough)
  wisp logs --kind tool.call --kind tool.result --tool run_command
  wisp logs --last 20 --json | jq .             the stored lines, as written
  wisp logs --follow                            the last 10, then new events as they come

Each line: time (UTC), the session's first 8 characters, the turn, the kind, and the detail
that matters for that kind. See docs/logging.md for the kinds and their fields."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "logs",
        help="Show the audit log: what wisp was asked, decided, ran and got back.",
        description="Show the audit log ($WISP_HOME/logs/audit.jsonl and its rotated files), "
        "one line an event, newest last.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--session", metavar="ID", help="only this session (a prefix of its id is enough)"
    )
    parser.add_argument(
        "--kind",
        metavar="KIND",
        action="append",
        default=[],
        help="only events of this kind; repeat for several",
    )
    parser.add_argument(
        "--tool", metavar="TOOL", help="only a tool's events: its calls, results and work"
    )
    parser.add_argument("--last", metavar="N", type=_count, help="only the N newest that match")
    parser.add_argument(
        "--json", action="store_true", help="print the stored lines as they are (JSON Lines)"
    )
    parser.add_argument(
        "--follow",
        "-f",
        action="store_true",
        help=f"keep printing new events as they come (starts with the last "
        f"{FOLLOW_DEFAULT_LAST} unless --last says otherwise); Ctrl-C stops",
    )
    parser.set_defaults(handler=run_logs)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more, got {value}")
    return value


def run_logs(args: argparse.Namespace, context: Context) -> int:
    event_filter = _filter_from(args)
    printer = _Printer(context.stdout, as_json=args.json)
    logs_dir = context.home.logs_dir
    last = args.last
    if args.follow and last is None:
        last = FOLLOW_DEFAULT_LAST
    if args.follow:
        return _follow(logs_dir, event_filter, printer, context, last)
    if last is None:
        printer.print_log(logs_dir, event_filter, context.warn)
    else:
        printer.print_all(deque(read_events(logs_dir, event_filter, context.warn), maxlen=last))
    return 0


def _filter_from(args: argparse.Namespace) -> EventFilter:
    unknown = [kind for kind in args.kind if kind not in REGISTRY]
    if unknown:
        # A mistyped kind would match nothing and look like an empty log: refuse it, and say
        # which kinds there are.
        named = ", ".join(_named_with_hint(kind) for kind in unknown)
        plural = "s" if len(unknown) > 1 else ""
        raise UsageError(
            f"logs --kind: no such kind{plural} {named}; the kinds are: {', '.join(REGISTRY)}"
        )
    if args.session is not None and not args.session.strip():
        raise UsageError("--session needs an id or a prefix of one")
    return EventFilter(session=args.session, kinds=frozenset(args.kind), tool=args.tool)


def _named_with_hint(kind: str) -> str:
    close = meant(kind, REGISTRY, fold_case=True)
    return f"{kind!r} (did you mean {close}?)" if close else repr(kind)


def _follow(
    logs_dir: Path, event_filter: EventFilter, printer: _Printer, context: Context, last: int
) -> int:
    # The follower takes its place at the end before the history is read, so nothing written
    # meanwhile falls between the two or shows twice.
    follower = Follower(logs_dir, event_filter, context.warn)
    history = read_events(logs_dir, event_filter, context.warn, stop_at=follower.position)
    printer.print_all(deque(history, maxlen=last))

    import asyncio  # here, not at the top: only --follow needs it, and it is slow to import

    async def follow() -> None:
        async for records in follower.run():
            printer.print_all(records)

    try:
        asyncio.run(follow())
    except KeyboardInterrupt:
        pass  # Ctrl-C is how --follow ends
    finally:
        follower.close()
    return 0


class _Printer:
    """Writes events to stdout: a summary line each, or (``--json``) the stored lines' bytes."""

    _LINES_A_WRITE = 1024

    def __init__(self, out: TextIO, *, as_json: bool) -> None:
        self.out = out
        self.as_json = as_json
        self.width = shutil.get_terminal_size().columns if out.isatty() else None

    def print_log(self, logs_dir: Path, event_filter: EventFilter, warn: Warn) -> None:
        """Every matching event of the log, the fast way: nothing kept, few large writes."""
        lines: list[str] = []

        def warn_in_order(message: str) -> None:
            # The events before a torn or broken line reach the screen before the note on it.
            self._write_lines(lines)
            self.out.flush()
            warn(message)

        if self.as_json:
            for chunk in read_stored_lines(logs_dir, event_filter, warn_in_order):
                self._write_bytes(chunk)
        else:
            width = self.width
            for event in read_decoded(logs_dir, event_filter, warn_in_order):
                lines.append(summary_line(event, width))
                if len(lines) == self._LINES_A_WRITE:
                    self._write_lines(lines)
            self._write_lines(lines)
        self.out.flush()

    def print_all(self, records: Iterable[Record]) -> None:
        if self.as_json:
            self._write_bytes(b"".join([record.raw + b"\n" for record in records]))
        else:
            width = self.width
            self._write_lines([summary_line(record.event, width) for record in records])
        self.out.flush()

    def print_one(self, record: Record) -> None:
        self.print_all((record,))

    def _write_lines(self, lines: list[str]) -> None:
        if lines:
            lines.append("")
            self.out.write("\n".join(lines))
            lines.clear()

    def _write_bytes(self, data: bytes) -> None:
        """The stored bytes as they are, past the text layer when stdout has a binary buffer."""
        buffer = getattr(self.out, "buffer", None)
        if buffer is None:
            self.out.write(data.decode())
            return
        self.out.flush()  # whatever went through the text layer comes first
        buffer.write(data)
