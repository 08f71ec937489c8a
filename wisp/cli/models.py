"""``wisp models``: list every model wisp can see; enable, disable, check or pull one.

``list`` asks every runtime at once and never waits long (``wisp.models.catalog``). ``enable``
and ``disable`` edit ``models.disabled``; ``check`` asks a model three short questions and
records what it can do under ``<scheme>.models.<name>``; ``pull`` has Ollama fetch a model.
The commands that change something run as an audited session (``entryPoint: models``).

Chat's ``/models`` uses ``picker_rows`` and ``set_disabled`` from here. This module imports
neither httpx nor asyncio at startup (``wisp logs`` shares the parser); handlers import them.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from wisp.agent.types import CAPABILITY_WORDS
from wisp.audit import AuditLog, open_sink
from wisp.audit.kinds import ConfigChange, SessionStart
from wisp.cli.context import Context, audit_settings
from wisp.cli.models_table import (
    muted,
    piped_lines,
    terminal_lines,
    unreachable_line,
)
from wisp.config import MISSING, Config, locked_config, save_config, set_value, unset_value
from wisp.errors import WispError
from wisp.models.selection import canonical_selection, parse_selection

if TYPE_CHECKING:
    import httpx

    from wisp.models.catalog import Catalog

Record = Callable[[Any], Any]
"""Records one audit event (a ``wisp.audit`` Details)."""
Say = Callable[[str], None]

DESCRIPTION = """\
List the models wisp can use: the embedded local model, every model of every runtime that
answers (Ollama, llama.cpp's llama-server, LM Studio, an OpenAI-compatible server) and the
configured ones. Enable, disable, check or pull one."""

EPILOG = """\
examples:
  wisp models                         every model, * marking the default
  wisp models --json                  {"models": [...], "unreachable": [...]}
  wisp models disable ollama:qwen3    hidden from /model and refused until enabled
  wisp models enable ollama:qwen3     a model with no recorded capabilities is checked first
  wisp models check local             ask three short questions; record what it can do
  wisp models pull ollama:qwen3:8b    have Ollama download a model, with progress

A runtime that does not answer within about a second is one line on stderr saying so. The
commands that change something (enable, disable, check, pull) are recorded in the audit log.

capabilities, and their names in config.json (<scheme>.models.<name>.capabilities):
""" + "\n".join(f"  {word:<20}{name}" for name, word in CAPABILITY_WORDS.items())

DISABLED_KEY = "models.disabled"


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "models",
        help="List the models wisp can use; enable, disable, check or pull one.",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print the listing as one JSON object")
    parser.set_defaults(handler=run_list)
    actions = parser.add_subparsers(title="actions", metavar="ACTION", dest="action")

    listing = actions.add_parser("list", help="List every model (the default action).")
    listing.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS,
        help="print the listing as one JSON object",
    )  # fmt: skip
    listing.set_defaults(handler=run_list)

    for name, helped in (
        ("enable", "Turn models on again; one with no recorded capabilities is checked first."),
        ("disable", "Turn models off: hidden from /model and refused until enabled."),
        ("check", "Ask models three short questions and record what they can do."),
    ):
        action = actions.add_parser(name, help=helped, description=helped)
        action.add_argument(
            "models", nargs="+", metavar="MODEL", help="a selection: local, ollama:NAME, …"
        )
        action.set_defaults(handler=HANDLERS[name])

    pull = actions.add_parser(
        "pull",
        help="Have Ollama download a model, showing its progress.",
        description="Have Ollama download a model (POST /api/pull); Ctrl-C stops it, and "
        "Ollama resumes from what arrived next time.",
    )
    pull.add_argument("model", metavar="MODEL", help="ollama:NAME, such as ollama:qwen3:8b")
    pull.set_defaults(handler=run_pull)


# -- list --------------------------------------------------------------------------------------


async def picker_rows(
    config: Any,
    environ: Any,
    *,
    in_use: str | None,
    client: httpx.AsyncClient | None = None,
) -> Catalog:
    """The listing for chat's ``/models``: ``in_use`` is the conversation's model."""
    from wisp.models.catalog import list_models

    if client is not None:
        return await list_models(config, environ, client, in_use=in_use)
    import httpx

    async with httpx.AsyncClient() as own:
        return await list_models(config, environ, own, in_use=in_use)


def run_list(args: argparse.Namespace, context: Context) -> int:
    import asyncio

    import msgspec

    config = context.load_config()
    catalog = asyncio.run(
        picker_rows(config, context.environ, in_use=config.checked_value("model"))
    )
    if args.json:
        print(msgspec.json.encode(catalog).decode(), file=context.stdout, flush=True)
        return 0
    if context.stdout.isatty():
        width = _terminal_width(context)
        lines = terminal_lines(catalog.models, width, color=_has_color(context))
    else:
        lines = piped_lines(catalog.models)
    print("\n".join(lines), file=context.stdout, flush=True)
    color = context.stderr.isatty() and _has_color(context)
    for runtime in catalog.unreachable:
        print(muted(unreachable_line(runtime), color), file=context.stderr, flush=True)
    return 0


def _terminal_width(context: Context) -> int:
    try:
        return os.get_terminal_size(context.stdout.fileno()).columns
    except (OSError, ValueError, AttributeError):
        columns = context.environ.get("COLUMNS", "")
        return int(columns) if columns.isdigit() and int(columns) > 0 else 80


def _has_color(context: Context) -> bool:
    return not context.environ.get("NO_COLOR")


# -- enable and disable ------------------------------------------------------------------------


def default_refusal(selection: str) -> WispError:
    """models.md §5, word for word."""
    return WispError(
        f"{selection} is the default model, so it cannot be disabled; make another model the "
        "default first (config.json's model: wisp config set model <name>, or /config set "
        "model in chat)"
    )


def canonical(selection: str) -> str:
    """The spelling every comparison uses; a malformed one compares as written."""
    try:
        return canonical_selection(selection)
    except WispError:
        return selection


def set_disabled(
    context: Context, selections_off: set[str], *, source: str, record: Record
) -> list[str]:
    """Make ``selections_off`` the whole of ``models.disabled`` (chat's picker); its notes.

    Models in the list but not in ``selections_off`` are enabled; spellings already in the
    file are kept. Notes are for changes only (none: nothing changed). Disabling the default
    is refused and nothing is written (models.md §5). Capability checks are the caller's
    (``wisp.cli.models_check.check_and_record``).
    """
    _check_names(selections_off)
    with locked_config(context.home.config_file) as config:
        off = {canonical(selection) for selection in selections_off}
        current = disabled_list(config)
        was_off = {canonical(selection) for selection in current}
        enable = [s for s in current if canonical(s) not in off]
        disable = sorted(s for s in selections_off if canonical(s) not in was_off)
        return toggle(config, enable=enable, disable=disable, record=record, source=source)


def _check_names(selections: Iterable[str]) -> None:
    """§12.2 step 1: every name parses, or nothing is written (``unknown model 'x': …``)."""
    for selection in selections:
        parse_selection(selection)


def disabled_list(config: Config) -> list[str]:
    stored = config.get(DISABLED_KEY)
    return [s for s in stored if isinstance(s, str)] if isinstance(stored, list) else []


def toggle(
    config: Config,
    *,
    enable: Iterable[str],
    disable: Iterable[str],
    record: Record,
    source: str,
    hold: frozenset[str] = frozenset(),
) -> list[str]:
    """models.md §12.2 steps 1–5 on a locked config: write, record ``config.change``, say what.

    A name in both lists counts as enabled. ``hold`` (canonical) stays disabled for now: a
    check decides. The caller holds the lock; this saves.
    """
    enabling = {canonical(s): s for s in enable}
    disabling = {canonical(s): s for s in disable if canonical(s) not in enabling}
    default = canonical(config.checked_value("model"))
    if default in disabling:
        raise default_refusal(disabling[default])
    old = disabled_list(config)
    held = {canonical(s) for s in old}
    new = [s for s in old if canonical(s) not in enabling or canonical(s) in hold]
    new += [s for key, s in disabling.items() if key not in held]
    notes = [_enabled_note(s, key in held) for key, s in enabling.items() if key not in hold]
    notes += [_disabled_note(s, key in held) for key, s in disabling.items()]
    if new != old:
        _write_disabled(config, new, record=record, source=source)
    return notes


def _enabled_note(selection: str, was_disabled: bool) -> str:
    return f"enabled {selection}" if was_disabled else f"{selection} is enabled"


def _disabled_note(selection: str, was_disabled: bool) -> str:
    if was_disabled:
        return f"{selection} is disabled"
    return f"disabled {selection}: hidden from /model and refused until enabled"


def _write_disabled(config: Config, new: list[str], *, record: Record, source: str) -> None:
    change = set_value(config, DISABLED_KEY, new) if new else unset_value(config, DISABLED_KEY)
    save_config(config)
    record(
        ConfigChange(
            path=DISABLED_KEY,
            old=None if change.old is MISSING else change.old,
            new=None if change.new is MISSING else change.new,
            source=source,
            approval=None,
        )
    )


def run_disable(args: argparse.Namespace, context: Context) -> int:
    _check_names(args.models)
    with audited_session(context, args.models[0]) as record:
        with locked_config(context.home.config_file) as config:
            notes = toggle(config, enable=[], disable=args.models, record=record, source="cli")
        _say_all(context, notes)
    return 0


def run_enable(args: argparse.Namespace, context: Context) -> int:
    import asyncio

    from wisp.cli.models_check import enable_checked

    _check_names(args.models)
    with audited_session(context, args.models[0]) as record:
        return asyncio.run(enable_checked(context, args.models, record=record, say=_say(context)))


# -- check and pull ----------------------------------------------------------------------------


def run_check(args: argparse.Namespace, context: Context) -> int:
    import asyncio

    from wisp.cli.models_check import check_all

    _check_names(args.models)
    with audited_session(context, args.models[0]) as record:
        return asyncio.run(check_all(context, args.models, record=record, say=_say(context)))


PULL_ELSEWHERE = {
    "llamacpp": "llama.cpp loads models itself: start llama-server with -hf <repo>[:quant] or "
    "-m <file.gguf>",
    "lmstudio": "download it in LM Studio, or with lms get",
    "local": "local models are GGUF files: download one and choose local:/path/to/model.gguf",
}


def run_pull(args: argparse.Namespace, context: Context) -> int:
    import asyncio

    from wisp.cli.models_pull import pull_model

    selection = parse_selection(args.model)
    if selection.scheme != "ollama":
        raise WispError(
            PULL_ELSEWHERE.get(selection.scheme, f"{selection.scheme} models cannot be pulled")
        )
    with audited_session(context, selection.canonical) as record:
        config = context.load_config()
        return asyncio.run(pull_model(context, config, selection.name, record=record))


# -- the session -------------------------------------------------------------------------------


@contextlib.contextmanager
def audited_session(context: Context, model: str) -> Iterator[Record]:
    """An audited ``models`` session: ``session.start`` now, the log closed at the end."""
    config = context.load_config()
    log = AuditLog(open_sink(audit_settings(config), context.home.audit_file))
    try:
        log.record(SessionStart(entry_point="models", tools=[], model=model))
        yield log.record
    finally:
        log.close()


def _say(context: Context) -> Say:
    def say(text: str) -> None:
        print(text, file=context.stdout, flush=True)

    return say


def _say_all(context: Context, notes: Iterable[str]) -> None:
    for note in notes:
        _say(context)(note)


HANDLERS: dict[str, Callable[[argparse.Namespace, Context], int]] = {
    "enable": run_enable,
    "disable": run_disable,
    "check": run_check,
}
