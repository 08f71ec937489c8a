"""``wisp watch -- COMMAND…``: the command run at start, on each change under the watched
folders and on an interval; each run one line, a failure's output and what a model made of it
under it, a change of state notified, each run recorded as ``watch.run`` in an audited session
of its own (docs/watch.md)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shlex
import signal
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from wisp.audit import AuditLog
from wisp.cli.context import Context, command_session
from wisp.errors import UsageError
from wisp.watch.types import Triage

if TYPE_CHECKING:
    from wisp.watch.runs import Watch
    from wisp.watch.watcher import Watcher

EPILOG = """\
examples:
  wisp watch -- pytest -q                   at start and on each change here, until Ctrl-C
  wisp watch --path src --path tests -- make test
                                            only changes under src/ and tests/
  wisp watch --interval 300 -- ./check.sh   also 5 minutes after a run, when nothing changed
  wisp watch --restart -- python serve.py   a change stops the running command, starts it anew
  wisp watch --timeout 60 -- cargo test     a run that takes over a minute fails
  wisp watch --no-triage -- make            no model reads the failures
  wisp watch -m ollama:qwen3 -- pytest -q   failures read by that model

Each run prints one line: its number, why it ran, pass or fail, its time and what changed;
under a failure, the command's output, then the model's reading of it (routing.tasks.triage;
skipped while the output stays the same). Changes in .git/, in the paths git ignores, in
caches such as __pycache__ and in editors' swap files start nothing. A change from pass to
fail or back is notified (notify.routes). The command runs as a ! command in chat: the deny
and allow lists and the sandbox, no approval; one the lists refuse exits 2. Ctrl-C ends the
watch and stops the command: exit status 130. Each run is recorded as watch.run (wisp logs
--kind watch.run)."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    summary = "Run a command at start and again whenever a file changes."
    parser = commands.add_parser(
        "watch",
        help=summary,
        description=summary,
        epilog=EPILOG,
        usage="wisp watch [options] -- COMMAND...",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--path", action="append", dest="paths", metavar="PATH", type=Path,
        help="a folder or file to watch, as often as needed (default: the working folder)",
    )  # fmt: skip
    parser.add_argument(
        "--interval", type=_seconds, metavar="S",
        help="also run S seconds after the last run ended, when nothing changed",
    )  # fmt: skip
    parser.add_argument(
        "--timeout", type=_seconds, metavar="S",
        help="a run still going after S seconds is stopped and fails (default: no limit)",
    )  # fmt: skip
    parser.add_argument(
        "--restart", action="store_true",
        help="a change stops the running command and starts it again, rather than waiting",
    )  # fmt: skip
    parser.add_argument(
        "--no-triage", action="store_true", help="no model reads a failed run's output"
    )
    parser.add_argument(
        "-m", "--model", metavar="MODEL", default=argparse.SUPPRESS,
        help="the model that reads failures (default: routing.tasks.triage, else wisp's "
        "measured default, else local)",
    )  # fmt: skip
    parser.add_argument("command", nargs="*", metavar="COMMAND", help="the command, after --")
    parser.set_defaults(handler=run_watch)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected more than 0 seconds, got {text}")
    return value


def run_watch(args: argparse.Namespace, context: Context) -> int:
    if not args.command:
        raise UsageError("name the command to watch after --, as in: wisp watch -- pytest -q")
    model: str | None = getattr(args, "model", None)
    if model is not None:
        _check_selection(model)
    directory = Path.cwd()
    roots = _roots(args.paths or [directory])
    return asyncio.run(_watch(args, context, directory, roots, model))


def _roots(paths: list[Path]) -> list[Path]:
    """Each path to watch, as a real path; one that does not exist is a usage error."""
    roots: list[Path] = []
    for path in paths:
        if not path.exists():
            raise UsageError(f"--path {path}: no such file or folder")
        roots.append(path.resolve())
    return roots


def _check_selection(model: str) -> None:
    from wisp.agent.types import ModelUnavailable
    from wisp.models.selection import canonical_selection

    try:
        canonical_selection(model)
    except ModelUnavailable as exc:
        raise UsageError(f"-m {model}: {exc}") from None


async def _watch(
    args: argparse.Namespace,
    context: Context,
    directory: Path,
    roots: list[Path],
    model: str | None,
) -> int:
    from wisp.watch.pending import Pending
    from wisp.watch.runs import watch_changes

    line = shlex.join(args.command)
    with command_session(context, "watch") as log, _signals() as ended_by:
        async with _triage(context, log, line, model, enabled=not args.no_triage) as triage:
            watch, watcher = await _built(args, context, log, triage, line, directory, roots)
            ended_by.attach(watch)
            await watch_changes(watch, watcher, Pending())
    return 128 + (ended_by.signal or signal.SIGINT)


async def _built(
    args: argparse.Namespace,
    context: Context,
    log: AuditLog,
    triage: Triage | None,
    line: str,
    directory: Path,
    roots: list[Path],
) -> tuple[Watch, Watcher]:
    """The watch, on the session's runner and notifier, and the watcher of its paths."""
    # Imported here: `wisp watch --help` loads none of it.
    from wisp.cli.building.own_programs import helper_argv
    from wisp.cli.building.runner import typed_runner
    from wisp.cli.watching.launch import TypedLaunch
    from wisp.notify.notifier import build_notifier
    from wisp.watch.ignore import GitIgnore, PassedOver
    from wisp.watch.runs import Watch, WatchOptions
    from wisp.watch.watcher import Watcher

    config = context.load_config()
    runner = typed_runner(context, directory, log.record)
    notifier = build_notifier(
        lambda: config.settings.notify, log.record, env=context.environ, terminal=context.stderr
    )
    watch = Watch(
        WatchOptions(command=line, interval=args.interval, restart=args.restart, base=directory),
        TypedLaunch(runner, line, directory, record=log.record, timeout=args.timeout),
        record=log.record,
        notifier=notifier,
        triage=triage,
        out=context.stdout,
        err=context.stderr,
        clock=lambda: datetime.now().strftime("%H:%M:%S"),
    )
    # The home is passed over: each run's watch.run is written there.
    passed_over = PassedOver(roots, [context.home.root.resolve()])
    # git answers for a folder the model's commands write, .git/config included: it is found
    # outside the writable roots and confined as they are.
    search_path = context.environ.get("PATH", os.defpath)
    git = await GitIgnore.around(
        roots, lambda words: helper_argv(runner, "git", words, search_path)
    )
    return watch, Watcher(roots, passed_over=passed_over, git=git)


class _Ended:
    """The signal that ended the watch, and the watch it ends."""

    def __init__(self) -> None:
        self.signal: int | None = None
        self.watch: Watch | None = None

    def __call__(self, signum: int) -> None:
        self.signal = self.signal or signum
        if self.watch is not None:
            self.watch.end()

    def attach(self, watch: Watch) -> None:
        """``watch`` is the one to end; a signal that came while it was being built ends it
        now."""
        self.watch = watch
        if self.signal is not None:
            watch.end()


@contextlib.contextmanager
def _signals() -> Iterator[_Ended]:
    """Ctrl-C (and SIGTERM) end the watch: the first stops the command (SIGTERM, then SIGKILL
    after a grace), a second kills it at once."""
    loop = asyncio.get_running_loop()
    ended = _Ended()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, ended, signum)
    try:
        yield ended
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


@contextlib.asynccontextmanager
async def _triage(
    context: Context, log: AuditLog, line: str, model: str | None, *, enabled: bool
) -> AsyncIterator[Triage | None]:
    """The watch's triage, or None with ``--no-triage``; its models closed after."""
    if not enabled:
        yield None
        return
    from wisp.cli.watching.triage import LazyTriage

    triage = LazyTriage(context, log, line, model)
    try:
        yield triage
    finally:
        await triage.aclose()
